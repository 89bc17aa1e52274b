"""Graphs of a Neural Interpreter's routing: which tokens share functions, how functions hand
tokens on, and the path one token takes.

A routing tensor C (steps, U, V) holds, for each function iteration (script by script), the
weight C_ui with which function u handles token i (over functions, a token's weights sum to at
most 1: ``circuitlab.ni.routing``).

- co-routing: sum_u C_ui C_uj, averaged over steps, (V, V) symmetric in [0, 1]: how much two
  tokens are handled by the same functions (undirected: the prior fits apply to it);
- transitions: T^k_uw = sum_i C^k_ui C^(k+1)_wi / sum_i C^k_ui, (steps - 1, U, U): of the
  tokens function u handled at step k, the share function w handles next (C^k C^(k+1)T,
  rows normalised; directed);
- the path graph of token i: nodes (step, function) weighted C^k_ui, edges between
  consecutive steps weighted C^k_ui C^(k+1)_wi.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from circuitlab.analysis.graphs import directed_graph

__all__ = ["co_routing", "token_path_graph", "transition_graph", "transitions"]


def _steps(routing: np.ndarray) -> np.ndarray:
    routing = np.asarray(routing, dtype=np.float64)
    if routing.ndim == 2:
        routing = routing[None]
    if routing.ndim != 3:
        raise ValueError(f"routing must be (steps, U, V) or (U, V), got shape {routing.shape}")
    if routing.min() < -1e-6 or routing.sum(axis=1).max() > 1 + 1e-3:
        raise ValueError(
            "routing weights must be >= 0 and sum to at most 1 over functions (axis 1)"
        )
    return routing


def co_routing(routing: np.ndarray) -> np.ndarray:
    """(V, V) symmetric: sum_u C_ui C_uj, mean over steps; routing (steps, U, V) or (U, V).

    Parameters
    ----------
    routing
        As above.
    """
    c = _steps(routing)
    return np.einsum("sui,suj->ij", c, c) / len(c)


def transitions(routing: np.ndarray) -> np.ndarray:
    """(steps - 1, U, U): row u of step k is where function u's tokens go at step k + 1
    (a row of a function that handled nothing is 0).

    Parameters
    ----------
    routing
        (steps, U, V) routing.
    """
    c = _steps(routing)
    if len(c) < 2:
        raise ValueError("transitions need at least 2 steps")
    handed = np.einsum("sui,swi->suw", c[:-1], c[1:])
    load = c[:-1].sum(axis=2, keepdims=True)
    return np.divide(handed, load, out=np.zeros_like(handed), where=load > 0)


def token_path_graph(
    routing: np.ndarray,
    token: int,
    *,
    min_weight: float = 0.05,
    step_names: Sequence[str] | None = None,
) -> nx.DiGraph:
    """The path of ``token`` through the functions: nodes (step, function) with weight
    C^k_ui >= ``min_weight``, edges to the next step's kept nodes, weighted C^k_ui C^(k+1)_wi.
    Node attributes: step, function, weight, label ("step name: f u").

    Parameters
    ----------
    routing
        (steps, U, V) one input's routing.
    token
        The token followed.
    min_weight
        As above.
    step_names
        A name per step (default: its number).
    """
    c = _steps(routing)
    n_steps, n_functions, n_tokens = c.shape
    if not 0 <= token < n_tokens:
        raise ValueError(f"token {token} out of range for {n_tokens} tokens")
    names = [f"step {k}" for k in range(n_steps)] if step_names is None else list(step_names)
    graph = nx.DiGraph()
    for k in range(n_steps):
        for u in range(n_functions):
            weight = float(c[k, u, token])
            if weight >= min_weight:
                label = f"{names[k]}: f{u}"
                graph.add_node((k, u), step=k, function=u, weight=weight, label=label)
    for (k, u), (k2, w) in ((a, b) for a in graph for b in graph):
        if k2 == k + 1:
            graph.add_edge((k, u), (k2, w), weight=float(c[k, u, token] * c[k2, w, token]))
    return graph


def transition_graph(routing: np.ndarray, threshold: float = 0.1) -> nx.DiGraph:
    """Directed graph over functions: u -> w where the mean transition share (over
    consecutive steps) exceeds ``threshold``; edges carry ``weight``.

    Parameters
    ----------
    routing
        (steps, U, V) routing.
    threshold
        As above.
    """
    return directed_graph(transitions(routing).mean(axis=0), threshold)
