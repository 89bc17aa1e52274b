"""The NLVR checkpoint that ships in checkpoints/nlvr: small, complete, as good as
docs/results.md says on real NLVR test (which it never trained on), and answering through its
circuit."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from circuitlab.data.nlvr import read_nlvr
from circuitlab.nlvr_eval import nlvr_causality, nlvr_task, predict_nlvr
from circuitlab.train import TrainConfig, load_model

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints" / "nlvr"


def test_shipped_checkpoint_is_small_and_complete():
    files = {p.name for p in SHIPPED.iterdir()}
    assert {"checkpoint.pt", "config.json", "metrics.csv", "summary.json", "results.json"} <= files
    assert (SHIPPED / "checkpoint.pt").stat().st_size < 20 * 2**20
    config = TrainConfig.from_dict(json.loads((SHIPPED / "config.json").read_text()))
    assert config.task == "nlvr" and config.conditional
    with (SHIPPED / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    # the training curve thinned to a record (circuitlab.run_records): every validation row
    # (one per eval_every steps), the first and the last step, at most 1,000 rows
    steps = [int(r["step"]) for r in rows]
    assert len(rows) <= 1000 and steps[0] == 1 and steps[-1] == config.steps
    validated = [s for s, r in zip(steps, rows, strict=True) if r["val_acc"]]
    assert validated == list(range(config.eval_every, config.steps + 1, config.eval_every))


def test_shipped_checkpoint_beats_the_majority_class_on_nlvr_test():
    model, config = load_model(SHIPPED)
    task = nlvr_task(config)
    test = read_nlvr("nlvr-test")
    accuracy = predict_nlvr(model, task, test)["correct"].mean()
    majority = max(sum(e.label for e in test), sum(not e.label for e in test)) / len(test)
    assert accuracy >= majority + 0.05
    recorded = json.loads((SHIPPED / "results.json").read_text())
    assert abs(accuracy - recorded["nlvr_test"]) < 2e-3  # the number docs/results.md quotes


def test_shipped_circuit_decides_the_answer_on_nlvr_test():
    """Issue 18's bar on real sentences: another sentence's graph (codes kept) or an all-ones
    kernel costs >= 10 points (the model shipped before it lost nothing either way)."""
    model, config = load_model(SHIPPED)
    report = nlvr_causality(model, nlvr_task(config), read_nlvr("nlvr-test"))
    assert report["sentences"] > 200
    assert report["signature_swap_drop"] >= 0.10
    assert report["all_ones_drop"] >= 0.10
    assert 0.1 <= report["density"] <= 0.4
