"""Graphs of an NFM network's reads: which layer reads what each layer wrote.

An input's reads are a (readers, slots) matrix: row l is layer l of the second pass, columns
the first pass's L layers, then the second pass's L layers, then the null slot (reading
nothing); each row sums to 1. Reading a first-pass layer deeper than the reader is top-down.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

__all__ = ["read_graph", "slot_label", "top_down_share"]


def _reads(attention: np.ndarray) -> tuple[np.ndarray, int]:
    attention = np.asarray(attention, dtype=np.float64)
    if attention.ndim < 2 or attention.shape[-1] != 2 * attention.shape[-2] + 1:
        raise ValueError(
            f"attention must be (..., L readers, 2 L + 1 slots), got shape {attention.shape}"
        )
    return attention, attention.shape[-2]


def slot_label(slot: int, n_layers: int) -> str:
    """The node name of a slot: "p1.L2" (first pass, layer 2), "p2.L1", or "null".

    Parameters
    ----------
    slot
        The slot's index: first-pass layers, then second-pass ones, then the null slot.
    n_layers
        Layers L.
    """
    if slot == 2 * n_layers:
        return "null"
    return f"p{slot // n_layers + 1}.L{slot % n_layers + 1}"


def read_graph(attention: np.ndarray, threshold: float = 0.05) -> nx.DiGraph:
    """One input's (or a mean) reads (L, 2 L + 1) as a directed graph: an edge from each slot
    to each second-pass layer that puts more than ``threshold`` of its weight on it (attribute
    ``weight``); nodes carry ``pass`` (1, 2 or None for null) and ``layer``.

    Parameters
    ----------
    attention
        (L, 2 L + 1) each second-pass layer's weights over the slots.
    threshold
        Weight above which an edge is drawn.
    """
    attention, n_layers = _reads(attention)
    graph = nx.DiGraph()
    for slot in range(2 * n_layers + 1):
        is_null = slot == 2 * n_layers
        graph.add_node(
            slot_label(slot, n_layers),
            **{"pass": None if is_null else slot // n_layers + 1},
            layer=None if is_null else slot % n_layers + 1,
        )
    for reader in range(n_layers):
        for slot in np.nonzero(attention[reader] > threshold)[0]:
            source, target = (
                slot_label(int(slot), n_layers),
                slot_label(n_layers + reader, n_layers),
            )
            graph.add_edge(source, target, weight=float(attention[reader, slot]))
    return graph


def top_down_share(attention: np.ndarray) -> np.ndarray:
    """The weight each reader puts on first-pass layers deeper than itself: (..., L, 2L + 1)
    -> (..., L); the deepest reader's is 0.

    Parameters
    ----------
    attention
        (..., L, 2 L + 1) each reader's weights over the slots.
    """
    attention, n_layers = _reads(attention)
    deeper = np.triu(np.ones((n_layers, n_layers)), k=1)  # [reader, first-pass layer]
    return (attention[..., :n_layers] * deeper).sum(-1)
