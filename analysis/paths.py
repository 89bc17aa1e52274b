"""Graphs of a Modular Network's paths: which modules each input takes, layer by layer.

A path (L, K) names the K modules the controller picks in each of the L layers (a module picked
twice counts once). Over a set of inputs:

- usage (L, M): the share of inputs whose path picks each module;
- transitions (L - 1, M, M): how many inputs pick module i in layer l and module j in l + 1;
- the layered graph: nodes (layer, module) weighted by usage, directed edges between
  consecutive layers weighted by transitions; one input's path is a subgraph of it;
- usage by label: the usage of each class (or mixture component) apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
import pandas as pd

# usage and transitions are computed in circuitlab.mn (the core); importable from here too
from circuitlab.mn.paths import check_paths, layer_transitions, module_usage  # noqa: F401

__all__ = ["layered_graph", "node", "path_features", "path_graph", "usage_by_label"]


def node(layer: int, module: int) -> str:
    """The layered graph's name of ``module`` in ``layer``: "L0.m3".

    Parameters
    ----------
    layer, module
        As above.
    """
    return f"L{layer}.m{module}"


def layered_graph(usage: np.ndarray, transitions: np.ndarray) -> nx.DiGraph:
    """Nodes (layer, module) with attributes layer, module and usage; an edge for every
    transition taken by at least one input, with its count as ``weight``.

    Parameters
    ----------
    usage
        (L, M) the share of inputs whose path picks each module of each layer (``module_usage``).
    transitions
        (L - 1, M, M) how many inputs go from module i of a layer to module j of the next
        (``layer_transitions``).
    """
    usage = np.asarray(usage, dtype=np.float64)
    transitions = np.asarray(transitions, dtype=np.float64)
    n_layers, n_modules = usage.shape
    if transitions.shape != (max(n_layers - 1, 0), n_modules, n_modules):
        raise ValueError(
            f"transitions must be ({n_layers - 1}, {n_modules}, {n_modules}) for usage of "
            f"shape {usage.shape}, got {transitions.shape}"
        )
    graph = nx.DiGraph()
    for layer in range(n_layers):
        for module in range(n_modules):
            graph.add_node(
                node(layer, module), layer=layer, module=module, usage=float(usage[layer, module])
            )
    for layer, i, j in zip(*np.nonzero(transitions > 0), strict=True):
        count = float(transitions[layer, i, j])
        graph.add_edge(node(layer, i), node(layer + 1, j), weight=count)
    return graph


def path_graph(path: np.ndarray) -> nx.DiGraph:
    """One input's path (L, K) as a directed graph: its picked modules, each layer's linked to
    the next's.

    Parameters
    ----------
    path
        (L, K) the K modules picked in each of L layers.
    """
    path = check_paths(np.asarray(path)[None])[0]
    graph = nx.DiGraph()
    for layer, picks in enumerate(path.tolist()):
        for module in sorted(set(picks)):
            graph.add_node(node(layer, module), layer=layer, module=module)
    for layer in range(len(path) - 1):
        for i in set(path[layer].tolist()):
            for j in set(path[layer + 1].tolist()):
                graph.add_edge(node(layer, i), node(layer + 1, j))
    return graph


def usage_by_label(paths: np.ndarray, labels: Sequence, n_modules: int) -> pd.DataFrame:
    """Module usage per label: one row per label (sorted), one column per (layer, module)
    named "L0.m3", each the share of that label's inputs whose path picks the module.

    Parameters
    ----------
    paths
        (N, L, K) each input's path.
    labels
        N labels.
    n_modules
        Modules per layer.
    """
    paths = check_paths(paths)
    labels = np.asarray(labels)
    if len(labels) != len(paths):
        raise ValueError(f"{len(labels)} labels for {len(paths)} paths")
    rows = {}
    for label in sorted(set(labels.tolist()), key=str):
        rows[label] = module_usage(paths[labels == label], n_modules).ravel()
    columns = [node(layer, m) for layer in range(paths.shape[1]) for m in range(n_modules)]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns)


def path_features(paths: np.ndarray, probabilities: np.ndarray, n_modules: int) -> np.ndarray:
    """Features of each input's circuit for embeddings: its path one-hot per layer (N, L M)
    joined by the controllers' probabilities flattened (N, L C M).

    Parameters
    ----------
    paths
        (N, L, K) each input's path.
    probabilities
        (N, L, C, M) the controllers' probabilities.
    n_modules
        Modules M per layer.
    """
    paths = check_paths(paths)
    one_hot = np.eye(n_modules, dtype=np.float32)[paths].max(2).reshape(len(paths), -1)
    soft = np.asarray(probabilities, dtype=np.float32).reshape(len(paths), -1)
    return np.concatenate([one_hot, soft], axis=1)
