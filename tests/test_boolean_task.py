"""The fuzzy Boolean task and training a Neural Interpreter on it through the trainer."""

import csv
import json
import subprocess
import sys

import pytest
import torch

from circuitlab import CircuitStore
from circuitlab.ni import NeuralInterpreter
from circuitlab.train import TrainConfig, load_model, train
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.boolean import corners, fuzzy_evaluate, r_squared, truth_tables


def test_fuzzy_functions_are_their_truth_tables_on_the_corners_and_product_logic_inside():
    tables = truth_tables(6, 3, seed=1)
    torch.testing.assert_close(fuzzy_evaluate(tables, corners(3)), tables.T)
    # x0 OR (NOT x0 AND x1): true on rows 010, 011, 100, 101, 110, 111 (x0 most significant)
    table = torch.tensor([[0, 0, 1, 1, 1, 1, 1, 1]], dtype=torch.float32)
    x = torch.tensor([[0.3, 0.6, 0.9]])
    a, b, c = 0.3, 0.6, 0.9
    minterms = [(1 - a) * b * (1 - c), (1 - a) * b * c, a * (1 - b) * (1 - c)]
    minterms += [a * (1 - b) * c, a * b * (1 - c), a * b * c]
    want = 1.0
    for m in minterms:
        want *= 1 - m
    assert fuzzy_evaluate(table, x).item() == pytest.approx(1 - want, abs=1e-6)


def test_pretraining_and_adaptation_functions_are_disjoint_and_seeded():
    pre = make_task("fuzzy-boolean")
    adapt = make_task("fuzzy-boolean", functions="adapt")
    assert pre.n_outputs == 20 and adapt.n_outputs == 10
    assert not any(torch.equal(a, p) for a in adapt.tables for p in pre.tables)
    batch = pre.sample(8, seed=3)
    assert batch.inputs.shape == (8, 5, 6) and batch.labels.shape == (8, 20)
    torch.testing.assert_close(batch.inputs, pre.sample(8, seed=3).inputs)
    x = batch.inputs[:, :, 0]
    torch.testing.assert_close(batch.labels, fuzzy_evaluate(pre.tables, x))
    with pytest.raises(ValueError, match="unconditional"):
        make_task("fuzzy-boolean", conditional=True)


def test_r_squared_is_one_for_perfect_and_zero_for_the_mean():
    y = torch.randn(50, 3)
    assert r_squared(y, y) == pytest.approx(1.0)
    assert r_squared(y.mean(0).expand(50, 3), y) == pytest.approx(0.0, abs=1e-6)


def test_the_trainer_trains_a_neural_interpreter_on_a_regression(tmp_path):
    config = TrainConfig(
        task="fuzzy-boolean",
        model_kind="ni",
        steps=6,
        eval_every=3,
        eval_size=64,
        checkpoint_every=3,
        warmup_steps=2,
        batch_size=16,
        device="cpu",
        model=dict(dim=16, n_functions=3, iterations=1, heads=2, head_dim=4, code_dim=8),
    )
    summary = train(config, tmp_path / "ni", progress=False)
    assert "val_r2" in summary and "val_acc" not in summary
    with (tmp_path / "ni" / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert "train_r2" in rows[0] and len(rows) == 6
    assert float(rows[-1]["val_loss"]) < float(rows[0]["loss"])  # the MSE went down
    model, loaded = load_model(tmp_path / "ni")
    assert isinstance(model, NeuralInterpreter) and loaded.model_kind == "ni"
    assert model.cls_tokens.shape[0] == 20  # one CLS token per pre-training function
    assert json.loads((tmp_path / "ni" / "config.json").read_text())["model_kind"] == "ni"
    # resumes like a NAC run
    longer = TrainConfig(**{**config.__dict__, "steps": 6})
    assert train(longer, tmp_path / "ni", resume=True, progress=False)["steps"] == 6
    with pytest.raises(ValueError, match="model_kind 'ni'"):
        TrainConfig(task="fuzzy-boolean").model_config(make_task("fuzzy-boolean"))
    with pytest.raises(ValueError, match="reads no sentence"):
        TrainConfig(model_kind="ni").model_config(make_task("toy-sets", conditional=True))


@pytest.mark.slow(22)
def test_the_cli_trains_exports_and_describes_a_neural_interpreter(tmp_path):
    config = tmp_path / "ni.yaml"
    config.write_text(
        "task: fuzzy-boolean\nmodel_kind: ni\nsteps: 2\neval_every: 2\neval_size: 32\n"
        "checkpoint_every: 2\nbatch_size: 8\ndevice: cpu\n"
        "model: {dim: 16, n_functions: 3, iterations: 1, heads: 2, head_dim: 4, code_dim: 8}\n"
    )
    run, store_path = tmp_path / "run", tmp_path / "store"
    cli = [sys.executable, "-m", "circuitlab"]
    subprocess.run(
        [*cli, "train", "--config", str(config), "--out", str(run), "--no-progress"], check=True
    )
    subprocess.run(
        [*cli, "export", str(run), "--out", str(store_path), "--n-circuits", "12"], check=True
    )
    store = CircuitStore.open(store_path)
    assert store.kind == "ni" and store.array("routing").shape == (12, 2, 3, 25)
    info = subprocess.run(
        [*cli, "info", str(store_path)], check=True, capture_output=True, text=True
    )
    assert "routing: float16 [12, 2, 3, 25] (sample, step, function, token)" in info.stdout
    assert "script 1 iteration 0: cls 0:f" in info.stdout
