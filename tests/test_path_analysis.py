"""Modular Network paths: usage, transitions and graphs against hand-made paths; the store a
trained Modular Network exports, read back."""

import subprocess
import sys

import numpy as np
import pytest

from circuitlab.analysis.embedding import circuit_features
from circuitlab.analysis.paths import (
    layer_transitions,
    layered_graph,
    module_usage,
    path_features,
    path_graph,
    usage_by_label,
)
from circuitlab.store import CircuitStore

# three inputs, two layers, one pick each
PATHS = np.array([[[0], [1]], [[0], [2]], [[1], [1]]])


def test_usage_and_transitions_count_the_paths():
    np.testing.assert_allclose(module_usage(PATHS, 3), [[2 / 3, 1 / 3, 0], [0, 2 / 3, 1 / 3]])
    expected = np.zeros((1, 3, 3))
    expected[0, 0, 1] = expected[0, 0, 2] = expected[0, 1, 1] = 1
    np.testing.assert_array_equal(layer_transitions(PATHS, 3), expected)


def test_a_module_picked_twice_counts_once():
    paths = np.array([[[2, 2], [0, 1]]])  # K = 2: module 2 twice in layer 0
    np.testing.assert_array_equal(module_usage(paths, 3), [[0, 0, 1], [1, 1, 0]])
    assert layer_transitions(paths, 3)[0].sum() == 2  # 2 -> 0 and 2 -> 1
    graph = path_graph(paths[0])
    assert sorted(graph.edges) == [("L0.m2", "L1.m0"), ("L0.m2", "L1.m1")]


def test_layered_graph_weights_edges_by_inputs():
    graph = layered_graph(module_usage(PATHS, 3), layer_transitions(PATHS, 3))
    assert graph.number_of_nodes() == 6
    assert graph.edges["L0.m0", "L1.m1"]["weight"] == 1
    assert graph.number_of_edges() == 3
    assert graph.nodes["L1.m1"]["usage"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="transitions must be"):
        layered_graph(module_usage(PATHS, 3), np.zeros((2, 3, 3)))


def test_usage_by_label_and_features():
    table = usage_by_label(PATHS, ["a", "b", "a"], 3)
    assert list(table.index) == ["a", "b"]
    np.testing.assert_allclose(table.loc["a"].to_numpy(), [0.5, 0.5, 0, 0, 1, 0])
    features = path_features(PATHS, np.full((3, 2, 1, 3), 1 / 3), 3)
    assert features.shape == (3, 2 * 3 + 2 * 3)
    np.testing.assert_array_equal(features[0, :6], [1, 0, 0, 0, 1, 0])


def test_export_writes_a_modular_network_store(tiny_mn_run, tmp_path):
    out = tmp_path / "store"
    args = ["export", str(tiny_mn_run), "--out", str(out), "--n-circuits", "50"]
    subprocess.run([sys.executable, "-m", "circuitlab", *args], check=True, capture_output=True)
    store = CircuitStore.open(out)
    assert store.kind == "mn" and len(store) == 50
    paths = np.asarray(store.array("paths"))
    assert paths.shape == (50, 2, 1) and store.axes("paths") == ["sample", "layer", "pick"]
    np.testing.assert_allclose(store.array("usage"), module_usage(paths, 3))
    np.testing.assert_array_equal(store.array("module_graph"), layer_transitions(paths, 3))
    probabilities = np.asarray(store.array("probabilities"))
    np.testing.assert_allclose(probabilities.sum(-1), 1, atol=1e-5)
    # the controller's argmax is the stored path
    np.testing.assert_array_equal(probabilities.argmax(-1), paths)
    assert circuit_features(store).shape == (50, 2 * 3 + 2 * 3)
    info = subprocess.run(
        [sys.executable, "-m", "circuitlab", "info", str(out)], capture_output=True, text=True
    )
    assert "layer 1:" in info.stdout and "input 0 (digit" in info.stdout
