"""NetworkX graphs from circuits and link-probability matrices."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from circuitlab.analysis.matrix import LinkMatrixError, link_matrix
from circuitlab.circuit import Circuit, links_graph
from circuitlab.prior_targets import sample_graph

__all__ = ["directed_graph", "to_graph"]


def to_graph(
    source: Circuit | np.ndarray,
    threshold: float | None = None,
    *,
    top_k: int | None = None,
    sample: bool = False,
    seed: int | None = None,
    roles: Sequence[str] | None = None,
    directed: bool = False,
) -> nx.Graph:
    """Undirected graph of a circuit (its P) or of a (U, U) link-probability matrix.

    ``directed=True`` takes a (U, U) matrix of weights in [0, 1] that need not be symmetric
    (W_ij: from i to j, e.g. a Neural Interpreter's function transitions,
    ``circuitlab.analysis.routing``) and returns a ``nx.DiGraph`` with an edge i -> j, self
    loops included, where W_ij > ``threshold`` (default 0.5); edges carry ``weight``.

    Pick the links one way: ``threshold`` (P > threshold; the default, 0.5 as in the paper),
    ``top_k`` (each module's k strongest links, kept if either end chose it), or ``sample``
    (each link drawn with probability P, reproducible with ``seed``). Nodes 0..U-1 carry
    ``role`` (from the circuit, ``roles``, or "processor"), ``signature`` (the row of the
    signature matrix) and ``degree``; edges carry ``p``.

    >>> import numpy as np
    >>> p = np.array([[1.0, 0.9, 0.2], [0.9, 1.0, 0.6], [0.2, 0.6, 1.0]])
    >>> sorted(to_graph(p).edges(data="p"))
    [(0, 1, 0.9), (1, 2, 0.6)]

    Parameters
    ----------
    source
        A ``Circuit`` or a (U, U) matrix.
    threshold, top_k, sample, seed
        How links are picked, as above.
    roles
        U roles for a matrix's nodes.
    directed
        Read ``source`` as directed weights, as above.
    """
    chosen = sum([threshold is not None, top_k is not None, sample])
    if chosen > 1:
        raise ValueError("pick one of threshold, top_k and sample")
    if directed:
        if top_k is not None or sample:
            raise ValueError("a directed graph is picked by threshold only")
        return directed_graph(source, 0.5 if threshold is None else threshold)
    p = link_matrix(source)
    n = p.shape[0]
    if top_k is not None:
        if not 1 <= top_k < n:
            raise ValueError(f"top_k must be in [1, {n - 1}] for {n} modules, got {top_k}")
        masked = np.where(np.eye(n, dtype=bool), -np.inf, p)
        strongest = np.argsort(-masked, axis=1, kind="stable")[:, :top_k]
        keep = np.zeros_like(p, dtype=bool)
        keep[np.repeat(np.arange(n), top_k), strongest.ravel()] = True
        keep |= keep.T
    elif sample:
        keep = sample_graph(p, np.random.default_rng(seed)).astype(bool)
    else:
        level = 0.5 if threshold is None else float(threshold)
        if not 0 <= level <= 1:
            raise ValueError(f"threshold must be in [0, 1], got {level}")
        keep = p > level
    if isinstance(source, Circuit):
        roles = source.roles
    roles = ["processor"] * n if roles is None else [str(r) for r in roles]
    if len(roles) != n:
        raise LinkMatrixError(f"{len(roles)} roles given for {n} modules")
    return links_graph(p, keep, roles)


def directed_graph(weights: np.ndarray, threshold: float = 0.5) -> nx.DiGraph:
    """``nx.DiGraph`` with an edge i -> j (self loops included) where ``weights[i, j]`` (a
    (U, U) matrix in [0, 1], not necessarily symmetric) exceeds ``threshold``.

    Parameters
    ----------
    weights, threshold
        As above.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] == 0:
        raise LinkMatrixError(f"weights must be a non-empty square matrix, got shape {w.shape}")
    if not np.isfinite(w).all() or w.min() < -1e-6 or w.max() > 1 + 1e-6:
        raise LinkMatrixError("weights must be finite and lie in [0, 1]")
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold must be in [0, 1], got {threshold}")
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(w)))
    for i, j in zip(*np.nonzero(w > threshold), strict=True):
        graph.add_edge(int(i), int(j), weight=float(w[i, j]))
    return graph
