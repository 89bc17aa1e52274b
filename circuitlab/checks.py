"""Checks of the numbers and indices a researcher passes to the public API (numpy only, so
that the analysis layer can use them without torch): module and row indices, thresholds.

Each refuses a bad value with an ``InputError`` that names the argument, before it reaches a
place where it would fail with a bare numpy error or, worse, be cut (1.5 -> 1) or compare
false everywhere (NaN) without a word.
"""

from __future__ import annotations

import numpy as np

from circuitlab.errors import InputError

__all__ = ["check_probability", "row_indices", "whole_number"]


def whole_number(name: str, value: object) -> int:
    """``value`` as an int when it is one (a Python or numpy integer; not a bool, not 1.5 or
    "1", which would otherwise be cut or parsed silently).

    Parameters
    ----------
    name
        The argument's name, for the error.
    value
        The value.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InputError(name, f"must hold integers, got {value!r:.40}")
    return int(value)


def row_indices(name: str, indices: object, n: int) -> np.ndarray:
    """``indices`` (a sequence of ints, an integer array, a bool mask over the rows or a
    slice; or one int, kept 0-d so that indexing with it drops the axis, as numpy does) as
    positions into ``n`` rows; negative ones count from the end, as in numpy.

    Parameters
    ----------
    name
        The argument's name, for the error.
    indices
        As above.
    n
        Rows there are.
    """
    if isinstance(indices, slice):
        return np.arange(n)[indices]
    rows = np.asarray(indices)
    if rows.dtype == bool and rows.shape == (n,):  # a mask over the rows
        return np.flatnonzero(rows)
    if rows.size == 0:
        return rows.astype(int).reshape(-1)
    if rows.dtype.kind not in "iu" or rows.ndim > 1:
        raise InputError(
            name, f"must be a list of row positions (ints), got {rows.dtype} of shape {rows.shape}"
        )
    outside = rows[(rows < -n) | (rows >= n)]
    if len(outside):
        raise InputError(name, f"row {int(outside[0])} is out of range for {n} rows")
    return rows


def check_probability(name: str, value: object) -> float:
    """``value`` as a float in [0, 1] (a P threshold); NaN or text is refused.

    Parameters
    ----------
    name
        The argument's name, for the error.
    value
        The value.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputError(name, f"must be a number in [0, 1], got {value!r:.40}")
    if not 0.0 <= float(value) <= 1.0:
        raise InputError(name, f"must be in [0, 1], got {value}")
    return float(value)
