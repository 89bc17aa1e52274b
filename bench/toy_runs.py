"""The toy-task models the claims benches share (priors_shape, dropping, ablation).

Every run is a NAC rung on toy-sets with 64 processors, kept in runs/toy_claims/NAME-seedS and
resumed if interrupted, so each bench trains only what the others have not already trained.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from common import prior_overrides, trained_run

from circuitlab.model import NAC
from circuitlab.prior_targets import PRIOR_NAMES
from circuitlab.train import TOY_MODEL, TrainConfig

PROCESSORS = 64
PRIORS = (None, *PRIOR_NAMES)  # None: no prior
RUNS = Path("runs/toy_claims")


def run_config(
    model_overrides: dict[str, Any], steps: int, seed: int, signature_lr_scale: float = 1.0
) -> TrainConfig:
    model = dict(TOY_MODEL, n_processors=PROCESSORS, **model_overrides)
    return TrainConfig(
        task="toy-sets",
        steps=steps,
        seed=seed,
        eval_every=250,
        signature_lr_scale=signature_lr_scale,
        model=model,
    )


def trained(
    name: str,
    model_overrides: dict[str, Any],
    steps: int,
    seed: int,
    signature_lr_scale: float = 1.0,
) -> tuple[NAC, TrainConfig, dict]:
    """(model, its TrainConfig, its summary) of run NAME-seedS, training it first if needed; a
    signature learning-rate scale other than 1 makes it NAME-slrS-seedS."""
    scaled = "" if signature_lr_scale == 1.0 else f"-slr{signature_lr_scale:g}"
    config = run_config(model_overrides, steps, seed, signature_lr_scale)
    return trained_run(RUNS / f"{name}{scaled}-seed{seed}", config)


def trained_with_prior(
    prior: str | None,
    steps: int,
    seed: int,
    weight: float | None = None,
    signature_lr_scale: float = 1.0,
) -> tuple[NAC, TrainConfig, dict]:
    """Run ``prior``-seedS; a non-default weight adds ``-wW`` to the name (and ``trained`` the
    signature learning-rate scale)."""
    if prior is None:
        weight = None  # no regulariser to weigh
    name = (prior or "none") + ("" if weight is None else f"-w{weight:g}")
    return trained(name, prior_overrides(prior, weight), steps, seed, signature_lr_scale)


def trained_perceiver_io(steps: int, seed: int) -> tuple[NAC, TrainConfig, dict]:
    return trained("perceiver_io", {"graph": "dense", "modfc": False}, steps, seed)
