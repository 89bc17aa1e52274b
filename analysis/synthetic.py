"""Graphs with known structure, drawn with networkx generators from documented ranges.

The recovery benchmark of the prior fits (``bench/prior_recovery.py``, docs/results.md) and its
test draw from here. Ranges (n is the number of nodes):

- ``erdos_renyi``: n in [64, 512], p in [0.02, 0.3];
- ``planted_partition``: K in [2, 8] blocks of s nodes, n = K s in [64, 512],
  p_in in [0.2, 0.8], p_out in [0.005, 0.05], redrawn until the signal-to-noise ratio
  (c_in - c_out)^2 / (K (c_in + (K - 1) c_out)), c = n p, is at least 3 (3x the
  Kesten-Stigum detectability limit);
- ``ring_of_cliques``: networkx's ring of K in [16, 32] cliques of s in [6, 16] nodes, n <= 512.
  Fewer cliques are not identifiable from a planted partition by description length: the ring
  carries only ~1.3 K nats more than K random bridges between the same cliques;
- ``scale_free``: Barabasi-Albert, n in [64, 512], m in [2, 6];
- ``random_signatures``: what an unregularised NAC gives: U in [64, 512] signatures drawn
  uniformly on the sphere in d in {8, 16, 32} dimensions, linked where
  P = exp(-(1 - cos) / eps) > 0.5 with eps = 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from circuitlab.circuit import link_probabilities

__all__ = ["SYNTHETIC_FAMILIES", "synthetic_graphs"]

SYNTHETIC_FAMILIES = (
    "erdos_renyi",
    "planted_partition",
    "ring_of_cliques",
    "scale_free",
    "random_signatures",
)


@dataclass
class SyntheticGraph:
    family: str
    graph: nx.Graph
    params: dict[str, Any]


def synthetic_graph(family: str, rng: np.random.Generator) -> SyntheticGraph:
    """One graph of ``family`` with parameters drawn from the ranges above."""
    seed = int(rng.integers(2**31))
    if family == "erdos_renyi":
        n, p = int(rng.integers(64, 513)), float(rng.uniform(0.02, 0.3))
        return SyntheticGraph(family, nx.gnp_random_graph(n, p, seed=seed), {"p": p})
    if family == "planted_partition":
        while True:
            k = int(rng.integers(2, 9))
            size = int(rng.integers(-(-64 // k), 512 // k + 1))
            p_in, p_out = float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.005, 0.05))
            n = k * size
            c_in, c_out = n * p_in, n * p_out
            if (c_in - c_out) ** 2 / (k * (c_in + (k - 1) * c_out)) >= 3:
                break
        graph = nx.planted_partition_graph(k, size, p_in, p_out, seed=seed)
        return SyntheticGraph(family, graph, {"n_blocks": k, "p_in": p_in, "p_out": p_out})
    if family == "ring_of_cliques":
        k = int(rng.integers(16, 33))
        size = int(rng.integers(6, min(16, 512 // k) + 1))
        graph = nx.ring_of_cliques(k, size)
        return SyntheticGraph(family, graph, {"n_cliques": k, "clique_size": size})
    if family == "scale_free":
        n, m = int(rng.integers(64, 513)), int(rng.integers(2, 7))
        return SyntheticGraph(family, nx.barabasi_albert_graph(n, m, seed=seed), {"m": m})
    if family == "random_signatures":
        n, d = int(rng.integers(64, 513)), int(rng.choice([8, 16, 32]))
        signatures = rng.standard_normal((n, d))
        p = link_probabilities(signatures, eps=1.0)
        adjacency = np.triu(p > 0.5, k=1)
        graph = nx.from_numpy_array((adjacency | adjacency.T).astype(float))
        return SyntheticGraph(family, graph, {"d_sig": d})
    raise ValueError(f"unknown family {family!r}; choose one of {SYNTHETIC_FAMILIES}")


def synthetic_graphs(family: str, count: int, seed: int = 0) -> list[SyntheticGraph]:
    """``count`` graphs of ``family``, reproducible from ``seed``.

    Parameters
    ----------
    family
        One of the four families.
    count
        Graphs drawn.
    seed
        Seed of the draws.
    """
    rng = np.random.default_rng([seed, SYNTHETIC_FAMILIES.index(family)])
    return [synthetic_graph(family, rng) for _ in range(count)]
