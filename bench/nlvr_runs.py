"""The NLVR models the claims benches share (dropping, nlvr_ablation): the small NLVR configuration
(configs/nlvr-small.yaml: a conditional NAC, 16 processors) with each graph prior, the Perceiver IO
baseline (configs/experiments/nlvr-baselines/perceiver-io.yaml), and the ablation ladder's
middle rungs (the small configuration with an all-ones graph, and with a frozen random one).

Runs live in runs/nlvr_claims/NAME-seedS and are resumed if interrupted; each takes about
11 minutes on 2 CPU cores (the Perceiver IO about 6).

    python bench/nlvr_runs.py [--priors scale_free planted_partition ...] [--perceiver-io]
                              [--ablation-rungs]   # train ahead
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from common import prior_overrides, trained_run

from circuitlab.config_groups import nest_flat_names
from circuitlab.model import NAC
from circuitlab.options_file import merge_options, read_options
from circuitlab.prior_targets import PRIOR_NAMES
from circuitlab.train import TrainConfig

CONFIGS = Path("configs")
RUNS = Path("runs/nlvr_claims")
PRIORS = PRIOR_NAMES
# the ablation ladder's rungs between Perceiver IO and the NAC: ModFC with codes generated per
# sentence, and an all-ones graph or a frozen random one (the signature head never trains)
GRAPH_RUNGS = {"modfc_dense": "dense", "modfc_frozen": "frozen"}


def _config_file(path: Path, model_overrides: dict[str, Any], seed: int) -> TrainConfig:
    values = read_options(path)
    values["model"] = merge_options(values.get("model", {}), nest_flat_names(model_overrides))
    return TrainConfig.from_dict({**values, "seed": seed})


def trained(name: str, config: TrainConfig) -> tuple[NAC, TrainConfig]:
    """(model, its TrainConfig) of run NAME-seedS, training it first (or finishing it) if
    needed."""
    model, config, _ = trained_run(RUNS / f"{name}-seed{config.seed}", config)
    return model, config


def trained_with_prior(prior: str | None, seed: int = 0) -> tuple[NAC, TrainConfig]:
    """The small NLVR configuration with ``prior`` at the regulariser's default weight (None:
    the configuration itself, run ``none``)."""
    overrides = prior_overrides(prior) if prior else {}
    return trained(prior or "none", _config_file(CONFIGS / "nlvr-small.yaml", overrides, seed))


def trained_perceiver_io(seed: int = 0) -> tuple[NAC, TrainConfig]:
    path = CONFIGS / "experiments" / "nlvr-baselines" / "perceiver-io.yaml"
    return trained("perceiver_io", _config_file(path, {}, seed))


def trained_graph_rung(name: str, seed: int = 0) -> tuple[NAC, TrainConfig]:
    """The small NLVR configuration with the graph of rung ``name`` (GRAPH_RUNGS)."""
    overrides = {"graph": GRAPH_RUNGS[name]}
    return trained(name, _config_file(CONFIGS / "nlvr-small.yaml", overrides, seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--priors", nargs="*", default=list(PRIORS), choices=PRIORS)
    parser.add_argument("--perceiver-io", action="store_true", help="also the Perceiver IO")
    parser.add_argument(
        "--ablation-rungs", action="store_true", help="also the ModFC dense / frozen rungs"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for prior in args.priors:
        trained_with_prior(prior, args.seed)
    if args.perceiver_io:
        trained_perceiver_io(args.seed)
    if args.ablation_rungs:
        for name in GRAPH_RUNGS:
            trained_graph_rung(name, args.seed)


if __name__ == "__main__":
    main()
