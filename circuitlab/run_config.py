"""What a training run is: ``TrainConfig`` (every option a run depends on, saved as its
config.json), the model kinds, the files of a run directory, and reading a run's chain of
warm starts back. Nothing here trains; ``circuitlab.train`` does."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from circuitlab.config_fields import check_fields, check_ranges, from_dict
from circuitlab.config_groups import nest_flat_names
from circuitlab.kinds import DEFAULT, KINDS, model_kind, nac
from circuitlab.task import Task
from circuitlab.weight_average import check_decay

__all__ = [
    "MODEL_KINDS",
    "SPEED_ONLY_FIELDS",
    "Stage",
    "TOY_MODEL",
    "TrainConfig",
    "objective",
    "step_seed",
    "training_stages",
]

# the learning-rate schedules circuitlab.train implements
LR_SCHEDULE_NAMES = ("cosine", "constant")

CONFIG, METRICS, SUMMARY = "config.json", "metrics.csv", "summary.json"


# the model kinds a run may train (circuitlab.kinds): a NAC, a Neural Interpreter
# (circuitlab.ni), a Modular Network (circuitlab.mn) or a CNN-MLP with Neural Function Modules
# (circuitlab.nfm)
MODEL_KINDS = tuple(KINDS)


# Compact defaults for the toy task: trains to >= 95 % in a few minutes on 2 CPU cores.
TOY_MODEL = dict(
    n_processors=16,
    n_readouts=2,
    dim=64,
    depth=2,
    heads=4,
    head_dim=16,
    code_dim=32,
    sig_dim=16,
    generator={"dim": 64},
)


OPTIMIZERS = ("adamw", "radam")


@dataclass
class TrainConfig:
    """Everything a training run depends on; saved as config.json in the run directory.

    Parameters
    ----------
    task
        The task's name (``circuitlab.worlds.tasks.TASKS``: "toy-sets", "nlvr", "pairs", ...).
    conditional
        Train a conditional model: one circuit per input, generated from its sentence or
        conditioning tokens.
    task_options
        The task's own options (its class's keyword arguments).
    steps
        Optimiser steps.
    batch_size
        Examples per step.
    lr
        The peak learning rate (reached after ``warmup_steps``).
    signature_lr_scale
        The signatures' learning rate is lr times this: at 1 a NAC's graph barely leaves its
        random start in a short run (docs/experiments.md, "The paper's claims").
    weight_decay
        Decoupled weight decay.
    optimizer
        "adamw" or "radam" (RAdam with decoupled weight decay: the Neural Interpreters
        paper's).
    warmup_steps
        Steps of linear warm-up from 0 to ``lr``.
    lr_schedule
        After warm-up the learning rate decays to 0 at ``steps`` ("cosine") or stays at lr
        ("constant", for a run whose weights are averaged: see ema_decay).
    ema_decay
        Keep an exponential moving average of the weights with this decay per step (0.999
        spans about 1,000 steps): validation, the checkpoint's model and everything that
        reads it (export, --init-from, the benches) then use the averaged weights; None: no
        average.
    grad_clip
        The gradient's norm is clipped to this; None: no clipping (0 is refused, not read as
        "off").
    eval_every
        Steps between validations.
    eval_size
        Validation examples per validation.
    checkpoint_every
        Steps between checkpoints (the run resumes from the last).
    seed
        Seed of the model's initialisation, the batches and the kernel's samples.
    device
        "auto" (CUDA when present, else CPU) or a torch device name ("cpu", "cuda:1").
    compile
        ``torch.compile`` the training forward pass: the first step compiles (about a minute on
        2 CPU cores), later ones run faster (bench/nac_vs_pio.py --compile). Same maths, but
        compiled code draws the kernel samples from its own random stream, so its numbers
        differ from an eager run's. A run may be resumed with it switched either way.
    init_from
        A checkpoint (file or run directory) whose model weights start this run: a warm
        start, with a fresh optimiser and schedule (to train a model further, or fine-tune
        it). The model options must build the same architecture.
    model_kind
        The model's kind, a name in ``circuitlab.kinds.KINDS``.
    model
        The model's options: the fields of its kind's config (``NACConfig`` for "nac"),
        those the task sets left out.
    """

    task: str = "toy-sets"
    conditional: bool = False
    task_options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3000
    batch_size: int = 64
    lr: float = 1e-3
    signature_lr_scale: float = 1.0
    weight_decay: float = 0.01
    optimizer: str = "adamw"
    warmup_steps: int = 100
    lr_schedule: str = "cosine"
    ema_decay: float | None = None
    grad_clip: float | None = 1.0
    eval_every: int = 100
    eval_size: int = 1024
    checkpoint_every: int = 100
    seed: int = 0
    device: str = "auto"
    compile: bool = False
    init_from: str | None = None
    model_kind: str = DEFAULT
    model: dict[str, Any] = field(default_factory=lambda: dict(TOY_MODEL))

    def __post_init__(self) -> None:
        check_fields(self)
        check_ranges(self, lr="positive")
        if self.grad_clip is not None and self.grad_clip <= 0:
            raise ValueError(
                f"TrainConfig.grad_clip must be > 0 (the largest gradient norm kept), got "
                f"{self.grad_clip}; for no clipping set grad_clip: null in a config (None)"
            )
        check_ranges(self, weight_decay="non-negative", warmup_steps="non-negative")
        for name in ("steps", "batch_size", "eval_every", "eval_size", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.signature_lr_scale <= 0:
            raise ValueError(f"signature_lr_scale must be > 0, got {self.signature_lr_scale}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if self.lr_schedule not in LR_SCHEDULE_NAMES:
            raise ValueError(
                f"lr_schedule must be one of {list(LR_SCHEDULE_NAMES)}, got {self.lr_schedule!r}"
            )
        if self.ema_decay is not None:
            check_decay(self.ema_decay)
        if self.model_kind not in KINDS:
            raise ValueError(f"model_kind must be one of {tuple(KINDS)}, got {self.model_kind!r}")
        if self.model_kind == nac.NAME:  # a NAC's options in groups, however they were written
            self.model = nest_flat_names(self.model)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> TrainConfig:
        return from_dict(cls, values)

    def model_config(self, task: Task) -> Any:
        """The model's config (its kind's config class, ``circuitlab.kinds``): the task fixes
        inputs, classes and conditioning, ``model`` the rest. ValueError when the task is made
        for other kinds, or does not fit this one."""
        kinds = getattr(task, "model_kinds", None)  # a task made for some kinds only
        if kinds is not None and self.model_kind not in kinds:
            raise ValueError(
                f"task {task.name!r} trains model_kind {' or '.join(kinds)}, not "
                f"{self.model_kind!r}: set model_kind in the config (CLI: --model-kind)"
            )
        return model_kind(self.model_kind).build_config(self.model, task)


SPEED_ONLY_FIELDS = ("compile",)  # TrainConfig fields that change no number of a run


def objective(task: Task | None) -> str:
    """ "classification" (cross-entropy, accuracy; also for no task), "regression" (MSE, R^2,
    one target per output: fuzzy-boolean) or "multitask" (labels (B, 2) of task and class;
    cross-entropy and accuracy of each example's own task's outputs: digit-renditions).

    Parameters
    ----------
    task
        The task, or None.
    """
    return getattr(task, "objective", "classification")


def step_seed(seed: int, step: int) -> int:
    """The seed of every random draw at ``step`` of a run seeded ``seed``.

    Parameters
    ----------
    seed
        The run's seed.
    step
        The step.
    """
    return (seed * 1_000_003 + step) % (2**63)


@dataclass(frozen=True)
class Stage:
    """One run of a chain of ``--init-from`` runs: its directory, its config.json and its
    summary.json (None while it has not finished).

    Parameters
    ----------
    run_dir
        The stage's run directory.
    config
        Its config.json, parsed.
    summary
        Its summary.json, parsed; None while it has not finished.
    """

    run_dir: Path
    config: dict[str, Any]
    summary: dict[str, Any] | None


def training_stages(run_dir: str | os.PathLike) -> list[Stage]:
    """How ``run_dir`` was trained: the runs it was warm-started from (``init_from``, a run
    directory or its checkpoint file), followed back to one trained from scratch, oldest first,
    ``run_dir`` last. FileNotFoundError names a stage whose run is not there.

    Parameters
    ----------
    run_dir
        The run directory.
    """
    stages: list[Stage] = []
    path: Path | None = Path(run_dir)
    while path is not None:
        run = path.parent if path.suffix == ".pt" else path
        if not (run / CONFIG).is_file():
            named_by = f" (init_from of {stages[0].run_dir})" if stages else ""
            raise FileNotFoundError(f"{run}{named_by} holds no {CONFIG}: not a run directory")
        if any(stage.run_dir.resolve() == run.resolve() for stage in stages):
            raise ValueError(f"{run} warm-starts from itself through init_from: a loop")
        config = json.loads((run / CONFIG).read_text())
        summary = json.loads((run / SUMMARY).read_text()) if (run / SUMMARY).is_file() else None
        stages.insert(0, Stage(run, config, summary))
        path = Path(config["init_from"]) if config.get("init_from") else None
    return stages
