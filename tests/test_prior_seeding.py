"""Signatures seeded from a graph prior before training (NACConfig.prior_fit.seed_steps)."""

import dataclasses

import numpy as np
import pytest
import torch

from circuitlab.analysis.prior_verdict import best_prior
from circuitlab.analysis.recovery import recovered_prior
from circuitlab.config import NACConfig
from circuitlab.config_groups import KernelConfig
from circuitlab.model import NAC
from circuitlab.prior_seeding import seed_signatures_from_prior
from circuitlab.prior_targets import closest_permutation, target
from circuitlab.train import TrainConfig, train
from circuitlab.worlds.tasks import ToySets

PRIOR = dict(prior="planted_partition", prior_weight=10.0, prior_params={"n_blocks": 3})
SMALL = dict(
    n_processors=24, n_readouts=2, dim=16, depth=1, heads=2, head_dim=8, code_dim=8, sig_dim=8,
    kernel=KernelConfig(eps=0.25),
)  # fmt: skip


def _matched_error(model: NAC) -> float:
    """Mean squared error between the processors' P, matched, and the prior's target."""
    n = model.config.n_processors
    with torch.no_grad():
        p = model.link_probabilities(model.generator.signatures[:n]).double().numpy()
    g = target("planted_partition", n, n_blocks=3)
    perm = closest_permutation(p, g)
    return float(((p[np.ix_(perm, perm)] - g) ** 2).mean())


def test_seeded_signatures_read_as_the_prior_and_nothing_else_moves():
    task = ToySets()
    torch.manual_seed(0)
    config = NACConfig(**SMALL, **PRIOR, input_dim=task.input_dim, n_classes=task.n_classes)
    model = NAC(
        dataclasses.replace(config, kernel=KernelConfig(eps=0.25, learn_eps=True))
    )  # a kernel parameter in P too
    before = {k: v.clone() for k, v in model.state_dict().items()}
    random_error = _matched_error(model)
    seed_signatures_from_prior(model, 400)
    assert _matched_error(model) < random_error / 4
    verdict = best_prior(model.circuit())
    assert verdict.family == "planted_partition"
    assert recovered_prior(verdict, "planted_partition", 24, n_blocks=3).recovered
    moved = {k for k, v in model.state_dict().items() if not torch.equal(v, before[k])}
    # the signatures and the matching the regulariser keeps; its counter back at 0
    assert moved == {"generator.signatures", "regularizer.perm"}
    assert int(model.regularizer.calls) == 0
    assert all(parameter.grad is None for parameter in model.parameters())


def test_a_fresh_run_starts_from_seeded_signatures(tmp_path):
    task = ToySets()

    def run(seed_steps: int, out: str) -> NAC:
        model = dict(SMALL, **PRIOR, prior_seed_steps=seed_steps)
        config = TrainConfig(task="toy-sets", steps=1, batch_size=8, eval_every=1, eval_size=8,
                             checkpoint_every=1, model=model)  # fmt: skip
        train(config, tmp_path / out, progress=False)
        from circuitlab.loading import load_model

        return load_model(tmp_path / out)[0]

    assert task.n_classes > 0
    seeded, plain = run(300, "seeded"), run(0, "plain")
    assert _matched_error(seeded) < _matched_error(plain) / 4


@pytest.mark.parametrize(
    "options, says",
    [
        (dict(prior_seed_steps=-1, **PRIOR), "must be >= 0"),
        (dict(prior_seed_steps=10), "set prior"),
        (dict(prior_seed_steps=10, conditional=True, **PRIOR), "unconditional"),
    ],
)
def test_seeding_without_a_prior_to_seed_from_is_refused(options, says):
    with pytest.raises(ValueError, match=says):
        NACConfig.from_dict({**SMALL, **options})
