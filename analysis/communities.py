"""Community detection: networkx's Louvain by default, Leiden when igraph and leidenalg are
installed (the optional ``graphs`` extra; both are GPL, so they are never required)."""

from __future__ import annotations

import importlib.util

import networkx as nx

__all__ = ["communities", "modularity"]

BACKENDS = ("auto", "networkx", "leiden")


def leiden_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("igraph", "leidenalg"))


def communities(graph: nx.Graph, backend: str = "auto", seed: int = 0) -> list[set]:
    """Communities of ``graph`` as a list of node sets, largest first.

    ``backend``: "networkx" (Louvain), "leiden" (needs ``pip install circuitlab[graphs]``) or
    "auto" (Leiden when installed). A graph without edges has one community per node.

    Parameters
    ----------
    graph
        The graph.
    backend
        As above.
    seed
        Seed of Louvain or Leiden.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
    if graph.number_of_edges() == 0:
        return [{node} for node in graph.nodes]
    use_leiden = backend == "leiden" or (backend == "auto" and leiden_available())
    if use_leiden:
        if not leiden_available():
            raise ImportError(
                "the leiden backend needs igraph and leidenalg: pip install 'circuitlab[graphs]'"
            )
        found = _leiden(graph, seed)
    else:
        found = nx.community.louvain_communities(graph, seed=seed)
    return sorted((set(c) for c in found), key=len, reverse=True)


def modularity(graph: nx.Graph, backend: str = "auto", seed: int = 0) -> tuple[list[set], float]:
    """The ``communities`` of ``graph`` and their modularity (0 for a graph without edges).

    Parameters
    ----------
    graph
        The graph.
    backend, seed
        As ``communities`` takes them.
    """
    found = communities(graph, backend=backend, seed=seed)
    if graph.number_of_edges() == 0:
        return found, 0.0
    return found, float(nx.community.modularity(graph, found))


def _leiden(graph: nx.Graph, seed: int) -> list[set]:
    import igraph
    import leidenalg

    nodes = list(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    g = igraph.Graph(n=len(nodes), edges=[(index[u], index[v]) for u, v in graph.edges])
    partition = leidenalg.find_partition(g, leidenalg.ModularityVertexPartition, seed=seed)
    return [{nodes[i] for i in members} for members in partition]
