"""circuitlab train/evaluate/export on the nlvr task, end to end on a tiny model."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from circuitlab import CircuitStore
from circuitlab.data.nlvr import read_annotations, read_nlvr, read_nlvr2
from circuitlab.data.tagger import TAGGED
from circuitlab.export import export_checkpoint
from circuitlab.nlvr_eval import evaluate_file
from circuitlab.train import TrainConfig, train
from tests.test_train import TINY_MODEL, tiny_conditional_config

# what scripts/ship_checkpoint.py puts in a checkpoint folder: the run's files, how it was
# trained and the numbers the docs quote
SHIPPED_FILES = {
    "checkpoint.pt",
    "config.json",
    "metrics.csv",
    "summary.json",
    "stages.json",
    "results.json",
}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "circuitlab", *args]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("nlvr") / "run"
    options = dict(text_encoder="words", pool_size=40, val_pool_size=10)
    config = tiny_conditional_config("nlvr", options, steps=20, batch_size=16, every=10)
    train(config, run, progress=False)
    return run


def test_evaluate_scores_an_nlvr_file_overall_and_per_category(tiny_run, tmp_path):
    out = tmp_path / "predictions.csv"
    result = subprocess.run(
        _cli("evaluate", str(tiny_run), "--nlvr", "nlvr-dev", "--out", str(out), "--device", "cpu"),
        check=True,
        capture_output=True,
        text=True,
    )
    predictions = pd.read_csv(out)
    examples = read_nlvr("nlvr-dev")
    assert len(predictions) == len(examples)
    assert predictions["label"].tolist() == [e.label for e in examples]
    assert (predictions["correct"] == (predictions["prediction"] == predictions["label"])).all()
    accuracy = predictions["correct"].mean()
    assert f"all {len(examples)}" in " ".join(result.stdout.split())
    assert f"{round(accuracy, 4)}" in result.stdout
    _, table = evaluate_file(tiny_run, "nlvr-dev")
    assert set(table["subset"]) - {"all"} <= set(TAGGED)
    hard = predictions["categories"].fillna("").str.contains("hard cardinality")
    row = table.set_index("subset").loc["hard cardinality"]
    assert row["examples"] == hard.sum()
    assert abs(row["accuracy"] - predictions.loc[hard, "correct"].mean()) < 1e-4


def test_export_writes_the_nlvr2_and_nlvr_stores(tiny_run, tmp_path):
    stores = export_checkpoint(tiny_run, tmp_path / "stores")
    nlvr2 = CircuitStore.open(tmp_path / "stores" / "nlvr2")
    sentences = set(read_nlvr2("nlvr2-dev")["sentence"]) | set(
        read_nlvr2("nlvr2-test1")["sentence"]
    )
    assert len(nlvr2) == len(sentences) == len(stores["nlvr2"])
    frame = nlvr2.frame
    gold = frame[frame["category_source"] == "gold"]
    assert len(gold) == read_annotations()["sentence"].nunique()
    assert set(frame["split"]) == {"dev", "test1"} and set(frame["label"]) <= {
        "True",
        "False",
        "mixed",
    }
    annotated = read_annotations().set_index("sentence")["categories"]
    row = gold.iloc[0]
    assert list(row["categories"]) == list(annotated.loc[row["text"]])
    # one circuit per sentence: two rows with the same text would have the same circuit
    assert nlvr2.signatures[0].shape == (
        TINY_MODEL["n_processors"] + TINY_MODEL["n_readouts"],
        TINY_MODEL["sig_dim"],
    )

    nlvr = CircuitStore.open(tmp_path / "stores" / "nlvr")
    n = len(read_nlvr("nlvr-dev")) + len(read_nlvr("nlvr-test"))
    assert len(nlvr) == n
    assert {"text", "scene_id", "label", "prediction", "correct", "split"} <= set(
        nlvr.frame.columns
    )
    # rows that repeat a sentence share its circuit exactly, wherever they fall in the export's
    # chunks; another sentence has another circuit
    first = nlvr.frame["text"] == nlvr.frame["text"].iloc[0]
    same, other = nlvr.frame.index[first], nlvr.frame.index[~first]
    assert len(same) > 1
    assert all((nlvr.signatures[i] == nlvr.signatures[same[0]]).all() for i in same)
    assert not np.allclose(nlvr.signatures[other[0]], nlvr.signatures[same[0]])


@pytest.mark.slow(24)
def test_evaluate_refuses_other_tasks_and_bad_files(tiny_run, tmp_path):
    toy = tmp_path / "toy"
    train(
        TrainConfig(steps=2, eval_every=1, eval_size=8, model=dict(TINY_MODEL)), toy, progress=False
    )
    wrong = subprocess.run(
        _cli("evaluate", str(toy), "--nlvr", "nlvr-dev"), capture_output=True, text=True
    )
    assert wrong.returncode == 2 and "trained on task 'toy-sets'" in wrong.stderr
    bad = tmp_path / "bad.json"
    line = {
        "identifier": "x-0",
        "sentence": "There is a box.",
        "label": "true",
        "structured_rep": [
            [{"x_loc": 1, "y_loc": 1, "size": 10, "type": "star", "color": "Black"}],
            [],
            [],
        ],
    }
    bad.write_text(json.dumps(line) + "\n")
    result = subprocess.run(
        _cli("evaluate", str(tiny_run), "--nlvr", str(bad)), capture_output=True, text=True
    )
    assert result.returncode == 2 and "bad.json, line 1, box 0: unknown object" in result.stderr
    line.update(sentence="  ", structured_rep=[[], [], []])
    bad.write_text(json.dumps(line) + "\n")
    result = subprocess.run(
        _cli("evaluate", str(tiny_run), "--nlvr", str(bad)), capture_output=True, text=True
    )
    assert result.returncode == 2 and "line 1: the sentence is empty" in result.stderr


def test_a_checkpoint_of_another_format_version_says_so(tiny_run, tmp_path):
    import torch

    from circuitlab.train import load_model

    state = torch.load(tiny_run / "checkpoint.pt", weights_only=False)
    state["format_version"] = 99
    torch.save(state, tmp_path / "checkpoint.pt")
    with pytest.raises(ValueError, match="checkpoint format 99; this circuitlab reads format 1"):
        load_model(tmp_path / "checkpoint.pt")
    with pytest.raises(FileNotFoundError, match="give a run directory"):
        load_model(tmp_path / "absent")


def test_causality_reports_swaps_kernel_and_shape(tiny_run):
    result = subprocess.run(
        _cli("causality", str(tiny_run), "--world", "60", "--nlvr", "nlvr-dev", "--device", "cpu"),
        check=True,
        capture_output=True,
        text=True,
    )
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[1:]}
    assert result.stdout.split()[:2] == ["world", "held-out"]
    for measure in ("accuracy", "signature_swap", "code_swap", "all_ones", "density"):
        assert len(lines[measure]) == 2  # world held-out, nlvr-dev
    assert float(lines["examples"][1]) == len(read_nlvr("nlvr-dev"))
    # the own-circuit accuracy on NLVR dev is what `evaluate` scores
    predictions, _ = evaluate_file(tiny_run, "nlvr-dev")
    assert float(lines["accuracy"][1]) == pytest.approx(predictions["correct"].mean(), abs=5e-4)
    drop = float(lines["signature_swap_drop"][1])
    swapped = float(lines["signature_swap"][1])
    assert drop == pytest.approx(float(lines["accuracy"][1]) - swapped, abs=2e-3)


def test_causality_refuses_what_it_cannot_measure(tiny_run, tmp_path):
    nothing = subprocess.run(
        _cli("causality", str(tiny_run), "--world", "0"), capture_output=True, text=True
    )
    assert nothing.returncode == 2 and "nothing to score" in nothing.stderr
    toy = tmp_path / "toy"
    train(
        TrainConfig(steps=2, eval_every=1, eval_size=8, model=dict(TINY_MODEL)), toy, progress=False
    )
    wrong = subprocess.run(
        _cli("causality", str(toy), "--world", "0", "--nlvr", "nlvr-dev"),
        capture_output=True,
        text=True,
    )
    assert wrong.returncode == 2 and "unconditional model" in wrong.stderr


def test_an_interrupted_export_says_which_stores_are_complete(tiny_run, tmp_path, monkeypatch):
    import circuitlab.export

    out = tmp_path / "stores"
    export_checkpoint(tiny_run, out, limit=20)
    manifest = json.loads((out / "export.json").read_text())
    assert manifest["stores"] == {"nlvr2": "complete", "nlvr": "complete"}
    digest = manifest["checkpoint_sha256"]
    assert digest == CircuitStore.open(out / "nlvr").meta["checkpoint_sha256"]

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(circuitlab.export, "predict_nlvr", killed)
    with pytest.raises(KeyboardInterrupt):
        export_checkpoint(tiny_run, out, overwrite=True, limit=20)
    manifest = json.loads((out / "export.json").read_text())
    assert manifest["stores"] == {"nlvr2": "complete", "nlvr": "pending"}


@pytest.mark.slow(20)
def test_a_warm_started_run_is_shipped_with_the_stages_that_made_it(tiny_run, tmp_path):
    from circuitlab.train import training_stages

    config = json.loads((tiny_run / "config.json").read_text())
    config.update(steps=2, eval_every=2, checkpoint_every=2, seed=1, init_from=str(tiny_run))
    second = tmp_path / "second"
    train(TrainConfig.from_dict(config), second, progress=False)
    stages = training_stages(second)
    assert [s.run_dir for s in stages] == [tiny_run, second]
    assert [s.config["steps"] for s in stages] == [20, 2] and stages[0].summary["steps"] == 20

    shipped, old = tmp_path / "checkpoints" / "nlvr", tmp_path / "checkpoints" / "old"
    shipped.mkdir(parents=True)
    (shipped / "marker").write_text("the model shipped before")
    args = [str(second), "--to", str(shipped), "--keep-old-as", str(old), "--world", "40"]
    subprocess.run([sys.executable, "scripts/ship_checkpoint.py", *args], check=True)
    assert (old / "marker").read_text() == "the model shipped before"
    assert {p.name for p in shipped.iterdir()} == SHIPPED_FILES
    record = json.loads((shipped / "stages.json").read_text())
    assert [r["config"]["steps"] for r in record] == [20, 2]
    assert record[1]["config"]["init_from"] == str(tiny_run)
    results = json.loads((shipped / "results.json").read_text())
    predictions, _ = evaluate_file(shipped, "nlvr-test")
    assert results["nlvr_test"] == pytest.approx(predictions["correct"].mean(), abs=1e-4)

    lost = json.loads((second / "config.json").read_text())
    (tmp_path / "orphan").mkdir()
    lost["init_from"] = str(tmp_path / "gone")
    (tmp_path / "orphan" / "config.json").write_text(json.dumps(lost))
    with pytest.raises(FileNotFoundError, match="gone .init_from of .*orphan"):
        training_stages(tmp_path / "orphan")


def test_the_pairs_summary_names_its_splits_as_the_readme_does():
    from circuitlab.cli.export import _pairs_summary

    frame = pd.DataFrame({"split": ["held_out"] * 4 + ["val"] * 2, "correct": [1, 1, 1, 0, 1, 0]})
    lines = _pairs_summary(frame).splitlines()
    assert lines[1:3] == [
        "  held-out sentences: 0.500 over 2 examples",
        "  held-out nouns: 0.750 over 4 examples",
    ]
    assert "4,000 examples a split" in lines[3]
