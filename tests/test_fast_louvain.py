"""The array Louvain and the KS statistic the goodness-of-fit check runs equal networkx's and
scipy's bit for bit, so that no prior reading changed when they replaced them."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.stats import ks_2samp

from circuitlab.analysis.fast_louvain import (
    louvain_modularity,
    louvain_of_array,
    modularity_of_array,
)
from circuitlab.analysis.goodness import ks_statistic


def _graph(rng: np.random.Generator, kind: int) -> np.ndarray:
    n = int(rng.integers(2, 50))
    p = rng.uniform(0.02, 0.6)
    if kind == 0:  # Erdos-Renyi
        a = (rng.random((n, n)) < p).astype(float)
    elif kind == 1:  # planted blocks
        labels = rng.integers(0, int(rng.integers(1, 5)), n)
        same = labels[:, None] == labels[None]
        a = (rng.random((n, n)) < np.where(same, p, p / 5)).astype(float)
    else:  # integer weights
        a = rng.integers(0, 3, (n, n)).astype(float) * (rng.random((n, n)) < p)
    a = np.triu(a, 1)
    a = a + a.T
    if rng.random() < 0.2:
        np.fill_diagonal(a, 1.0)  # self loops
    return a


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_louvain_and_modularity_equal_networkx(kind):
    rng = np.random.default_rng(kind)
    for _ in range(60):
        a = _graph(rng, kind)
        seed = int(rng.integers(0, 100))
        graph = nx.from_numpy_array(a)
        expected = nx.community.louvain_communities(graph, seed=seed)
        found = louvain_of_array(a, seed)
        assert found == expected  # same sets, same order
        if graph.number_of_edges():
            assert modularity_of_array(a, found) == nx.community.modularity(graph, expected)


def test_louvain_modularity_is_what_the_check_read_before():
    """``communities.modularity`` on the networkx backend, as graph_statistics called it."""
    from circuitlab.analysis.communities import modularity

    rng = np.random.default_rng(7)
    for _ in range(40):
        a = _graph(rng, 1)
        _, expected = modularity(nx.from_numpy_array(a), backend="networkx", seed=3)
        assert louvain_modularity(a, seed=3) == expected
    assert louvain_modularity(np.zeros((5, 5))) == 0.0


def test_a_graph_without_edges_is_one_community_per_node():
    assert louvain_of_array(np.zeros((4, 4))) == [{0}, {1}, {2}, {3}]


def test_ks_statistic_equals_scipy():
    rng = np.random.default_rng(0)
    for _ in range(500):
        x = rng.integers(0, rng.integers(1, 30), rng.integers(1, 60)).astype(float)
        y = rng.integers(0, rng.integers(1, 30), rng.integers(1, 500)).astype(float)
        assert ks_statistic(x, y) == float(ks_2samp(x, y).statistic)
