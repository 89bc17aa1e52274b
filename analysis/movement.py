"""How far a learned graph moved from the random graph it started as.

A NAC's graph is its link-probability matrix P (U, U). Training that never moves the signatures
leaves P where the random initialisation put it, and then any "learned structure" is the seed's.
``graph_movement`` measures the move on the off-diagonal entries: their correlation with the
initial P (1: unchanged up to scale), the share of links that crossed 0.5 (on at the start and
off at the end, or the reverse), and the mean absolute change.
"""

from __future__ import annotations

import numpy as np

__all__ = ["graph_movement"]


def graph_movement(learned: np.ndarray, initial: np.ndarray) -> dict[str, float]:
    """{"corr_with_init", "crossed_half", "mean_abs_change"} of two (U, U) link-probability
    matrices, over their off-diagonal entries. A constant matrix has no correlation: NaN.

    >>> initial = np.array([[1, 0.9, 0.1], [0.9, 1, 0.2], [0.1, 0.2, 1]])
    >>> graph_movement(initial, initial)["corr_with_init"]
    1.0
    >>> graph_movement(1 - initial, initial)["crossed_half"]
    1.0

    Parameters
    ----------
    learned, initial
        (U, U) the link probabilities after training and at initialisation.
    """
    learned, initial = np.asarray(learned, dtype=float), np.asarray(initial, dtype=float)
    if learned.shape != initial.shape or learned.ndim != 2 or learned.shape[0] != learned.shape[1]:
        raise ValueError(
            f"need two square matrices of one shape, got {learned.shape} and {initial.shape}"
        )
    off = ~np.eye(len(learned), dtype=bool)
    a, b = learned[off], initial[off]
    constant = a.std() == 0 or b.std() == 0
    corr = float("nan") if constant else float(np.corrcoef(a, b)[0, 1])
    return {
        "corr_with_init": round(corr, 12),
        "crossed_half": float(((a > 0.5) != (b > 0.5)).mean()),
        "mean_abs_change": float(np.abs(a - b).mean()),
    }
