"""Routing graphs of a Neural Interpreter on hand-made routing tensors."""

import networkx as nx
import numpy as np
import pytest

from circuitlab.analysis.graphs import to_graph
from circuitlab.analysis.routing import (
    co_routing,
    token_path_graph,
    transition_graph,
    transitions,
)

# 2 steps, 2 functions, 3 tokens: tokens 0 and 1 go to f0, token 2 to f1; then token 0 moves
# to f1, token 1 stays, token 2 splits
ROUTING = np.array(
    [
        [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        [[0.0, 1.0, 0.5], [1.0, 0.0, 0.5]],
    ]
)


def test_co_routing_counts_shared_functions_averaged_over_steps():
    step0 = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    step1 = np.array([[1, 0, 0.5], [0, 1, 0.5], [0.5, 0.5, 0.5]])
    np.testing.assert_allclose(co_routing(ROUTING), (step0 + step1) / 2)
    np.testing.assert_allclose(co_routing(ROUTING[0]), step0)


def test_transitions_say_where_each_functions_tokens_go_next():
    (t,) = transitions(ROUTING)
    np.testing.assert_allclose(t, [[0.5, 0.5], [0.5, 0.5]])
    # a function that handled nothing has an empty row
    idle = ROUTING.copy()
    idle[0] = [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    np.testing.assert_allclose(transitions(idle)[0], [[0.5, 0.5], [0.0, 0.0]])
    with pytest.raises(ValueError, match="at least 2 steps"):
        transitions(ROUTING[:1])
    with pytest.raises(ValueError, match="sum to at most 1"):
        transitions(ROUTING * 2)


def test_transition_and_path_graphs_are_directed():
    graph = transition_graph(ROUTING, threshold=0.4)
    assert isinstance(graph, nx.DiGraph)
    assert sorted(graph.edges) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    path = token_path_graph(ROUTING, token=2)
    assert sorted(path.nodes) == [(0, 1), (1, 0), (1, 1)]
    assert sorted(path.edges(data="weight")) == [((0, 1), (1, 0), 0.5), ((0, 1), (1, 1), 0.5)]
    assert token_path_graph(ROUTING, token=0).nodes[(1, 1)]["label"] == "step 1: f1"


def test_to_graph_learns_directed_graphs():
    w = np.array([[0.9, 0.2], [0.7, 0.1]])
    graph = to_graph(w, threshold=0.5, directed=True)
    assert isinstance(graph, nx.DiGraph) and sorted(graph.edges) == [(0, 0), (1, 0)]
    assert graph.edges[1, 0]["weight"] == pytest.approx(0.7)
    with pytest.raises(ValueError, match="threshold only"):
        to_graph(w, top_k=1, directed=True)
    # co-routing is symmetric in [0, 1]: an undirected graph, as the prior fits read
    together = to_graph(co_routing(ROUTING), threshold=0.4)
    assert not together.is_directed() and sorted(together.edges) == [(0, 1)]
    # the undirected path still refuses an asymmetric matrix
    with pytest.raises(ValueError, match="symmetric"):
        to_graph(w)
