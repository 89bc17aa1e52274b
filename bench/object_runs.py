"""The object-images models the graph-claims benches share (object_priors, object_dropping, ...).

Each model is a recipe in configs/object-images/ trained with a seed into
runs/objects/MODEL-seedS (resumed if interrupted; a finished run is only loaded), so each bench
trains only what another has not already trained. Train them ahead, two at a time on 2 cores:

    OMP_NUM_THREADS=1 python bench/object_runs.py --models none planted_partition --seeds 0 1 2

(about 40 minutes a run on one core of the reference machine, two in parallel.)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from common import initial_model, trained_run

from circuitlab.model import NAC
from circuitlab.options_file import read_options
from circuitlab.train import TrainConfig

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "object-images"
RUNS = Path("runs/objects")
# model name -> recipe; "none" is the NAC with no prior (the Fig. 3 control)
MODELS = {
    "none": "nac.yaml",
    "scale_free": "scale-free.yaml",
    "planted_partition": "planted-partition.yaml",
    "ring_of_cliques": "ring-of-cliques.yaml",
    "erdos_renyi": "erdos-renyi.yaml",
    "perceiver_io": "perceiver-io.yaml",
}
PRIOR_MODELS = ("none", "scale_free", "planted_partition", "ring_of_cliques", "erdos_renyi")


def run_config(model: str, seed: int) -> TrainConfig:
    """The TrainConfig of ``model`` (a key of MODELS) with ``seed``."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {sorted(MODELS)}")
    options = read_options(CONFIGS / MODELS[model])
    return TrainConfig.from_dict({**options, "seed": seed})


def run_dir(model: str, seed: int) -> Path:
    return RUNS / f"{model}-seed{seed}"


def trained(model: str, seed: int, progress: bool = True) -> tuple[NAC, TrainConfig, dict]:
    """(model, its TrainConfig, its summary) of ``model`` with ``seed``, trained if needed."""
    return trained_run(run_dir(model, seed), run_config(model, seed), progress=progress)


def processor_p(model: NAC) -> np.ndarray:
    """The (U, U) link probabilities among ``model``'s processors."""
    u = model.config.n_processors
    return model.circuit().link_probability()[:u, :u]


def initial_processor_p(config: TrainConfig) -> np.ndarray:
    """The same for the run's model before its first step."""
    return processor_p(initial_model(config))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(PRIOR_MODELS), choices=list(MODELS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    args = parser.parse_args()
    for seed in args.seeds:
        for model in args.models:
            _, _, summary = trained(model, seed)
            print(f"{model} seed {seed}: val_acc {summary['val_acc']:.4f}")


if __name__ == "__main__":
    main()
