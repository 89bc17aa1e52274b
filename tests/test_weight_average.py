"""The moving average of the weights (circuitlab/weight_average.py) and the training options
that use it: ``ema_decay`` and the constant learning-rate schedule."""

import dataclasses

import pytest
import torch

import circuitlab.train as train_module
from circuitlab.checkpoint import read_checkpoint
from circuitlab.model import NAC
from circuitlab.train import (
    TrainConfig,
    batch_metrics,
    build_model,
    constant_with_warmup,
    load_model,
    train,
    validation_batch,
    warm_start,
)
from circuitlab.weight_average import WeightAverage
from circuitlab.worlds.tasks import make_task
from tests.test_train import TINY_MODEL

DECAY = 0.8


def test_update_folds_each_step_into_an_exponential_moving_average():
    model = torch.nn.BatchNorm1d(3)  # parameters, a float and an integer buffer
    steps = [torch.randn(3) for _ in range(3)]
    average = None
    for step, weight in enumerate(steps, start=1):
        with torch.no_grad():
            model.weight.copy_(weight)
            model.running_mean.copy_(weight)
        model.num_batches_tracked.fill_(step)
        if average is None:
            average = WeightAverage(model, DECAY)
        average.update(model)
    w0, w1, w2 = steps
    expected = DECAY * (DECAY * w0 + (1 - DECAY) * w1) + (1 - DECAY) * w2
    torch.testing.assert_close(average.model.weight, expected)
    torch.testing.assert_close(average.model.running_mean, w2)  # buffers are copied
    assert average.model.num_batches_tracked.item() == 3 and average.updates == 3
    assert not average.model.weight.requires_grad
    torch.testing.assert_close(model.weight.detach(), w2)  # the trained model is left alone


def test_a_decay_outside_zero_one_is_refused_by_name():
    with pytest.raises(ValueError, match="ema_decay"):
        WeightAverage(torch.nn.Linear(2, 2), 1.0)
    with pytest.raises(ValueError, match="ema_decay"):
        TrainConfig(ema_decay=0.0)
    with pytest.raises(ValueError, match="lr_schedule.*'linear'"):
        TrainConfig(lr_schedule="linear")


def test_the_constant_schedule_warms_up_then_holds():
    factors = [constant_with_warmup(s, 4, 10) for s in range(12)]
    assert factors[:4] == [0.25, 0.5, 0.75, 1.0] and set(factors[4:]) == {1.0}


def _config() -> TrainConfig:
    return TrainConfig(
        steps=20,
        batch_size=16,
        eval_every=10,
        eval_size=64,
        checkpoint_every=10,
        warmup_steps=2,
        lr_schedule="constant",
        ema_decay=DECAY,
        model=dict(TINY_MODEL),
    )


def _stop_after_first_checkpoint(monkeypatch):
    """Make the next run stop (as Ctrl-C would) right after it writes its first checkpoint."""
    save = train_module.save_checkpoint

    def save_then_stop(*args, **kwargs):
        save(*args, **kwargs)
        monkeypatch.setattr(train_module, "save_checkpoint", save)
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "save_checkpoint", save_then_stop)


def test_a_run_with_ema_decay_ships_and_scores_the_averaged_weights(tmp_path, monkeypatch):
    config = _config()
    summary = train(config, tmp_path / "straight", progress=False)
    state = read_checkpoint(tmp_path / "straight")
    assert state["averaged_model"]["updates"] == 20
    averaged, _ = load_model(tmp_path / "straight")
    trained, _ = load_model(tmp_path / "straight", averaged=False)
    for name, value in trained.state_dict().items():
        torch.testing.assert_close(value, state["model"][name], rtol=0, atol=0)
    assert any(
        not torch.equal(value, trained.state_dict()[name])
        for name, value in averaged.state_dict().items()
    ), "the average of a moving run differs from its last weights"
    # validation (and the summary) read the averaged model
    task = make_task(config.task, conditional=config.conditional, **config.task_options)
    loss, accuracy = batch_metrics(averaged, validation_batch(task, config), "cpu", task)
    assert (summary["val_loss"], summary["val_acc"]) == pytest.approx((loss, accuracy))
    rows = (tmp_path / "straight" / "metrics.csv").read_text().splitlines()
    assert [row.split(",")[1] for row in rows[3:]] == ["0.001"] * 18  # constant after warm-up

    # --init-from starts from the averaged weights
    fresh = build_model(dataclasses.replace(config, ema_decay=None), task)
    warm_start(fresh, tmp_path / "straight", "cpu")
    for name, value in averaged.state_dict().items():
        torch.testing.assert_close(fresh.state_dict()[name], value, rtol=0, atol=0)

    # a run stopped at step 10 and resumed keeps the same average
    _stop_after_first_checkpoint(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "resumed", progress=False)
    assert read_checkpoint(tmp_path / "resumed")["averaged_model"]["updates"] == 10
    train(config, tmp_path / "resumed", resume=True, progress=False)
    resumed, _ = load_model(tmp_path / "resumed")
    for name, value in averaged.state_dict().items():
        torch.testing.assert_close(resumed.state_dict()[name], value, rtol=0, atol=1e-6)
    assert isinstance(resumed, NAC)
