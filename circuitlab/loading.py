"""Build a run's model, or load a trained one from its checkpoint (no training code)."""

from __future__ import annotations

import os

from circuitlab.checkpoint import model_from_checkpoint, read_checkpoint
from circuitlab.mn import MNConfig, ModularNetwork
from circuitlab.model import NAC
from circuitlab.nfm import NFMConfig, NFMNetwork
from circuitlab.ni import NeuralInterpreter, NIConfig
from circuitlab.run_config import Model, TrainConfig
from circuitlab.tasks import Task


def build_model(config: TrainConfig, task: Task) -> Model:
    """The untrained model a run of ``config`` on ``task`` trains."""
    model_config = config.model_config(task)
    if isinstance(model_config, NIConfig):
        return NeuralInterpreter(model_config)
    if isinstance(model_config, MNConfig):
        return ModularNetwork(model_config)
    if isinstance(model_config, NFMConfig):
        return NFMNetwork(model_config)
    return NAC(model_config)


def load_model(
    path: str | os.PathLike, device: str = "cpu", averaged: bool = True
) -> tuple[NAC, TrainConfig]:
    """The model of a run's latest checkpoint (``path``: the run directory or its
    checkpoint.pt), in eval mode, with the run's TrainConfig. A run trained with ``ema_decay``
    gives its averaged weights, or with ``averaged=False`` the trained ones."""
    state = read_checkpoint(path, device)
    model = model_from_checkpoint(state, averaged)
    return model.to(device).eval(), TrainConfig.from_dict(state["train_config"])
