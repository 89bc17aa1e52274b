"""What a model's circuit is before it learns anything: the null of the prior reading.

``untrained_link_probabilities(config)`` builds the model a run of ``config`` trains, once per
seed, and returns the link probabilities of its circuit at initialisation. Wrapped in
``circuitlab.analysis.prior_null.PriorNull`` it is the null a trained model's prior verdict
stands beside (``best_prior(circuit, null=...)``): the same architecture, nothing learned.

>>> from circuitlab.analysis.prior_null import PriorNull   # doctest: +SKIP
>>> null = PriorNull(untrained_link_probabilities(config), "untrained model, 20 seeds")
"""

from __future__ import annotations

import numpy as np
import torch

from circuitlab.loading import build_model
from circuitlab.model import NAC
from circuitlab.run_config import TrainConfig
from circuitlab.worlds.tasks import make_task

__all__ = ["untrained_link_probabilities"]

UNTRAINED_SEEDS = 20


def untrained_link_probabilities(
    config: TrainConfig,
    *,
    n_draws: int = UNTRAINED_SEEDS,
    first_seed: int = 0,
    readouts: bool = False,
) -> np.ndarray:
    """P at initialisation of the unconditional NAC a run of ``config`` trains, for the seeds
    ``first_seed`` .. ``first_seed + n_draws - 1``: (n_draws, n, n) float32, n the processors
    (the read-out modules too with ``readouts``).

    Raises ValueError for a conditional model (its circuit depends on the input: use random
    signatures, ``circuitlab.analysis.prior_null.random_signature_null``) or a model kind that
    has no module graph.

    Parameters
    ----------
    config
        The run's config (its model options and task).
    n_draws
        How many initialisations to draw.
    first_seed
        The first seed; the draws use ``first_seed`` .. ``first_seed + n_draws - 1``.
    readouts
        Keep the read-out modules' rows and columns.
    """
    if config.conditional:
        raise ValueError(
            "a conditional model has one circuit per input, not one at initialisation; hold "
            "its circuits against random_signature_null(n_modules, sig_dim, eps) instead"
        )
    if n_draws < 2:
        raise ValueError(f"n_draws must be at least 2, got {n_draws}")
    task = make_task(config.task, conditional=False, **config.task_options)
    draws = []
    for seed in range(first_seed, first_seed + n_draws):
        torch.manual_seed(seed)
        model = build_model(config, task)
        if not isinstance(model, NAC):
            raise ValueError(
                f"a {type(model).__name__} has no module graph to read priors on; "
                "untrained_link_probabilities takes a NAC's config"
            )
        circuit = model.circuit()
        keep = np.arange(circuit.n_modules) if readouts else circuit.processors
        draws.append(circuit.link_probability()[np.ix_(keep, keep)])
    return np.stack(draws)
