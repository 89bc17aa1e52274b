"""Faithfulness curves pinned to reference cuts: each point of f(k) is the same circuit kept by
hand through ``run_with_circuit``; the areas are trapezoids over the budgets."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_interventions import _batch, _model

from circuitlab.attribution import circuit_links, link_effects
from circuitlab.faithfulness import area, faithfulness_curve
from circuitlab.interventions import LinkEdit, run_with_circuit

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
