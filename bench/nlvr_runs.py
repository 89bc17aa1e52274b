"""The NLVR models the claims benches share (dropping): the shipped configuration
(configs/nlvr.yaml: a conditional NAC, 16 processors) with each graph prior, and the Perceiver IO
baseline (configs/nlvr-baselines/perceiver-io.yaml).

Runs live in runs/nlvr_claims/NAME-seedS and are resumed if interrupted; each takes about
11 minutes on 2 CPU cores (the Perceiver IO about 6).

    python bench/nlvr_runs.py [--priors scale_free planted_partition ...]   # train ahead
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml
from common import trained_run

from circuitlab.model import NAC
from circuitlab.train import TrainConfig

CONFIGS = Path("configs")
RUNS = Path("runs/nlvr_claims")
# 16 processors: 4 blocks / cliques of 4
BLOCKS = {"planted_partition": 4, "ring_of_cliques": 4}
PRIORS = ("scale_free", "planted_partition", "ring_of_cliques", "erdos_renyi")


def _config_file(path: Path, model_overrides: dict[str, Any], seed: int) -> TrainConfig:
    values = yaml.safe_load(path.read_text())
    values["model"] = {**values.get("model", {}), **model_overrides}
    return TrainConfig.from_dict({**values, "seed": seed})


def trained(name: str, config: TrainConfig) -> tuple[NAC, TrainConfig]:
    """(model, its TrainConfig) of run NAME-seedS, training it first (or finishing it) if
    needed."""
    model, config, _ = trained_run(RUNS / f"{name}-seed{config.seed}", config)
    return model, config


def trained_with_prior(prior: str, seed: int = 0) -> tuple[NAC, TrainConfig]:
    """The shipped NLVR configuration with ``prior`` at the regulariser's default weight."""
    params = {"n_blocks": BLOCKS[prior]} if prior in BLOCKS else {}
    overrides = {"prior": prior, "prior_params": params}
    return trained(prior, _config_file(CONFIGS / "nlvr.yaml", overrides, seed))


def trained_perceiver_io(seed: int = 0) -> tuple[NAC, TrainConfig]:
    path = CONFIGS / "nlvr-baselines" / "perceiver-io.yaml"
    return trained("perceiver_io", _config_file(path, {}, seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--priors", nargs="*", default=list(PRIORS), choices=PRIORS)
    parser.add_argument("--perceiver-io", action="store_true", help="also the Perceiver IO")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for prior in args.priors:
        trained_with_prior(prior, args.seed)
    if args.perceiver_io:
        trained_perceiver_io(args.seed)


if __name__ == "__main__":
    main()
