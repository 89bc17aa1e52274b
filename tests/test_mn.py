"""Modular Networks: layers, controller, Viterbi EM, baselines and diagnostics against hand
computations; the tasks; a* across a kill and --resume."""

from __future__ import annotations

import csv
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from circuitlab.mn import MNConfig, ModularNetwork
from circuitlab.mn.diagnostics import (
    batch_selection_entropy,
    collapsed,
    module_usage,
    modules_used,
    selection_entropy,
)
from circuitlab.mn.layers import (
    ConvControllerFeatures,
    ConvModules,
    DenseModules,
    ModularLayer,
    selection_mask,
)
from circuitlab.mn.model import path_log_prob
from circuitlab.mn.training import training_losses, viterbi_e_step
from circuitlab.task import Batch
from circuitlab.train import TrainConfig, build_model
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.mixture import TRANSFORMS


def _model(**options) -> ModularNetwork:
    values = dict(input_dim=2, n_outputs=2, n_modules=3, n_select=1, n_examples=50)
    values.update(options)
    torch.manual_seed(0)
    return ModularNetwork(MNConfig(**values))


def test_selection_mask_counts_a_module_picked_twice_once():
    selection = torch.tensor([[0, 2], [1, 1]])
    assert selection_mask(selection, 3).tolist() == [[1, 0, 1], [0, 1, 0]]


def test_layer_output_is_the_sum_of_the_picked_modules():
    model = _model(n_select=2)
    pool = model.layers[0].pool
    assert isinstance(pool, DenseModules)
    w, b = pool.weights[0].detach(), pool.biases[0].detach()
    x = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
    paths = torch.tensor([[[0, 2]], [[1, 1]]])  # (B, L=1, K=2): the second picks module 1 twice
    out = model(x, paths=paths)
    expected = torch.stack(
        [
            x[0] @ w[0] + b[0] + x[0] @ w[2] + b[2],
            x[1] @ w[1] + b[1],  # once, not twice
        ]
    )
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize(
    "pool",
    [
        lambda: DenseModules(6, 5, 4),
        lambda: DenseModules(6, 5, 4, hidden=7),
        lambda: ConvModules(6, 3, 4),
    ],
    ids=["linear", "mlp", "conv"],
)
@pytest.mark.parametrize("k", [1, 2])
def test_a_sparse_layer_runs_only_the_picked_modules_and_equals_the_dense_sum(pool, k):
    torch.manual_seed(0)
    pool = pool()
    conv = isinstance(pool, ConvModules)
    x = torch.randn(9, *((3, 5, 5) if conv else (5,)), requires_grad=True)
    controller_in = x[0].numel()
    sparse = ModularLayer(pool, controller_in, 6, 1, noisy=True, sparse=True)
    dense = ModularLayer(pool, controller_in, 6, 1, noisy=True, sparse=False)
    logits = sparse.logits(x)[:, 0]  # noisy top-k's gates: the softmax kept at the top k
    picked = logits.topk(k, dim=-1).indices
    gates = logits.softmax(-1) * selection_mask(picked, 6)
    outs, grads = [], []
    for layer in (sparse, dense):
        out = layer(x, gates)
        outs.append(out)
        grads.append(
            torch.autograd.grad(
                out.square().sum(),
                [x, *pool.parameters(), *sparse.controller.parameters()],
                retain_graph=True,
            )
        )
    torch.testing.assert_close(outs[0], outs[1])
    for a, b in zip(*grads, strict=True):
        torch.testing.assert_close(a, b)
    ran, run_module = [], pool.run_module

    def counted(m: int, rows: torch.Tensor) -> torch.Tensor:
        ran.append((m, len(rows)))
        return run_module(m, rows)

    pool.run_module = counted
    sparse(x, gates)
    assert sum(n for _, n in ran) == 9 * k  # each input through its k picks only
    assert {m for m, _ in ran} == set(picked.unique().tolist())


def test_path_log_prob_sums_the_independent_categoricals():
    logits = torch.tensor([[[[1.0, 0.0, -1.0], [0.0, 2.0, 0.0]]]])  # (B=1, L=1, K=2, M=3)
    paths = torch.tensor([[[0, 1]]])
    first = 1.0 - math.log(math.e + 1 + math.exp(-1))
    second = 2.0 - math.log(1 + math.exp(2) + 1)
    assert path_log_prob(logits, paths).item() == pytest.approx(first + second, abs=1e-6)


def test_the_controller_reads_the_layer_input_linearly():
    model = _model(n_select=2)
    layer = model.layers[0]
    x = torch.tensor([[0.3, -0.7]])
    by_hand = (x @ layer.controller.weight.T + layer.controller.bias).view(1, 2, 3)
    torch.testing.assert_close(layer.logits(x), by_hand)


def test_the_conv_controller_reads_pooled_convolution_features():
    image = dict(input_dim=2 * 6 * 6, image_shape=[2, 6, 6], head=True, n_outputs=4, width=3)
    model = _model(**image, controller="conv", controller_channels=5, n_select=2)
    layer = model.layers[0]
    assert isinstance(layer.features, ConvControllerFeatures)
    x = torch.randn(3, 2, 6, 6)
    maps = torch.relu(F.conv2d(x, layer.features.conv.weight, layer.features.conv.bias, padding=1))
    # 6 x 6 pooled to 2 x 2: the mean of each 3 x 3 quarter, channel by channel
    pooled = maps.view(3, 5, 2, 3, 2, 3).mean((3, 5)).flatten(1)
    by_hand = (pooled @ layer.controller.weight.T + layer.controller.bias).view(3, 2, 3)
    torch.testing.assert_close(layer.logits(x), by_hand)
    assert layer.controller.in_features == 5 * 4  # not 2 * 6 * 6: far fewer weights
    outputs, circuit, _ = model(x.flatten(1), return_circuit=True)
    assert outputs.shape == (3, 4) and circuit.paths.shape == (3, 1, 2)


def test_the_conv_controller_needs_images():
    with pytest.raises(ValueError, match="needs image_shape"):
        MNConfig(input_dim=2, controller="conv")
    with pytest.raises(ValueError, match="controller must be one of"):
        MNConfig(input_dim=2, controller="cnn")


def test_log_likelihood_is_gaussian_for_regression_and_minus_cross_entropy_otherwise():
    model = _model(likelihood_std=0.5)
    out, y = torch.tensor([[1.0, 2.0]]), torch.tensor([[0.0, 0.0]])
    assert model.log_likelihood(out, y).item() == pytest.approx(-(1 + 4) / (2 * 0.25))
    classifier = _model(objective="classification", n_outputs=3)
    logits, label = torch.tensor([[2.0, 0.0, 1.0]]), torch.tensor([2])
    expected = 1.0 - math.log(math.exp(2) + 1 + math.e)
    assert classifier.log_likelihood(logits, label).item() == pytest.approx(expected, abs=1e-6)


def _score(model: ModularNetwork, x: torch.Tensor, y: torch.Tensor, paths: torch.Tensor):
    out, circuit = model.run(x, model.pick_given(paths))
    return model.log_likelihood(out, y) + path_log_prob(circuit.logits, paths)


def test_the_e_step_never_lowers_the_score_of_the_best_path():
    model = _model(n_layers=2, n_select=2, width=4)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(20, 2, generator=g), torch.randn(20, 2, generator=g)
    index = torch.arange(5, 25)
    for trial in range(5):
        before = model.best_paths.clone()
        old_score = _score(model, x, y, before[index])
        torch.manual_seed(trial)
        old, new = viterbi_e_step(model, x, y, index)
        torch.testing.assert_close(old, old_score)
        torch.testing.assert_close(new, _score(model, x, y, model.best_paths[index]))
        assert (new >= old - 1e-6).all()
        untouched = torch.ones(len(before), dtype=torch.bool)
        untouched[index] = False
        assert torch.equal(model.best_paths[untouched], before[untouched])
    assert not torch.equal(model.best_paths[index], before[index]) or trial == 0


def test_the_m_step_loss_is_minus_the_log_likelihood_and_log_prior_of_a_star():
    model = _model(e_step_every=1000)  # step 1: no E-step
    x, y = torch.randn(8, 2), torch.randn(8, 2)
    index = torch.arange(8)
    losses = training_losses(model, Batch(x, y, index=index), step=1)
    paths = model.best_paths[index]
    out, circuit = model.run(x, model.pick_given(paths))
    torch.testing.assert_close(losses.task_loss, -model.log_likelihood(out, y).mean())
    torch.testing.assert_close(losses.structure_loss, -path_log_prob(circuit.logits, paths).mean())
    losses.structure_loss.backward()
    assert model.layers[0].pool.weights[0].grad is None  # the controller's term moves no module


def test_em_needs_each_examples_row():
    with pytest.raises(ValueError, match="row in the training set"):
        training_losses(_model(), Batch(torch.randn(4, 2), torch.randn(4, 2)), step=0)


def test_top_k_gates_keep_the_softmax_at_the_top_k():
    model = _model(method="topk", n_modules=4, n_select=2, n_examples=0)
    logits = torch.tensor([[0.0, 2.0, 1.0, -1.0]])
    selection, gates = model._top_k(logits)
    softmax = logits.softmax(-1)[0]
    assert sorted(selection[0].tolist()) == [1, 2]
    torch.testing.assert_close(
        gates[0], torch.stack([0 * softmax[0], softmax[1], softmax[2], 0 * softmax[3]])
    )


def test_reinforce_surrogate_uses_the_moving_average_baseline():
    model = _model(method="reinforce", n_examples=0, reinforce_baseline_decay=0.5)
    x, y = torch.randn(6, 2), torch.randn(6, 2)
    model.reward_baseline.fill_(-3.0)
    torch.manual_seed(4)
    losses = training_losses(model, Batch(x, y), step=0)
    torch.manual_seed(4)
    out, circuit = model.run(x, model.pick_sample())
    reward = model.log_likelihood(out, y)
    surrogate = -((reward - (-3.0)) * path_log_prob(circuit.logits, circuit.paths)).mean()
    torch.testing.assert_close(losses.structure_loss, surrogate)
    assert model.reward_baseline.item() == pytest.approx(0.5 * -3.0 + 0.5 * reward.mean().item())


def test_balance_term_is_weight_times_log_m_minus_h_b():
    model = _model(method="topk", n_examples=0, balance_weight=0.7)
    x, y = torch.randn(6, 2), torch.randn(6, 2)
    torch.manual_seed(2)
    losses = training_losses(model, Batch(x, y), step=0)
    probabilities = model.run(x, model.pick_argmax())[1].probabilities
    expected = 0.7 * (math.log(3) - batch_selection_entropy(probabilities))
    torch.testing.assert_close(losses.structure_loss, expected)


def test_entropies_on_hand_made_selections():
    certain = torch.tensor([[[[1.0, 0.0]]], [[[0.0, 1.0]]]])  # two inputs, two modules
    assert selection_entropy(certain).item() == pytest.approx(0.0, abs=1e-6)
    assert batch_selection_entropy(certain).item() == pytest.approx(math.log(2))
    same = torch.tensor([[[[1.0, 0.0]]], [[[1.0, 0.0]]]])
    assert batch_selection_entropy(same).item() == pytest.approx(0.0, abs=1e-6)
    uniform = torch.full((3, 1, 1, 4), 0.25)
    assert selection_entropy(uniform).item() == pytest.approx(math.log(4))


def test_module_usage_and_collapse():
    paths = np.array([[[0, 0]], [[1, 0]], [[0, 0]], [[0, 2]]])  # N=4, L=1, K=2
    assert module_usage(paths, 3).tolist() == [[1.0, 0.25, 0.25]]
    assert modules_used(paths, 3).tolist() == [3]
    assert modules_used(paths, 4).tolist() == [3]
    assert collapsed(np.array([3]), np.array([math.log(3)]), 3) is False
    assert collapsed(np.array([2]), np.array([math.log(3)]), 3) is True  # a module unused
    assert collapsed(np.array([3]), np.array([0.2]), 3) is True  # H_b far below log M


def test_mixture_targets_are_each_components_linear_map():
    task = make_task("mixture-regression", components=4, n_train=100, n_test=50)
    batch = task.sample(30, seed=3)
    for x, y, c in zip(batch.inputs, batch.labels, task.train_c[batch.index], strict=True):
        torch.testing.assert_close(y, torch.tensor(TRANSFORMS[c][1]) @ x)
    assert len(set(batch.index.tolist())) == 30
    assert task.validation(80, seed=0).inputs.shape == (50, 2)


def test_digits_split_is_fixed_and_disjoint():
    task = make_task("digits", n_test=540)
    other = make_task("digits", n_test=540)
    assert task.n_train + len(task.test_y) == 1797
    torch.testing.assert_close(task.test_x, other.test_x)
    train_rows = {tuple(r) for r in task.train_x.tolist()}
    shared = sum(tuple(r) in train_rows for r in task.test_x.tolist())
    assert shared < 10  # only the data set's own duplicate images may appear in both
    assert task.train_x.min() >= 0 and task.train_x.max() <= 1


def test_em_refuses_an_endless_task_and_the_model_reads_the_task():
    with pytest.raises(ValueError, match="endless stream"):
        config = TrainConfig(task="toy-sets", model_kind="mn", model={})
        build_model(config, make_task("toy-sets"))
    with pytest.raises(ValueError, match="trains model_kind mn, not 'nac'"):
        build_model(TrainConfig(task="digits"), make_task("digits"))
    config = TrainConfig(task="digits", model_kind="mn", model=dict(n_layers=2, head=True))
    model = build_model(config, make_task("digits"))
    assert model.config.image_shape == [1, 8, 8] and model.config.n_outputs == 10
    assert model.best_paths.shape == (1257, 2, 1)
    logits = model(torch.rand(5, 64))
    assert logits.shape == (5, 10)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "circuitlab", *args]


MN_STEPS = 300  # the kill lands after step 40, long before the end; a checkpoint every step


def _mn_args(out) -> list[str]:
    return [
        "train", "--task", "mixture-regression", "--out", str(out), "--steps", str(MN_STEPS),
        "--batch-size", "16", "--eval-every", "500", "--eval-size", "64",
        "--checkpoint-every", "1", "--seed", "3", "--no-progress",
        "--model-kind", "mn", "-m", "n_modules=2", "-m", "e_step_every=2",
    ]  # fmt: skip


@pytest.mark.slow(35)
def test_the_best_path_table_survives_a_kill_and_resume_exactly(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    subprocess.run(_cli(*_mn_args(straight)), check=True, env=env, capture_output=True)
    proc = subprocess.Popen(
        _cli(*_mn_args(killed)), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while time.time() < deadline and not _checkpointed_past(killed / "checkpoint.pt", 40):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = torch.load(killed / "checkpoint.pt", weights_only=False)
    assert 40 <= at_kill["step"] < MN_STEPS, "the run should have been killed mid-way"
    subprocess.run(
        _cli("train", "--out", str(killed), "--resume", "--no-progress"),
        check=True,
        env=env,
        capture_output=True,
    )
    a = torch.load(straight / "checkpoint.pt", weights_only=False)["model"]
    b = torch.load(killed / "checkpoint.pt", weights_only=False)["model"]
    assert torch.equal(a["best_paths"], b["best_paths"])
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=0, atol=1e-5)
    with (killed / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["step"]) for r in rows] == list(range(1, MN_STEPS + 1))
    assert {"h_a", "h_b"} <= set(rows[0])


def _checkpointed_past(path, step: int) -> bool:
    try:
        return path.exists() and torch.load(path, weights_only=False)["step"] >= step
    except Exception:  # caught mid-write
        return False
