"""Store format version 2: a model kind and named arrays; version 1 stores still open."""

import json

import numpy as np
import pandas as pd
import pytest

from circuitlab import Circuit, CircuitStore, CircuitStoreError
from circuitlab.analysis.embedding import circuit_features
from circuitlab.analysis.store_analysis import analyze_store
from circuitlab.ni.export import write_ni_store
from circuitlab.store import META
from circuitlab.train import load_model
from circuitlab.worlds.tasks import make_task


def _nac_store(tmp_path):
    rng = np.random.default_rng(0)
    circuits = [
        Circuit(rng.normal(size=(4, 3)).astype(np.float32), ["processor"] * 4, eps=0.5)
        for _ in range(3)
    ]
    frame = pd.DataFrame({"text": ["a", "b", "c"]})
    return circuits, CircuitStore.write(tmp_path / "nac", circuits, frame, {"dim": 8})


def test_a_nac_store_names_its_kind_and_arrays(tmp_path):
    circuits, store = _nac_store(tmp_path)
    meta = json.loads((tmp_path / "nac" / META).read_text())
    assert meta["format_version"] == 2 and meta["kind"] == "nac"
    (spec,) = meta["arrays"]
    assert spec == {
        "name": "signatures",
        "file": "signatures.npy",
        "dtype": "float32",
        "shape": [3, 4, 3],
        "axes": ["sample", "module", "signature"],
    }
    assert isinstance(store.array("signatures"), np.memmap)
    np.testing.assert_array_equal(store.array("signatures")[1], circuits[1].signatures)
    with pytest.raises(KeyError, match="holds no array 'routing'"):
        store.array("routing")


def test_a_version_1_store_still_opens_as_a_nac_store(tmp_path):
    circuits, store = _nac_store(tmp_path)
    path = tmp_path / "nac" / META
    meta = json.loads(path.read_text())
    del meta["kind"], meta["arrays"]
    meta["format_version"] = 1
    path.write_text(json.dumps(meta))
    old = CircuitStore.open(tmp_path / "nac")
    assert old.kind == "nac" and old.array_names == ["signatures"]
    np.testing.assert_array_equal(old[2].signatures, circuits[2].signatures)
    np.testing.assert_allclose(old.link_probabilities([0]), store.link_probabilities([0]))


def _routing_store(tmp_path, n=4):
    rng = np.random.default_rng(1)
    routing = rng.dirichlet(np.ones(3), size=(n, 2, 5)).transpose(0, 1, 3, 2).astype(np.float16)
    codes = rng.normal(size=(1, 3, 2)).astype(np.float32)
    arrays = {
        "routing": (routing, ["sample", "step", "function", "token"]),
        "function_codes": (codes, ["script", "function", "code"]),
    }
    frame = pd.DataFrame({"text": [f"x{i}" for i in range(n)]})
    store = CircuitStore.write_arrays(tmp_path / "ni", "ni", arrays, frame, {"dim": 4})
    return routing, store


def test_another_kind_round_trips_its_arrays_and_refuses_nac_questions(tmp_path):
    routing, store = _routing_store(tmp_path)
    reopened = CircuitStore.open(tmp_path / "ni")
    assert reopened.kind == "ni" and reopened.signatures is None
    assert reopened.array("routing").dtype == np.float16
    np.testing.assert_array_equal(reopened.array("routing"), routing)
    assert reopened.axes("function_codes") == ["script", "function", "code"]
    assert reopened.fingerprint == store.fingerprint
    with pytest.raises(TypeError, match="kind 'ni'"):
        reopened[0]
    with pytest.raises(TypeError, match="kind 'ni'"):
        reopened.link_probabilities([0])
    assert circuit_features(reopened).shape == (4, 2 * 3 * 5)
    with pytest.raises(ValueError, match="kind 'ni': graph statistics"):
        analyze_store(tmp_path / "ni")


def test_writing_and_opening_refuse_inconsistent_arrays(tmp_path):
    frame = pd.DataFrame({"text": ["a", "b"]})
    three = (np.zeros((3, 2), np.float32), ["sample", "x"])
    with pytest.raises(ValueError, match="3 samples for 2 rows"):
        CircuitStore.write_arrays(tmp_path / "s", "ni", {"a": three}, frame)
    with pytest.raises(ValueError, match="kind must be one of"):
        CircuitStore.write_arrays(tmp_path / "s", "other", {}, frame)
    with pytest.raises(ValueError, match="axis names"):
        CircuitStore.write_arrays(tmp_path / "s", "ni", {"a": (np.zeros(2), ["x", "y"])}, frame)
    _, store = _routing_store(tmp_path)
    np.save(store.path / "routing.npy", np.zeros((4, 2, 3, 5), np.float32))
    with pytest.raises(CircuitStoreError, match="dtype float32; expected float16"):
        CircuitStore.open(store.path)


def test_a_neural_interpreter_exports_its_routing(tmp_path, tiny_ni_run):
    model, config = load_model(tiny_ni_run)
    checkpoint = tiny_ni_run / "checkpoint.pt"
    store = write_ni_store(model, config, checkpoint, tmp_path / "ni", n_circuits=10)
    assert store.kind == "ni" and len(store) == 10
    routing = store.array("routing")
    assert routing.shape == (10, 2 * 2, 3, 20 + 5)  # 2 scripts x 2 iterations; CLS + x0..x4
    assert store.meta["tokens"][-5:] == ["x0", "x1", "x2", "x3", "x4"]
    assert store.meta["steps"][1] == {"script": 0, "iteration": 1}
    batch, _ = make_task("fuzzy-boolean").circuit_inputs(10, 0)
    outputs, want, _ = model(batch.inputs, return_circuit=True)
    np.testing.assert_allclose(routing, want.detach().numpy(), atol=2e-3)
    np.testing.assert_allclose(store.array("outputs"), outputs.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(store.array("targets"), batch.labels.numpy())
