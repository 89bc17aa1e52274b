"""One layout and one colour per module for a whole store, so a module keeps its place and its
colour in every circuit's drawing."""

from __future__ import annotations

import networkx as nx
import numpy as np
from matplotlib import colormaps

from circuitlab.store import CircuitStore

LAYOUT_KEY = "layout"


def module_layout(
    store: CircuitStore, *, seed: int = 0, max_circuits: int = 2048, recompute: bool = False
) -> np.ndarray:
    """(U, 2) positions in [-1, 1] from a force layout whose springs are the modules' mean
    link probability over the store (up to ``max_circuits`` circuits, evenly spaced):
    modules whose signatures are similar on average sit close. Cached in store.json.
    """
    n = len(store)
    params = {"seed": seed, "circuits": min(n, max_circuits), "n_circuits": n}
    cached = store.analysis_params(LAYOUT_KEY)
    if not recompute and cached is not None and cached.get("params") == params:
        return np.asarray(cached["positions"], dtype=float)
    picks = np.unique(np.linspace(0, n - 1, params["circuits"]).astype(int))
    positions = layout_from_similarity(store.mean_link_probability(picks), seed=seed)
    store.add_analysis(LAYOUT_KEY, {"params": params, "positions": positions.tolist()})
    return positions


def layout_from_similarity(similarity: np.ndarray, seed: int = 0) -> np.ndarray:
    """(U, 2) spring layout of the complete graph with edge weights ``similarity`` (U, U)."""
    u = similarity.shape[0]
    graph = nx.Graph()
    graph.add_nodes_from(range(u))
    rows, cols = np.triu_indices(u, k=1)
    graph.add_weighted_edges_from(
        (int(i), int(j), float(max(similarity[i, j], 1e-6)))
        for i, j in zip(rows, cols, strict=True)
    )
    positions = nx.spring_layout(graph, weight="weight", seed=seed)
    xy = np.array([positions[i] for i in range(u)], dtype=float)
    xy -= xy.mean(axis=0)
    return xy / max(np.abs(xy).max(), 1e-12)


def module_colors(n_modules: int) -> list[str]:
    """A fixed hex colour per module index (tab20, cycled), the same in every figure."""
    cmap = colormaps["tab20"]
    return [
        "#{:02x}{:02x}{:02x}".format(*(int(255 * c) for c in cmap(i % 20)[:3]))
        for i in range(n_modules)
    ]
