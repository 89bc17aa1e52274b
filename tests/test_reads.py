"""Edits of the reads (processor u reading input token j): pinned to the input mask, which hides
a token from every read, and to the unedited run."""

from __future__ import annotations

import copy

import numpy as np
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


def _in_float64(model, batch) -> tuple:
    """A float64 copy of ``model`` and the batch's inputs and circuits in float64, for central
    differences: in float32 a forward difference of 1e-3 on outputs of order 1 is off by
    several percent, more or less by machine (its rounding)."""
    signatures, codes = (t.double() for t in generated_circuits(model, batch))
    return copy.deepcopy(model).double(), batch.inputs.double(), signatures, codes


def test_the_read_gate_has_the_gradient_of_a_finite_difference():
    """In float64, with a central difference (``_in_float64``)."""
    model, batch = _model(), _batch(b=2)
    model, inputs, signatures, codes = _in_float64(model, batch)
    n = inputs.shape[1]
    gate = torch.zeros(2, U, n, dtype=torch.float64, requires_grad=True)
    out = model.execute(inputs, signatures, codes, read_log_gate=gate)[:, 0].sum()
    (grad,) = torch.autograd.grad(out, gate)
    step = 1e-5
    nudged = torch.zeros(2, U, n, dtype=torch.float64)
    nudged[1, 2, 3] = step
    with torch.no_grad():
        up = model.execute(inputs, signatures, codes, read_log_gate=nudged)[:, 0].sum()
        down = model.execute(inputs, signatures, codes, read_log_gate=-nudged)[:, 0].sum()
    assert float((up - down) / (2 * step)) == pytest.approx(float(grad[1, 2, 3]), rel=1e-4)
    assert grad.abs().sum() > 0


def _p_answer(logits: torch.Tensor, answer) -> torch.Tensor:
    return logits.softmax(-1)[torch.arange(len(answer)), torch.as_tensor(answer)]


def test_an_exact_read_effect_is_the_same_read_cut_by_hand():
    from circuitlab.read_attribution import read_effects

    model, batch = _model(), _batch(b=3)
    batch.input_mask = torch.ones(3, batch.inputs.shape[1], dtype=torch.bool)
    batch.input_mask[1, -2:] = False  # example 1 has two padding tokens: no reads there
    baseline, effects = read_effects(model, batch)
    n = batch.inputs.shape[1]
    assert effects.shape == (3, U, n)
    assert np.isnan(effects[1, :, -2:]).all() and np.isfinite(effects[0]).all()
    before = _p_answer(_logits(model, batch, batch.input_mask), baseline.answer)
    np.testing.assert_allclose(baseline.value, before.numpy(), atol=1e-6)
    for b, u, j in [(0, 0, 0), (1, 3, 2), (2, U - 1, n - 1)]:
        cut = torch.zeros(3, U, n, dtype=torch.bool)
        cut[b, u, j] = True
        after = _p_answer(_logits(model, batch, batch.input_mask, read_cut=cut), baseline.answer)
        assert effects[b, u, j] == pytest.approx(float(before[b] - after[b]), abs=1e-5)


def test_the_read_estimate_is_the_gate_gradient_and_ranks_like_the_exact_cuts():
    from scipy.stats import spearmanr

    from circuitlab.read_attribution import read_effect_estimates, read_effects

    model, batch = _model(), _batch(b=4)
    _, exact = read_effects(model, batch)
    baseline, estimate = read_effect_estimates(model, batch)
    assert estimate.shape == exact.shape
    # the gate's gradient by a central difference in float64, for one read of example 2
    model64, inputs, signatures, codes = _in_float64(model, batch)
    n = inputs.shape[1]
    step = 1e-5
    gate = torch.zeros(4, U, n, dtype=torch.float64)
    gate[2, 1, 5] = step

    def p_answer(log_gate: torch.Tensor) -> float:
        with torch.no_grad():
            logits = model64.execute(inputs, signatures, codes, read_log_gate=log_gate)
        return float(_p_answer(logits, baseline.answer)[2])

    slope = (p_answer(gate) - p_answer(-gate)) / (2 * step)
    assert estimate[2, 1, 5] == pytest.approx(slope, rel=1e-3, abs=1e-7)
    agreement = spearmanr(exact.reshape(-1), estimate.reshape(-1))[0]
    assert agreement > 0.9  # a first-order estimate: it ranks (0.96 here), it does not equal


def test_links_and_reads_estimated_in_one_pass_equal_their_own_passes():
    from circuitlab.attribution import link_effect_estimates
    from circuitlab.read_attribution import link_and_read_estimates, read_effect_estimates

    model, batch = _model(), _batch(b=3)
    links, reads = link_and_read_estimates(model, batch)
    expected_links = link_effect_estimates(model, batch)[1]
    expected_reads = read_effect_estimates(model, batch)[1]
    assert links.shape == expected_links.shape and reads.shape == expected_reads.shape
    np.testing.assert_allclose(links, expected_links, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(reads, expected_reads, rtol=1e-6, atol=1e-9, equal_nan=True)
    assert np.isnan(reads).sum() == np.isnan(expected_reads).sum()


@pytest.mark.parametrize("options", VARIANTS[:3])
def test_a_read_ins_corrected_gate_gradient_is_its_outputs_change_when_a_read_is_cut(options):
    """The read estimate's softmax correction is exact for one read-in: its output is linear in
    each head's weighted values, so a cut read's change of any linear read of the output is each
    head's gate gradient divided by 1 - w, summed (a sigmoid read's too: its gate moves its
    weight by w (1 - w), the cut by w)."""
    model = _model(**options)
    g = torch.Generator().manual_seed(4)
    b, n = 2, 9
    states = torch.randn(b, U, model.config.dim, generator=g)
    codes = torch.randn(b, U, model.config.code_dim, generator=g)
    tokens = model.tokenizer(torch.randn(b, n, 5, generator=g))
    direction = torch.randn(b, U, model.config.dim, generator=g)

    def read_of(**edits) -> torch.Tensor:
        return (model.read_in(states, codes, tokens, **edits) * direction).sum((1, 2))

    record: list = []
    with torch.enable_grad():
        value = read_of(read_record=record)
        ((gate, weights),) = record
        (grad,) = torch.autograd.grad(value.sum(), [gate])
    corrected = (grad / (1 - weights)).sum(1)[..., :n]  # (B, U, N), the null token dropped
    with torch.no_grad():
        before = read_of()
        for u, j in ((0, 0), (2, 5), (U - 1, n - 1)):
            cut = torch.zeros(b, U, n, dtype=torch.bool)
            cut[:, u, j] = True
            change = before - read_of(read_cut=cut)
            torch.testing.assert_close(corrected[:, u, j], change, atol=1e-5, rtol=1e-4)
