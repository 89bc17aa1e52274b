"""NFM reads: graphs and the top-down share against hand-made reads; the store an NFM network
exports, read back; the task's splits."""

import subprocess
import sys

import numpy as np
import pytest

from circuitlab.analysis.embedding import circuit_features
from circuitlab.analysis.layer_reads import read_graph, slot_label, top_down_share
from circuitlab.store import CircuitStore
from circuitlab.worlds.sort_of_clevr import held_out_pairs
from circuitlab.worlds.tasks import make_task

# two readers over 2 first-pass layers, 2 second-pass layers and the null slot
READS = np.array(
    [
        [0.1, 0.6, 0.3, 0.0, 0.0],  # layer 1 reads the first pass's layer 2: top-down
        [0.2, 0.2, 0.0, 0.1, 0.5],
    ]
)


def test_slot_labels_and_the_read_graph():
    assert [slot_label(s, 2) for s in range(5)] == ["p1.L1", "p1.L2", "p2.L1", "p2.L2", "null"]
    graph = read_graph(READS, threshold=0.15)
    assert sorted(graph.edges) == sorted(
        [("p1.L2", "p2.L1"), ("p2.L1", "p2.L1"), ("p1.L1", "p2.L2"), ("p1.L2", "p2.L2"),
         ("null", "p2.L2")]
    )  # fmt: skip
    assert graph.edges["p1.L2", "p2.L1"]["weight"] == pytest.approx(0.6)
    assert graph.nodes["null"]["pass"] is None and graph.nodes["p2.L2"]["layer"] == 2
    with pytest.raises(ValueError, match="2 L \\+ 1"):
        read_graph(np.ones((2, 4)))


def test_top_down_share_counts_deeper_first_pass_layers():
    np.testing.assert_allclose(top_down_share(READS), [0.6, 0.0])
    np.testing.assert_allclose(top_down_share(np.stack([READS, READS])), [[0.6, 0.0]] * 2)


def test_task_pools_and_held_out_questions():
    task = make_task("sort-of-clevr", n_train=30, n_test=10)
    batch = task.sample(8, seed=0)
    assert batch.inputs.shape == (8, 3, 32, 32) and batch.conditioning.shape == (8, 12)
    held = task.split_batch("heldout", 10**6)
    pool = task.pools["heldout"]
    assert len(held) == len(pool["answer"])
    train_pool = task.pools["train"]
    colours, answers = train_pool["colour"], train_pool["answer"]
    shape_rows = train_pool["question"] == 0
    seen = {
        (int(c), int(a) - 2) for c, a in zip(colours[shape_rows], answers[shape_rows], strict=True)
    }
    assert not seen & held_out_pairs()  # no training object wears a held-out combination


def test_export_writes_an_nfm_store(tiny_nfm_run, tmp_path):
    out = tmp_path / "store"
    args = ["export", str(tiny_nfm_run), "--out", str(out), "--n-circuits", "12"]
    subprocess.run([sys.executable, "-m", "circuitlab", *args], check=True, capture_output=True)
    store = CircuitStore.open(out)
    assert store.kind == "nfm" and len(store) == 24  # 12 test and 12 held-out questions
    attention = np.asarray(store.array("attention"))
    assert attention.shape == (24, 2, 5)
    np.testing.assert_allclose(attention.sum(-1), 1, atol=1e-4)
    assert (attention[:, 0, 3] == 0).all()  # second-pass layer 1 cannot read layer 2's write
    assert store.array("images").shape == (24, 3, 32, 32)
    assert set(store.frame["split"]) == {"test", "heldout"}
    assert store.meta["slots"][-1] == "null"
    assert circuit_features(store).shape == (24, 10)
    info = subprocess.run(
        [sys.executable, "-m", "circuitlab", "info", str(out)], capture_output=True, text=True
    )
    assert "pass 2 layer 2 reads" in info.stdout
