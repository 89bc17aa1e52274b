"""Summary statistics of one circuit graph."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd

from circuitlab.analysis.communities import modularity
from circuitlab.analysis.matrix import top_eigenvalues

__all__ = ["graph_stats"]


def graph_stats(graph: nx.Graph, backend: str = "auto", seed: int = 0) -> pd.DataFrame:
    """One-row DataFrame of ``graph``'s statistics.

    Columns: nodes, edges, density, degree_mean / degree_std / degree_min / degree_max,
    clustering (average local), transitivity, communities and modularity (``backend`` as in
    ``analysis.communities``), components, hubs (nodes whose degree exceeds the mean by more
    than two standard deviations), eigenvalue_1..3 (largest adjacency eigenvalues; 0 where the
    graph has fewer nodes). A graph without nodes is an error; a graph without edges has
    density 0, modularity 0 and one component per node.

    Parameters
    ----------
    graph
        The graph.
    backend, seed
        The community detection's backend and seed (``analysis.communities``).
    """
    n = graph.number_of_nodes()
    if n == 0:
        raise ValueError("graph_stats needs a graph with at least one node")
    degrees = np.array([d for _, d in graph.degree()], dtype=float)
    found, q = modularity(graph, backend=backend, seed=seed)
    top = top_eigenvalues(nx.to_numpy_array(graph, weight=None))
    row = {
        "nodes": n,
        "edges": graph.number_of_edges(),
        "density": nx.density(graph),
        "degree_mean": degrees.mean(),
        "degree_std": degrees.std(),
        "degree_min": degrees.min(),
        "degree_max": degrees.max(),
        "clustering": nx.average_clustering(graph),
        "transitivity": nx.transitivity(graph),
        "communities": len(found),
        "modularity": q,
        "components": nx.number_connected_components(graph),
        "hubs": int(np.sum(degrees > degrees.mean() + 2 * degrees.std())),
        "eigenvalue_1": float(top[0]),
        "eigenvalue_2": float(top[1]),
        "eigenvalue_3": float(top[2]),
    }
    return pd.DataFrame([row])
