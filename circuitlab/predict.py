"""A model's predictions and scores on a batch: logits in eval mode, loss and accuracy (R^2 for
a regression task), the run's fixed validation set."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from circuitlab.checkpoint import Model
from circuitlab.interventions import eval_mode
from circuitlab.model import NAC
from circuitlab.run_config import TrainConfig, objective, step_seed
from circuitlab.task import Batch, Task
from circuitlab.worlds.tasks.boolean import r_squared

__all__ = [
    "batch_metrics",
    "evaluate",
    "forward_batch",
    "objective_loss",
    "own_task_logits",
    "predict_logits",
    "score_name",
    "task_score",
    "validation_batch",
]


def forward_batch(model: torch.nn.Module, batch: Batch, **kwargs: Any) -> Any:
    """``model`` (a NAC, or a DDP-wrapped one) on a Batch, masks included.

    Parameters
    ----------
    model
        The model.
    batch
        The examples.
    **kwargs
        Passed to the model's forward (a NAC's ``return_circuit=True``, say).
    """
    return model(
        batch.inputs,
        batch.conditioning,
        input_mask=batch.input_mask,
        conditioning_mask=batch.conditioning_mask,
        **kwargs,
    )


@torch.no_grad()
def predict_logits(
    model: NAC, batch: Batch, device: torch.device | str = "cpu", chunk: int = 256
) -> torch.Tensor:
    """Logits (B, n_classes) in eval mode, ``chunk`` examples at a time.

    Parameters
    ----------
    model
        The model.
    batch
        The examples.
    device
        Where the model runs.
    chunk
        Examples per forward pass.
    """
    with eval_mode(model):
        parts = [
            forward_batch(model, batch.rows(slice(start, start + chunk)).to(device)).float().cpu()
            for start in range(0, len(batch), chunk)
        ]
    return torch.cat(parts)


def evaluate(
    model: NAC, task: Task, config: TrainConfig, device: torch.device
) -> tuple[float, float]:
    """(mean loss, accuracy) on the run's fixed validation set (seed independent of training).

    Parameters
    ----------
    model
        The model.
    task
        The run's task.
    config
        The run's config (``eval_size``, ``seed``).
    device
        Where the model runs.
    """
    return batch_metrics(model, validation_batch(task, config), device, task)


def validation_batch(task: Task, config: TrainConfig) -> Batch:
    """The run's fixed validation set: ``eval_size`` examples from a seed no step uses.

    Parameters
    ----------
    task
        The run's task.
    config
        The run's config.
    """
    return task.validation(config.eval_size, seed=step_seed(config.seed, 10**12))


def batch_metrics(
    model: Model, batch: Batch, device: torch.device | str = "cpu", task: Task | None = None
) -> tuple[float, float]:
    """(mean loss, accuracy) of ``model`` on ``batch``, in eval mode; for a regression
    ``task``, (mean squared error, R^2).

    Parameters
    ----------
    model
        A model of any kind.
    batch
        The examples.
    device
        Where the model runs.
    task
        The task (None: a classification).
    """
    logits = predict_logits(model, batch, device)
    return objective_loss(task, logits, batch.labels).item(), task_score(task, logits, batch.labels)


def objective_loss(task: Task | None, outputs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The training loss: cross-entropy, or the mean squared error for a regression task; for
    a multi-task one, the cross-entropy of each example's own task's outputs.

    Parameters
    ----------
    task
        The task (None: a classification).
    outputs
        The model's outputs.
    labels
        The batch's labels.
    """
    if objective(task) == "regression":
        return F.mse_loss(outputs, labels)
    if objective(task) == "multitask":
        return F.cross_entropy(own_task_logits(outputs, labels, task.n_classes), labels[:, 1])
    return F.cross_entropy(outputs, labels)


def own_task_logits(outputs: torch.Tensor, labels: torch.Tensor, n_classes: int) -> torch.Tensor:
    """A multi-task model's outputs (B, n_tasks * n_classes), one block of ``n_classes`` per
    task (a Neural Interpreter's CLS tokens in turn), and labels (B, 2) of (task, class) ->
    the logits of each example's own task, (B, n_classes).

    Parameters
    ----------
    outputs, labels
        As above.
    n_classes
        Classes per task.
    """
    blocks = outputs.reshape(len(outputs), -1, n_classes)
    if len(labels) and int(labels[:, 0].max()) >= blocks.shape[1]:
        raise ValueError(
            f"labels name task {int(labels[:, 0].max())}; the outputs hold {blocks.shape[1]}"
        )
    return blocks[torch.arange(len(outputs)), labels[:, 0]]


def score_name(task: Task) -> str:
    """The score's name in metrics.csv (train_NAME, val_NAME) and summary.json (val_NAME).

    Parameters
    ----------
    task
        The task.
    """
    return "r2" if objective(task) == "regression" else "acc"


def task_score(task: Task | None, outputs: torch.Tensor, labels: torch.Tensor) -> float:
    """The score logged as train_acc / val_acc: accuracy; R^2 (train_r2 / val_r2) for a
    regression task.

    Parameters
    ----------
    task
        The task (None: a classification).
    outputs
        The model's outputs.
    labels
        The batch's labels.
    """
    if objective(task) == "regression":
        return r_squared(outputs.detach().float(), labels.float())
    if objective(task) == "multitask":
        outputs, labels = own_task_logits(outputs, labels, task.n_classes), labels[:, 1]
    return (outputs.argmax(-1) == labels).float().mean().item()
