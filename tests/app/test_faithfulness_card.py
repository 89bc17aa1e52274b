"""The example card's faithfulness curve: the decisive circuit's ranking of the shown example
against random rankings, equal to ``faithfulness_curve`` run by hand, drawn and summarised."""

import numpy as np
import plotly.graph_objects as go
import pytest

from circuitlab.app.callbacks.faithfulness import faithfulness_figure, faithfulness_summary
from circuitlab.app.stores import AppStores
from circuitlab.faithfulness import BUDGETS, FaithfulnessCurve, faithfulness_curve


@pytest.fixture(scope="module")
def pair_stores(tiny_pairs_export):
    checkpoint, out = tiny_pairs_export
    return AppStores(out, checkpoint=checkpoint)


def test_the_shown_examples_curve_ranks_by_its_decisive_circuit(pair_stores):
    intervener = pair_stores.intervener("pairs")
    index = int(intervener.rows[1])
    curve = intervener.faithfulness(index)
    decisive = intervener.decisive(index)
    signatures, codes = intervener._circuits(np.array([index]), np.array([index]))
    by_hand = faithfulness_curve(
        intervener.model,
        intervener._scene_batch(index),
        decisive.link_scores[None],
        read_scores=decisive.read_scores[None],
        signatures=signatures,
        codes=codes,
        links=decisive.links,
    )
    np.testing.assert_allclose(curve.f, by_hand.f, atol=1e-6)
    np.testing.assert_allclose(curve.random_f, by_hand.random_f, atol=1e-6)
    assert curve.random_f.shape == (20, len(BUDGETS)) and curve.links == len(decisive.links)
    assert curve.reads == decisive.reads.sum()  # every real read ranked with the links
    assert curve.f[0] == pytest.approx(0) and curve.f[-1] == pytest.approx(1)
    assert intervener.faithfulness(index) is curve  # kept for the next click


def test_the_card_draws_the_ranking_over_the_random_band_and_names_cpr_and_cmd():
    budgets = np.array([0.0, 0.5, 1.0])
    random_f = np.array([[0.0, 0.2, 1.0], [0.0, 0.4, 1.0], [0.0, 0.3, 1.0]])
    curve = FaithfulnessCurve(budgets, np.array([0.0, 0.9, 1.0]), random_f, 0.9, 0.4, 12, 5.0)
    figure = go.Figure(faithfulness_figure(curve))  # a valid Plotly figure
    low, high, middle, ranking = figure.data
    assert list(low.y) == [0.0, 0.2, 1.0] and list(high.y) == [0.0, 0.4, 1.0]
    assert high.fill == "tonexty" and list(middle.y) == [0.0, 0.3, 1.0]
    assert list(ranking.y) == [0.0, 0.9, 1.0] and list(ranking.x) == ["0 %", "50 %", "100 %"]
    summary = faithfulness_summary(curve)
    # CPR: trapezoids (0 + 0.9) / 2 * 0.5 + (0.9 + 1) / 2 * 0.5 = 0.7; every random one lower
    assert "CPR 0.70" in summary and "above 100% of 3" in summary
    assert "CMD 0.30" in summary and "12 links and 5 reads" in summary
    flat = FaithfulnessCurve(budgets, np.full(3, np.nan), np.full((3, 3), np.nan), 0.7, 0.7, 12)
    assert "nothing to rank" in faithfulness_summary(flat)
