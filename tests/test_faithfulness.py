"""Faithfulness curves pinned to reference cuts: each point of f(k) is the same circuit kept by
hand through ``run_with_circuit``; the areas are trapezoids over the budgets."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_interventions import _batch, _model

from circuitlab.attribution import circuit_links, link_effects
from circuitlab.faithfulness import area, faithfulness_curve
from circuitlab.interventions import LinkEdit, generated_circuits, run_with_circuit

BUDGETS = (0.0, 0.1, 0.25, 0.5, 1.0)


def _p_answer(logits: torch.Tensor, answer: torch.Tensor) -> np.ndarray:
    return logits.softmax(-1)[torch.arange(len(answer)), answer].numpy()


def test_each_point_is_the_top_links_kept_by_hand():
    model, batch = _model(), _batch()
    model.eval()
    links = circuit_links(model.config)
    _, effects = link_effects(model, batch)
    curve = faithfulness_curve(model, batch, effects, budgets=BUDGETS, random_rankings=3)
    own = run_with_circuit(model, batch)
    answer = own.argmax(-1)
    u_all = model.config.n_modules

    def kept_by_hand(k: int) -> float:
        masks = torch.zeros(len(batch), u_all, u_all, dtype=torch.bool)
        for b in range(len(batch)):
            order = np.argsort(-effects[b], kind="stable")
            for i in order[k:]:
                masks[b, links[i, 0], links[i, 1]] = masks[b, links[i, 1], links[i, 0]] = True
        logits = run_with_circuit(model, batch, edit=LinkEdit(cut=masks))
        return float(_p_answer(logits, answer).mean())

    full, empty = kept_by_hand(len(links)), kept_by_hand(0)
    assert curve.full == pytest.approx(full, abs=1e-5)
    assert curve.empty == pytest.approx(empty, abs=1e-5)
    for b, share in enumerate(BUDGETS):
        k = int(round(share * len(links)))
        expected = (kept_by_hand(k) - empty) / (full - empty)
        assert curve.f[b] == pytest.approx(expected, abs=1e-4)
    assert curve.f[0] == 0 and curve.f[-1] == 1
    assert curve.random_f.shape == (3, len(BUDGETS))
    assert (curve.random_f[:, 0] == 0).all() and (curve.random_f[:, -1] == 1).all()
    # the ranking by exact effects against its reverse: the same circuits, in reverse order
    reverse = faithfulness_curve(model, batch, -effects, budgets=BUDGETS, random_rankings=1)
    assert curve.cpr == pytest.approx(area(BUDGETS, curve.f))
    assert curve.cmd == pytest.approx(area(BUDGETS, np.abs(1 - curve.f)))
    assert reverse.full == curve.full and reverse.empty == curve.empty


def test_random_rankings_are_seeded():
    model, batch = _model(), _batch()
    scores = np.zeros((len(batch), len(circuit_links(model.config))))
    one = faithfulness_curve(model, batch, scores, budgets=BUDGETS, random_rankings=2, seed=4)
    two = faithfulness_curve(model, batch, scores, budgets=BUDGETS, random_rankings=2, seed=4)
    other = faithfulness_curve(model, batch, scores, budgets=BUDGETS, random_rankings=2, seed=5)
    np.testing.assert_array_equal(one.random_f, two.random_f)
    assert not np.array_equal(one.random_f, other.random_f)
    assert 0.0 <= one.cpr_above() <= 1.0 and 0.0 <= one.cmd_below() <= 1.0


def test_area_is_the_trapezoid_over_the_budgets():
    assert area([0, 0.5, 1], [0, 1, 1]) == pytest.approx(0.75)
    assert area([0, 1], [[0, 1], [1, 1]]) == pytest.approx([0.5, 1.0])


@pytest.mark.parametrize(
    "options, says",
    [
        (dict(budgets=(0.1, 1.0)), "from 0 to 1"),
        (dict(budgets=(0.0, 0.5, 0.5, 1.0)), "from 0 to 1"),
        (dict(random_rankings=0), "random_rankings"),
        (dict(measure="accuracy"), "measure"),
    ],
)
def test_bad_options_are_refused(options, says):
    model, batch = _model(), _batch()
    scores = np.zeros((len(batch), len(circuit_links(model.config))))
    with pytest.raises(ValueError, match=says):
        faithfulness_curve(model, batch, scores, **options)
    with pytest.raises(ValueError, match="scores must be"):
        faithfulness_curve(model, batch, scores[:, 1:])


def test_reads_ranked_among_the_links_are_kept_and_cut_with_them():
    from circuitlab.read_attribution import read_effects

    model, batch = _model(), _batch(b=4)
    batch.input_mask = torch.ones(4, batch.inputs.shape[1], dtype=torch.bool)
    batch.input_mask[2, -3:] = False  # example 2: three padding tokens, no reads of them
    links = circuit_links(model.config)
    _, link_scores = link_effects(model, batch)
    _, read_scores = read_effects(model, batch)
    curve = faithfulness_curve(
        model, batch, link_scores, read_scores=read_scores, budgets=BUDGETS, random_rankings=2
    )
    u, n = read_scores.shape[1:]
    real = np.isfinite(read_scores).reshape(4, -1)
    assert curve.links == len(links) and curve.reads == pytest.approx(real.sum(1).mean())
    answer = run_with_circuit(model, batch).argmax(-1)
    u_all = model.config.n_modules

    def kept_by_hand(share: float) -> float:
        cut_links = torch.zeros(4, u_all, u_all, dtype=torch.bool)
        cut_reads = torch.zeros(4, u, n, dtype=torch.bool)
        for b in range(4):
            scores = np.concatenate([link_scores[b], read_scores[b].reshape(-1)[real[b]]])
            reads = np.flatnonzero(real[b])
            keep = int(round(share * len(scores)))
            for e in np.argsort(-scores, kind="stable")[keep:]:
                if e < len(links):
                    i, j = links[e]
                    cut_links[b, i, j] = cut_links[b, j, i] = True
                else:
                    cut_reads[b].view(-1)[reads[e - len(links)]] = True
        signatures, codes = generated_circuits(model, batch)
        with torch.no_grad():
            logits = model.execute(
                batch.inputs, signatures, codes, input_mask=batch.input_mask,
                cut=cut_links, read_cut=cut_reads,
            )  # fmt: skip
        return float(_p_answer(logits, answer).mean())

    assert curve.empty == pytest.approx(kept_by_hand(0.0), abs=1e-5)
    assert curve.full == pytest.approx(kept_by_hand(1.0), abs=1e-5)
    for b in (2, 3):
        expected = (kept_by_hand(BUDGETS[b]) - curve.empty) / (curve.full - curve.empty)
        assert curve.f[b] == pytest.approx(expected, abs=1e-4)
    with pytest.raises(ValueError, match="read_scores must be"):
        faithfulness_curve(model, batch, link_scores, read_scores=read_scores[:, 1:])
