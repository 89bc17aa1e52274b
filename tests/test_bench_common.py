"""The bench scripts' shared measuring code: medians taken in turns, and a step's peak memory
read in a fresh process, and a step timed there; rows merged into a results CSV."""

import sys
from pathlib import Path

import pandas as pd
import torch

from circuitlab.config_groups import GeneratorConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
from bench_helpers import build_allocating_step  # noqa: E402
from common import (  # noqa: E402
    interleaved_medians,
    merge_into_csv,
    step_in_fresh_process,
    step_peak_memory,
    with_other_runs,
)


def test_interleaved_medians_call_each_step_in_turns():
    calls = []
    steps = {name: (lambda n=name: calls.append(n)) for name in ("a", "b")}
    medians = interleaved_medians(steps, torch.device("cpu"), repeats=3, warmup=1)
    assert set(medians) == {"a", "b"} and all(t >= 0 for t in medians.values())
    assert calls == ["a", "b"] + ["a", "b"] * 3  # warm-up each, then rounds of both


def test_step_peak_memory_sees_what_the_step_allocates():
    small, small_total = step_peak_memory(build_allocating_step, (16,), torch.device("cpu"))
    big, big_total = step_peak_memory(build_allocating_step, (256,), torch.device("cpu"))
    assert 240 * 2**20 <= big <= 320 * 2**20
    assert small <= 64 * 2**20
    assert big_total - small_total >= 200 * 2**20


def test_step_in_fresh_process_times_the_step_and_keeps_the_peak_over_all_calls():
    for keep_freed in (False, True):
        seconds, first, peak = step_in_fresh_process(
            build_allocating_step, (128,), torch.device("cpu"), repeats=2, keep_freed=keep_freed
        )
        assert seconds > 0
        assert 120 * 2**20 <= first <= 192 * 2**20
        assert peak >= first + 100 * 2**20  # the whole process: torch itself and the step


def test_world_categories_append_keeps_earlier_runs_and_replaces_a_remeasured_one():
    import pandas as pd
    import pytest
    from world_categories import with_earlier_columns

    earlier = pd.DataFrame(
        {"group": ["a", "b"], "examples": [3, 5], "old": [0.1, 0.2], "again": [0.3, 0.4]}
    )
    new = pd.DataFrame({"group": ["a", "b"], "examples": [3, 5], "again": [0.9, 0.8]})
    joined = with_earlier_columns(new, earlier)
    assert list(joined.columns) == ["group", "examples", "old", "again"]
    assert joined["old"].tolist() == [0.1, 0.2] and joined["again"].tolist() == [0.9, 0.8]
    with pytest.raises(ValueError, match="--examples"):
        with_earlier_columns(new.assign(examples=[4, 5]), earlier)


def test_with_other_runs_replaces_a_remeasured_run_in_its_place(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setattr(common, "RESULTS", tmp_path)
    pd.DataFrame({"run": ["a", "b", "c"], "acc": [0.1, 0.2, 0.3]}).to_csv(
        tmp_path / "table.csv", index=False
    )
    rows = with_other_runs("table", [{"run": "d", "acc": 0.4}, {"run": "b", "acc": 0.9}])
    assert [(r["run"], r["acc"]) for r in rows] == [("a", 0.1), ("b", 0.9), ("c", 0.3), ("d", 0.4)]
    assert with_other_runs("absent", [{"run": "x"}]) == [{"run": "x"}]


def test_separation_over_seeds_averages_the_one_seed_measure(monkeypatch):
    import numpy as np
    import pytest

    import circuitlab.analysis.embedding as embedding
    from circuitlab.analysis.embedding import knn_accuracy
    from circuitlab.config import NACConfig
    from circuitlab.model import NAC

    torch.manual_seed(0)
    config = NACConfig(
        input_dim=5, n_processors=6, n_readouts=2, dim=16, depth=2, heads=2, head_dim=8,
        code_dim=8, sig_dim=4, conditional=True,
        generator=GeneratorConfig(cond_dim=7, dim=16, heads=2),
    )  # fmt: skip
    model = NAC(config).eval()
    words = {w: torch.randn(7) for w in "abcdz"}

    def encode(texts):
        tokens = torch.stack([torch.stack([words[w] for w in t.split()]) for t in texts])
        return tokens, torch.ones(tokens.shape[:2], dtype=torch.bool)

    rng = np.random.default_rng(0)
    sentence = {w: rng.normal(size=3) for w in "abcdz"}
    monkeypatch.setattr(
        embedding, "sentence_embeddings", lambda texts: np.stack([sentence[t[0]] for t in texts])
    )
    texts = [f"{x} {y}" for x in "abcd" for y in "abcd"] * 2 + ["z a", "z b", "z c"]
    labels = [t[0] for t in texts]  # "z" has 3 sentences: left out
    row = common.separation(model, encode, texts, labels, seed=3, repeats=3)

    kept, y = texts[:32], np.array(labels[:32])
    features = common.circuit_features(model, encode, kept, 3)
    assert row["knn_p"] == knn_accuracy(features["p"], y, 5, 3)
    assert row["knn_sentences"] == 32 and row["knn_classes"] == 4
    for name in ("p", "sentence"):
        scores = [knn_accuracy(features[name], y, 5, s) for s in (3, 4, 5)]
        assert row[f"knn_{name}_mean"] == pytest.approx(np.mean(scores))
        assert row[f"knn_{name}_sd"] == pytest.approx(np.std(scores, ddof=1))
    untrained = [
        knn_accuracy(common.untrained_features(model, encode, kept, s), y, 5, s) for s in (3, 4, 5)
    ]
    assert row["knn_untrained"] == untrained[0]
    assert row["knn_untrained_mean"] == pytest.approx(np.mean(untrained))
    assert "knn_p_mean" not in common.separation(model, encode, texts, labels, seed=3)


def test_rows_merged_by_two_writers_of_one_csv_are_both_kept(tmp_path):
    path, keys = tmp_path / "rows.csv", ["model", "seed"]
    first = pd.DataFrame({"model": ["a", "a"], "seed": [0, 1], "accuracy": [0.7, 0.8]})
    second = pd.DataFrame({"model": ["b"], "seed": [0], "accuracy": [0.6]})
    merge_into_csv(path, first, keys)
    merge_into_csv(path, second, keys)  # another process, started before the first wrote
    merged = merge_into_csv(path, first.iloc[:1].assign(accuracy=0.5), keys)  # a rerun
    on_disk = pd.read_csv(path)
    assert len(merged) == len(on_disk) == 3
    accuracy = on_disk.set_index(keys).accuracy
    assert accuracy[("a", 0)] == 0.5  # replaced by its rerun
    assert accuracy[("a", 1)] == 0.8 and accuracy[("b", 0)] == 0.6  # the others kept
    assert [f.name for f in tmp_path.iterdir()] == ["rows.csv"]  # no partial file left
