"""The refined estimates of every link and read: exact where they cut, the first order or the
reads' midpoint derivative elsewhere, each checked against its own reference computation."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_interventions import U, _batch, _model
from test_reads import VARIANTS, _logits

from circuitlab.attribution import _measure, _Runner, link_effects
from circuitlab.interventions import eval_mode
from circuitlab.read_attribution import link_and_read_estimates, read_effects, real_reads
from circuitlab.refined_attribution import (
    HALF,
    _disagreeing,
    _midpoint_reads,
    refined_estimates,
)


def _flat(links: np.ndarray, reads: np.ndarray) -> np.ndarray:
    return np.concatenate([links, reads.reshape(len(links), -1)], 1)


def test_refined_estimates_are_exact_where_they_cut_and_the_estimates_elsewhere():
    model, batch = _model(null_token=True), _batch(b=4, seed=1)
    _, exact_links = link_effects(model, batch)
    _, exact_reads = read_effects(model, batch)
    every = exact_links.shape[1] + exact_reads[0].size
    links, reads = refined_estimates(model, batch, exact_top=every)  # every element cut
    np.testing.assert_allclose(links, exact_links, atol=1e-12)
    np.testing.assert_allclose(reads, exact_reads, atol=1e-12, equal_nan=True)
    estimated = link_and_read_estimates(model, batch, softmax=True)
    first_order = {"exact_top": 0, "exact_disagree": 0, "read_passes": 0}
    alone = refined_estimates(model, batch, **first_order)
    np.testing.assert_array_equal(alone[0], estimated[0])
    np.testing.assert_array_equal(alone[1], estimated[1])
    # with no midpoint reads the disagreement is nil: the next strongest are cut, the top 5
    links, reads = refined_estimates(model, batch, exact_top=3, exact_disagree=2, read_passes=0)
    elements, exact, guess = _flat(links, reads), _flat(exact_links, exact_reads), _flat(*estimated)
    for k in range(len(links)):
        top = np.argsort(-np.nan_to_num(np.abs(guess[k]), nan=-1.0), kind="stable")[:5]
        np.testing.assert_allclose(elements[k, top], exact[k, top], atol=1e-12)
        rest = np.setdiff1d(np.flatnonzero(~np.isnan(guess[k])), top)
        np.testing.assert_array_equal(elements[k, rest], guess[k, rest])
    # midpoint reads (the links keep the first order), then the 2 elements the two estimates
    # rank furthest apart cut exactly, the rest as the midpoint estimates left them
    midpoint = _flat(*refined_estimates(model, batch, exact_top=0, exact_disagree=0))
    n_links = links.shape[1]
    np.testing.assert_array_equal(midpoint[:, :n_links], guess[:, :n_links])
    assert not np.allclose(midpoint, guess, equal_nan=True)
    elements = _flat(*refined_estimates(model, batch, exact_top=0, exact_disagree=2))
    exists = ~np.isnan(guess)
    apart = _disagreeing(
        np.nan_to_num(guess), np.nan_to_num(midpoint), exists, np.zeros((4, 0), int), 2
    )
    for k in range(len(links)):
        np.testing.assert_allclose(elements[k, apart[k]], exact[k, apart[k]], atol=1e-12)
        rest = np.setdiff1d(np.flatnonzero(exists[k]), apart[k])
        np.testing.assert_array_equal(elements[k, rest], midpoint[k, rest])
    for name in ("exact_top", "exact_disagree", "read_passes"):
        with pytest.raises(ValueError, match=f"{name} must be >= 0"):
            refined_estimates(model, batch, **{name: -1})


@pytest.mark.parametrize("options", VARIANTS)
def test_a_read_scale_of_one_changes_nothing_and_near_zero_is_the_cut(options):
    model, batch = _model(**options), _batch()
    n = batch.inputs.shape[1]
    plain = _logits(model, batch)
    torch.testing.assert_close(_logits(model, batch, read_scale=torch.ones(1, U, n)), plain)
    cut = torch.zeros(len(batch), U, n, dtype=torch.bool)
    cut[3, 1, 2] = cut[5, 0, 0] = True
    scale = torch.where(cut, 1e-12, 1.0)
    torch.testing.assert_close(
        _logits(model, batch, read_scale=scale), _logits(model, batch, read_cut=cut)
    )
    halved = _logits(model, batch, read_scale=torch.where(cut, HALF, 1.0))
    assert not torch.allclose(halved[3], plain[3])
    torch.testing.assert_close(halved[[0, 1, 2, 4]], plain[[0, 1, 2, 4]])


@pytest.mark.parametrize("options", [{}, {"read_in_weights": "sigmoid", "null_token": True}])
def test_a_midpoint_read_estimate_is_the_derivative_halfway_along_the_reads_path(options):
    """With one processor's reads allowed, each pass halves one read alone: its estimate is the
    measure's derivative along that read's weight scale at 1/2, here by a central difference."""
    model, batch = _model(**options), _batch(b=3, seed=2)
    real = real_reads(model, batch)
    allowed = np.zeros_like(real)
    allowed[:, 2] = real[:, 2]  # processor 2's reads only
    n = real.shape[2]
    with eval_mode(model), torch.no_grad():
        runner = _Runner.of(model, batch, None, None)
        answer = runner.logits(torch.arange(3)).argmax(-1)
        estimate = _midpoint_reads(runner, allowed, n, answer, "p_answer", seed=0)

        def measure_at(b: int, j: int, scale: float) -> float:
            scales = torch.ones(1, U, n)
            scales[0, 2, j] = scale
            logits = runner.logits(torch.tensor([b]), read_scale=scales)
            return float(_measure(logits, answer[[b]], "p_answer")[0])

        step = 0.05
        for b, j in ((0, 0), (1, 3), (2, n - 1)):
            if not allowed[b, 2, j]:
                continue
            slope = (measure_at(b, j, HALF + step) - measure_at(b, j, HALF - step)) / (2 * step)
            assert estimate[b, 2, j] == pytest.approx(slope, rel=2e-2, abs=2e-6)
    assert np.isfinite(estimate[allowed]).all()
    assert np.isnan(estimate[~allowed]).all()


def test_each_midpoint_pass_halves_one_read_of_every_processor_in_turn():
    model, batch = _model(), _batch(b=4)
    real = real_reads(model, batch)
    allowed = real.copy()
    allowed[0, 1, :] = False  # a processor with nothing allowed is never halved
    halved_counts = []
    with eval_mode(model), torch.no_grad():
        runner = _Runner.of(model, batch, None, None)
        answer = runner.logits(torch.arange(4)).argmax(-1)
        original = runner.logits

        def counting(examples, read_scale=None, **edits):
            halved_counts.append((read_scale < 1).sum(-1).detach().cpu().numpy())
            return original(examples, read_scale=read_scale, **edits)

        runner.logits = counting
        one = _midpoint_reads(runner, allowed, 1, answer, "p_answer", seed=0)
        halved_counts.clear()
        every = _midpoint_reads(runner, allowed, real.shape[2], answer, "p_answer", seed=0)
    per_row = np.concatenate(halved_counts)  # (rows, processors): reads halved in each pass
    assert per_row.max() == 1
    assert (~np.isnan(one)).sum(-1).max() == 1  # one pass: one read of each processor
    assert np.isnan(one[0, 1]).all() and np.isnan(every[0, 1]).all()
    np.testing.assert_array_equal(~np.isnan(every), allowed)  # enough passes: every read


def test_the_disagreement_picks_the_elements_ranked_furthest_apart_beside_those_taken():
    first = np.array([[0.9, 0.5, 0.1, -0.1, -0.3, 0.0]])
    refined = np.array([[0.9, 0.5, -0.4, -0.1, 0.2, 0.0]])  # elements 2 and 4 swap sides
    exists = np.ones_like(first, dtype=bool)
    picked = _disagreeing(first, refined, exists, np.array([[0]]), 2)
    assert set(picked[0]) == {2, 4}
    np.testing.assert_array_equal(_disagreeing(first, refined, exists, np.array([[2]]), 1), [[4]])
    # no disagreement: the next strongest by the first order
    np.testing.assert_array_equal(_disagreeing(first, first, exists, np.array([[0]]), 2), [[1, 4]])
    exists[0, 4] = False  # a padding read is never picked
    np.testing.assert_array_equal(_disagreeing(first, refined, exists, np.array([[0]]), 1), [[2]])
