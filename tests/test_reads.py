"""Edits of the reads (processor u reading input token j): pinned to the input mask, which hides
a token from every read, and to the unedited run."""

from __future__ import annotations

import pytest
import torch
from test_interventions import U, _batch, _model

from circuitlab.interventions import generated_circuits

VARIANTS = [
    {},
    {"null_token": True},
    {"read_in_weights": "sigmoid"},
    {"read_in_every_round": True, "null_token": True},
]


def _logits(model, batch, input_mask=None, **edits) -> torch.Tensor:
    signatures, codes = generated_circuits(model, batch)
    with torch.no_grad():
        return model.execute(batch.inputs, signatures, codes, input_mask=input_mask, **edits)


@pytest.mark.parametrize("options", VARIANTS)
def test_cutting_every_processors_read_of_a_token_is_masking_that_token(options):
    model, batch = _model(**options), _batch()
    n = batch.inputs.shape[1]
    for token in (0, 4, n - 1):
        cut = torch.zeros(len(batch), U, n, dtype=torch.bool)
        cut[:, :, token] = True
        mask = torch.ones(len(batch), n, dtype=torch.bool)
        mask[:, token] = False
        torch.testing.assert_close(_logits(model, batch, read_cut=cut), _logits(model, batch, mask))


@pytest.mark.parametrize("options", VARIANTS)
def test_no_edit_changes_nothing_and_one_read_cut_changes_one_example(options):
    model, batch = _model(**options), _batch()
    n = batch.inputs.shape[1]
    plain = _logits(model, batch)
    torch.testing.assert_close(
        _logits(model, batch, read_cut=torch.zeros(1, U, n, dtype=torch.bool)), plain
    )
    torch.testing.assert_close(_logits(model, batch, read_log_gate=torch.zeros(1, U, n)), plain)
    cut = torch.zeros(len(batch), U, n, dtype=torch.bool)
    cut[3, 1, 2] = True  # example 3's processor 1 no longer reads token 2
    edited = _logits(model, batch, read_cut=cut)
    others = [b for b in range(len(batch)) if b != 3]
    torch.testing.assert_close(edited[others], plain[others])
    assert not torch.allclose(edited[3], plain[3])


def test_a_module_with_every_read_cut_reads_nothing_whatever_the_input():
    model = _model()
    one, other = _batch(seed=0), _batch(seed=1)
    other.conditioning, other.conditioning_mask = one.conditioning, one.conditioning_mask
    n = one.inputs.shape[1]
    cut = torch.ones(1, U, n, dtype=torch.bool)
    blind = _logits(model, one, read_cut=cut)
    assert torch.isfinite(blind).all()
    torch.testing.assert_close(blind, _logits(model, other, read_cut=cut))
    assert not torch.allclose(_logits(model, one), _logits(model, other))


def test_the_read_gate_has_the_gradient_of_a_finite_difference():
    model, batch = _model(), _batch(b=2)
    n = batch.inputs.shape[1]
    signatures, codes = generated_circuits(model, batch)
    gate = torch.zeros(2, U, n, requires_grad=True)
    out = model.execute(batch.inputs, signatures, codes, read_log_gate=gate)[:, 0].sum()
    (grad,) = torch.autograd.grad(out, gate)
    step = 1e-3
    nudged = torch.zeros(2, U, n)
    nudged[1, 2, 3] = step
    with torch.no_grad():
        moved = model.execute(batch.inputs, signatures, codes, read_log_gate=nudged)[:, 0].sum()
        base = model.execute(batch.inputs, signatures, codes)[:, 0].sum()
    assert float((moved - base) / step) == pytest.approx(float(grad[1, 2, 3]), rel=2e-2, abs=1e-5)
    assert grad.abs().sum() > 0
