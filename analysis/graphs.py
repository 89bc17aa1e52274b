"""NetworkX graphs from circuits and link-probability matrices."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from circuitlab.analysis.matrix import LinkMatrixError, link_matrix
from circuitlab.circuit import Circuit, links_graph
from circuitlab.prior_targets import sample_graph


def to_graph(
    source: Circuit | np.ndarray,
    threshold: float | None = None,
    *,
    top_k: int | None = None,
    sample: bool = False,
    seed: int | None = None,
    roles: Sequence[str] | None = None,
) -> nx.Graph:
    """Undirected graph of a circuit (its P) or of a (U, U) link-probability matrix.

    Pick the links one way: ``threshold`` (P > threshold; the default, 0.5 as in the paper),
    ``top_k`` (each module's k strongest links, kept if either end chose it), or ``sample``
    (each link drawn with probability P, reproducible with ``seed``). Nodes 0..U-1 carry
    ``role`` (from the circuit, ``roles``, or "processor"), ``signature`` (the row of the
    signature matrix) and ``degree``; edges carry ``p``.

    >>> import numpy as np
    >>> p = np.array([[1.0, 0.9, 0.2], [0.9, 1.0, 0.6], [0.2, 0.6, 1.0]])
    >>> sorted(to_graph(p).edges(data="p"))
    [(0, 1, 0.9), (1, 2, 0.6)]
    """
    chosen = sum([threshold is not None, top_k is not None, sample])
    if chosen > 1:
        raise ValueError("pick one of threshold, top_k and sample")
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
