"""Checked conversions between graphs, circuits and link matrices.

Every analysis function takes a networkx graph, a ``Circuit`` or a (U, U) matrix; this module
turns each into one symmetric float64 matrix with a zero diagonal, or fails with a message that
says what is wrong with the input and how to fix it.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from circuitlab.circuit import Circuit
from circuitlab.errors import CircuitlabError

__all__ = ["LinkMatrixError", "check_link_matrix", "is_binary", "link_matrix", "top_eigenvalues"]


class LinkMatrixError(CircuitlabError):
    """A link-probability or adjacency matrix that analysis cannot use, and why."""


def check_link_matrix(p: Any, *, name: str = "P", symmetric_tol: float = 1e-5) -> np.ndarray:
    """Validate ``p`` (U, U) with entries in [0, 1]; return it symmetric, float64, diagonal 0.

    Raises ``LinkMatrixError`` for a non-square or empty matrix, NaN/inf, entries off the
    diagonal outside [0, 1] (the diagonal is not read), or a matrix that is not symmetric within
    ``symmetric_tol`` (links are undirected: symmetrise it yourself with ``(P + P.T) / 2`` if
    that is what you mean).

    Parameters
    ----------
    p
        The matrix, anything ``np.asarray`` reads.
    name
        What messages call it.
    symmetric_tol
        Largest |P - P.T| taken as symmetric.
    """
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise LinkMatrixError(f"{name} must be a square (U, U) matrix, got shape {p.shape}")
    if p.shape[0] == 0:
        raise LinkMatrixError(f"{name} is empty (0 modules)")
    if not np.isfinite(p).all():
        bad = np.argwhere(~np.isfinite(p))[0]
        raise LinkMatrixError(f"{name} has NaN or inf entries, the first at {tuple(bad)}")
    # the diagonal is not read (it is set to 0): a kernel's P_ii = exp(0) may round past 1
    off = p[~np.eye(p.shape[0], dtype=bool)]
    if off.size and (off.min() < -1e-6 or off.max() > 1 + 1e-6):  # float32 rounds past 1
        raise LinkMatrixError(
            f"{name} has entries outside [0, 1] (min {off.min():.6g}, max {off.max():.6g} "
            "off the diagonal); link probabilities and adjacency entries must lie in [0, 1]"
        )
    asym = np.abs(p - p.T).max()
    if asym > symmetric_tol:
        raise LinkMatrixError(
            f"{name} is not symmetric (max |P - P.T| = {asym:.3g}); links are undirected: "
            "pass (P + P.T) / 2 if that is what you mean"
        )
    p = np.clip((p + p.T) / 2, 0.0, 1.0)
    np.fill_diagonal(p, 0.0)
    return p


def link_matrix(source: Circuit | nx.Graph | np.ndarray) -> np.ndarray:
    """(U, U) float64 matrix of ``source``: a circuit's P, a graph's 0/1 adjacency (in node order,
    or its ``p``/``weight`` edge attribute is ignored), or a checked copy of a matrix.

    Parameters
    ----------
    source
        A ``Circuit``, a networkx graph or a (U, U) matrix.
    """
    if isinstance(source, Circuit):
        return check_link_matrix(source.link_probability())
    if isinstance(source, nx.Graph):
        if source.is_directed():
            raise LinkMatrixError("the graph is directed; circuits are undirected graphs")
        if source.number_of_nodes() == 0:
            raise LinkMatrixError("the graph has no nodes")
        a = nx.to_numpy_array(source, weight=None, dtype=np.float64)
        return check_link_matrix(np.minimum(a, 1.0), name="adjacency")
    return check_link_matrix(source)


def is_binary(a: np.ndarray) -> bool:
    """Whether every entry is exactly 0 or 1 (a graph, not a matrix of probabilities).

    Parameters
    ----------
    a
        Any array.
    """
    return bool(np.all((a == 0) | (a == 1)))


def top_eigenvalues(a: np.ndarray, k: int = 3) -> np.ndarray:
    """The ``k`` largest eigenvalues of the symmetric (n, n) ``a``, largest first, zero-padded
    when n < k. Dense: scipy's subset driver fails on some small graphs.

    Parameters
    ----------
    a, k
        As above.
    """
    top = np.linalg.eigvalsh(a)[::-1][:k]
    return np.pad(top, (0, k - len(top)))
