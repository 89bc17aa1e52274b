"""The checkpoint format: what ``circuitlab train`` saves in a run directory, and reading it back.

A checkpoint (``RUN/checkpoint.pt``, written atomically by ``torch.save``) is a dict:

- ``format_version``: ``CHECKPOINT_VERSION``; a file of another version is refused;
- ``model``: the model's state dict; ``model_config``: its config as a dict; ``model_kind``:
  the name of its kind in ``circuitlab.kinds`` (a NAC, a Neural Interpreter, a Modular Network,
  whose state dict holds the Viterbi EM table ``best_paths``, or a CNN-MLP with Neural
  Function Modules); absent means a NAC (``kinds.DEFAULT``);
- ``train_config``: the run's ``TrainConfig`` as a dict;
- ``optimizer``, ``scheduler``: their state dicts; ``step`` (steps done) and ``elapsed_s``
  (training seconds so far): what ``--resume`` needs to continue the run exactly;
- ``averaged_model`` (only for a run with ``ema_decay``): ``{"weights": state dict, "updates":
  int}``, the moving average of the weights (circuitlab/weight_average.py). A model read from
  such a checkpoint (``model_from_checkpoint``, ``load_model``, ``--init-from``) gets the
  averaged weights; ``model`` keeps the trained ones, which ``--resume`` continues from.

Everything besides the weights is plain data (dicts, lists, numbers, strings), so checkpoints
are read with ``torch.load(weights_only=True)``: a file that pickles other Python objects,
which unpickling would run as code, is refused with a ``ValueError`` before anything of it runs.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import torch

from circuitlab.files import CHECKPOINT as CHECKPOINT  # re-exported: its home before files
from circuitlab.files import checkpoint_file, write_atomic
from circuitlab.kinds import DEFAULT, KINDS, kind_of

__all__ = [
    "CHECKPOINT_VERSION",
    "Model",
    "model_from_checkpoint",
    "model_weights",
    "read_checkpoint",
    "restore_training",
    "save_checkpoint",
]

CHECKPOINT_VERSION = 1  # bump when a checkpoint's contents change meaning

# a model of any kind (circuitlab.kinds): a NAC, a Neural Interpreter, a Modular Network or an
# NFM network, each a torch module
Model = torch.nn.Module


def save_checkpoint(
    path: Path,
    *,
    model: Model,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
    train_config: dict[str, Any],
    step: int,
    elapsed_s: float,
    averaged: dict[str, Any] | None = None,
) -> None:
    """Write the checkpoint of a run at ``step`` to ``path`` (atomically); ``averaged``: the
    ``WeightAverage.state_dict()`` of a run with ``ema_decay``.

    Parameters
    ----------
    path
        The checkpoint file.
    model, optimizer, scheduler
        The run's.
    train_config
        The run's TrainConfig as a dict.
    step, elapsed_s
        Steps done and seconds trained.
    averaged
        As above.
    """
    state = {
        "format_version": CHECKPOINT_VERSION,
        "step": step,
        "elapsed_s": elapsed_s,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "model_config": model.config.to_dict(),
        "model_kind": kind_of(model).name,
        "train_config": train_config,
    }
    if averaged is not None:
        state["averaged_model"] = averaged
    write_atomic(path, lambda tmp: torch.save(state, tmp))


def read_checkpoint(path: str | os.PathLike, device: str | torch.device = "cpu") -> dict[str, Any]:
    """The checkpoint dict of ``path`` (run directory or file), tensors on ``device``; raises
    ``ValueError`` for a file that is not a circuitlab checkpoint or has another version.

    Parameters
    ----------
    path
        A run directory or its checkpoint file.
    device
        Where the tensors are put.
    """
    path = checkpoint_file(path)
    if path.stat().st_size == 0:
        raise ValueError(f"{path} is empty: not a checkpoint; retrain, or resume from a copy")
    try:
        # weights_only: tensors and plain data only; a pickled object that would run code on
        # loading is refused instead (every circuitlab checkpoint is plain data)
        state = torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError as err:
        if "Unsupported global" not in str(err):  # not a disallowed object: a broken file
            raise ValueError(
                f"{path} is corrupt or not a torch file ({str(err)[:200]}); retrain, or resume "
                "from a copy"
            ) from err
        raise ValueError(
            f"{path} holds Python objects besides weights and plain data, which loading would "
            "run as code: circuitlab loads checkpoints with torch.load(weights_only=True) and "
            "refuses it. If you wrote it yourself and trust it, re-save its dict of tensors "
            "and plain values"
        ) from err
    except Exception as err:  # torch raises several types for a corrupt or foreign file
        raise ValueError(
            f"{path} is corrupt or not a torch file ({type(err).__name__}: {str(err)[:200]}); "
            "retrain, or resume from a copy"
        ) from err
    if not isinstance(state, dict) or "model_config" not in state:
        raise ValueError(f"{path} is not a circuitlab checkpoint")
    version = state.get("format_version", 1)
    if version != CHECKPOINT_VERSION:
        raise ValueError(
            f"{path} has checkpoint format {version}; this circuitlab reads format "
            f"{CHECKPOINT_VERSION}: use the circuitlab version that wrote it, or retrain"
        )
    return state


def model_weights(state: dict[str, Any], averaged: bool = True) -> dict[str, torch.Tensor]:
    """The state dict a model is built with: the averaged weights when the checkpoint has them
    and ``averaged`` is true, else the trained ones.

    Parameters
    ----------
    state
        The checkpoint dict (``read_checkpoint``).
    averaged
        As above.
    """
    if averaged and "averaged_model" in state:
        return state["averaged_model"]["weights"]
    return state["model"]


def model_from_checkpoint(state: dict[str, Any], averaged: bool = True) -> Model:
    """The model (a NAC, or the kind the checkpoint names) built from a checkpoint's config,
    with its weights (``model_weights``: the averaged ones where there are) in train mode, on
    the CPU.

    Parameters
    ----------
    state
        The checkpoint dict (``read_checkpoint``).
    averaged
        As ``model_weights`` takes it.
    """
    name = state.get("model_kind", DEFAULT)
    if name not in KINDS:
        raise ValueError(
            f"checkpoint of model kind {name!r}: this circuitlab reads kinds {sorted(KINDS)}"
        )
    kind = KINDS[name]
    model = kind.model_class()(kind.config_class().from_dict(state["model_config"]))
    try:
        model.load_state_dict(model_weights(state, averaged))
    except RuntimeError as err:  # torch's message lists every missing, extra or odd tensor
        raise ValueError(
            f"the checkpoint's weights do not fit the {name!r} model its config builds "
            f"({str(err)[:300]}); the file was edited or mixed from two runs: use an "
            "untouched checkpoint, or retrain"
        ) from err
    return model


def restore_training(
    state: dict[str, Any],
    model: Model,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
) -> tuple[int, float]:
    """Load a checkpoint's weights and optimiser state in place; returns (step, elapsed_s).

    Parameters
    ----------
    state
        The checkpoint dict.
    model, optimizer, scheduler
        The run's, loaded in place.
    """
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    return state["step"], state["elapsed_s"]
