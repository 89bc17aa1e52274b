"""graph_movement: how far a learned P moved from its initial one."""

from __future__ import annotations

import numpy as np
import pytest

from circuitlab.analysis import graph_movement


def test_an_unchanged_or_rescaled_graph_has_correlation_one() -> None:
    rng = np.random.default_rng(0)
    p = rng.random((10, 10))
    p = (p + p.T) / 2
    moved = graph_movement(p, p)
    assert moved["corr_with_init"] == pytest.approx(1.0)
    assert moved["crossed_half"] == 0.0 and moved["mean_abs_change"] == 0.0
    assert graph_movement(0.5 * p, p)["corr_with_init"] == pytest.approx(1.0)


def test_the_diagonal_is_left_out_and_crossings_are_counted() -> None:
    initial = np.array([[1.0, 0.9, 0.2], [0.9, 1.0, 0.4], [0.2, 0.4, 1.0]])
    learned = np.array([[0.0, 0.1, 0.2], [0.1, 0.0, 0.6], [0.2, 0.6, 0.0]])
    moved = graph_movement(learned, initial)
    # off-diagonal pairs (both directions): 0.9 -> 0.1 and 0.4 -> 0.6 cross 0.5, 0.2 stays
    assert moved["crossed_half"] == pytest.approx(4 / 6)
    assert moved["mean_abs_change"] == pytest.approx((0.8 + 0.2 + 0.0) / 3)
    expected = np.corrcoef([0.1, 0.2, 0.1, 0.6, 0.2, 0.6], [0.9, 0.2, 0.9, 0.4, 0.2, 0.4])[0, 1]
    assert moved["corr_with_init"] == pytest.approx(expected)


def test_a_constant_graph_has_no_correlation_and_bad_shapes_are_refused() -> None:
    assert np.isnan(
        graph_movement(np.ones((4, 4)), np.eye(4) * 0 + np.arange(16).reshape(4, 4))[
            "corr_with_init"
        ]
    )
    with pytest.raises(ValueError, match="square matrices"):
        graph_movement(np.ones((3, 3)), np.ones((4, 4)))
