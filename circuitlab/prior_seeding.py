"""Signatures seeded from a graph prior: an unconditional NAC's processors placed so that their
link probabilities P approach the prior's target before the task is trained.

The kernel's gradient fades with distance (P = exp(-(1 - cos) / eps)), so a module the task has
already settled in one block barely feels a prior asking it to link to another: a ring of
cliques' heads stay inside one of their two blocks at any prior weight (docs/results.md,
Fig. 3). Fitting the signatures to the target first, with the regulariser's own loss and no
task, starts them where the prior wants them (``bench/prior_expressibility.py`` measures how
close this gets). The authors' code offers the same (signatures seeded from a preset graph).
"""

from __future__ import annotations

import torch

from circuitlab.model import NAC

__all__ = ["seed_signatures_from_prior"]


def seed_signatures_from_prior(model: NAC, steps: int, lr: float = 0.05) -> float:
    """Fit ``model``'s processor signatures to its prior's target for ``steps`` Adam steps of the
    regulariser's loss alone (codes, weights and read-out signatures untouched); returns the
    final loss. The regulariser's matching counter is reset, so training rematches on its own
    schedule from step 0. Needs an unconditional NAC with a prior.

    Parameters
    ----------
    model
        An unconditional NAC with a prior.
    steps
        Adam steps.
    lr
        Their learning rate.
    """
    regularizer = model.regularizer
    if regularizer is None or model.config.conditional:
        raise ValueError("seeding signatures from a prior needs an unconditional NAC with a prior")
    signatures = model.generator.signatures
    frozen = not signatures.requires_grad  # a fixed graph is seeded too, then stays fixed
    signatures.requires_grad_(True)
    n = model.config.n_processors
    optimizer = torch.optim.Adam([signatures], lr=lr)
    was_training = regularizer.training
    regularizer.train()
    loss = torch.zeros(())
    for _ in range(steps):
        p = model.link_probabilities(signatures[:n])
        loss = regularizer(p)
        # the signatures' gradient alone: nothing else (a learned eps) keeps one into training
        (signatures.grad,) = torch.autograd.grad(loss, [signatures])
        optimizer.step()
    regularizer.calls.zero_()
    regularizer.train(was_training)
    signatures.grad = None
    signatures.requires_grad_(not frozen)
    return float(loss.detach()) / max(regularizer.weight, 1e-12)
