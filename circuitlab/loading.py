"""Build a run's model, or load a trained one from its checkpoint, with its task (no training
code)."""

from __future__ import annotations

import os

from circuitlab.checkpoint import Model, model_from_checkpoint, read_checkpoint
from circuitlab.kinds import model_kind
from circuitlab.run_config import TrainConfig
from circuitlab.task import Task

__all__ = ["build_model", "load_model", "tiny_task"]


def build_model(config: TrainConfig, task: Task) -> Model:
    """The untrained model a run of ``config`` on ``task`` trains, of its ``model_kind``.

    Parameters
    ----------
    config
        The run's config: its ``model_kind`` and model options.
    task
        The task, which fixes inputs, outputs and conditioning.
    """
    return model_kind(config.model_kind).model_class()(config.model_config(task))


def load_model(
    path: str | os.PathLike, device: str = "cpu", averaged: bool = True
) -> tuple[Model, TrainConfig]:
    """The model of a run's latest checkpoint (``path``: the run directory or its
    checkpoint.pt), in eval mode, with the run's TrainConfig. A run trained with ``ema_decay``
    gives its averaged weights, or with ``averaged=False`` the trained ones.

    Parameters
    ----------
    path
        A run directory or its checkpoint.pt.
    device
        Where the model is put.
    averaged
        The averaged weights of a run trained with ``ema_decay`` (False: the trained ones).

    Raises
    ------
    FileNotFoundError
        No checkpoint at ``path``.
    """
    state = read_checkpoint(path, device)
    model = model_from_checkpoint(state, averaged)
    return model.to(device).eval(), TrainConfig.from_dict(state["train_config"])


def tiny_task(config: TrainConfig) -> Task:
    """The task of a run of ``config`` with tiny sentence pools (the task's ``TINY_OPTIONS``):
    enough to encode sentences and batch scenes as the run did, in a fraction of the time its
    full pools take.

    Parameters
    ----------
    config
        The run's config: its task, task options and conditioning.
    """
    from circuitlab.worlds.tasks import TASKS, make_task

    tiny = getattr(TASKS[config.task], "TINY_OPTIONS", {})
    options = {**config.task_options, **tiny}
    return make_task(config.task, conditional=config.conditional, **options)
