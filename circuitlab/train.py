"""Training: AdamW with warm-up and a cosine (or constant) schedule, an optional moving average
of the weights, metrics CSV, atomic checkpoints, resume.

Every random draw of step t (its batch and the kernel samples) is seeded from (seed, t), so a run
resumed from a checkpoint at step t continues exactly as the uninterrupted run would have.

A run directory holds ``config.json`` (the full TrainConfig), ``metrics.csv`` (one row per step,
validation columns filled at evaluation steps), ``checkpoint.pt`` and, at the end, ``summary.json``.

What a run is (``TrainConfig``) lives in ``circuitlab.run_config``, building and loading models in
``circuitlab.loading``, predictions and scores in ``circuitlab.predict``; their public names are
importable from here too, as they were before they moved.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import torch
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

from circuitlab import distributed
from circuitlab.checkpoint import (
    CHECKPOINT,
    Model,
    model_weights,
    read_checkpoint,
    restore_training,
    save_checkpoint,
)
from circuitlab.files import write_atomic
from circuitlab.loading import build_model, load_model
from circuitlab.mn import ModularNetwork
from circuitlab.mn.training import training_losses
from circuitlab.model import NAC
from circuitlab.nfm import NFMNetwork
from circuitlab.ni import NeuralInterpreter
from circuitlab.predict import (
    batch_metrics,
    evaluate,
    forward_batch,
    objective_loss,
    predict_logits,
    score_name,
    task_score,
    validation_batch,
)
from circuitlab.prior_seeding import seed_signatures_from_prior
from circuitlab.run_config import (
    CONFIG,
    METRICS,
    MODEL_KINDS,
    SPEED_ONLY_FIELDS,
    SUMMARY,
    TOY_MODEL,
    Stage,
    TrainConfig,
    objective,
    step_seed,
    training_stages,
)
from circuitlab.task import Batch, Task
from circuitlab.weight_average import WeightAverage
from circuitlab.worlds.tasks import make_task

# moved to run_config, loading and predict; still importable from here
__all__ = [
    "CONFIG",
    "METRICS",
    "MODEL_KINDS",
    "SUMMARY",
    "TOY_MODEL",
    "Stage",
    "TrainConfig",
    "batch_metrics",
    "build_model",
    "evaluate",
    "forward_batch",
    "load_model",
    "objective",
    "objective_loss",
    "predict_logits",
    "score_name",
    "step_seed",
    "task_score",
    "train",
    "training_stages",
    "validation_batch",
]

METRIC_COLUMNS = [
    "step",
    "lr",
    "loss",
    "task_loss",
    "structure_loss",
    "train_acc",
    "val_loss",
    "val_acc",
    "elapsed_s",
]


def metric_columns(task: Task, model: Model | None = None) -> list[str]:
    """metrics.csv's columns for ``task``: METRIC_COLUMNS, with r2 for acc on a regression,
    then the model's own (``metric_names``: a Modular Network's h_a, h_b)."""
    name = score_name(task)
    columns = [c.replace("_acc", f"_{name}") for c in METRIC_COLUMNS]
    return columns + list(getattr(model, "metric_names", ()))


def parameter_groups(model: Model, lr: float, signature_lr_scale: float) -> list[dict[str, Any]]:
    """AdamW groups: the trainable signature parameters at ``lr * signature_lr_scale``, the
    rest at ``lr`` (an empty group is left out). At scale 1, one group, as checkpoints from
    before the option hold."""
    if signature_lr_scale == 1.0:
        return [{"params": [p for p in model.parameters() if p.requires_grad], "lr": lr}]
    if isinstance(model, ModularNetwork | NFMNetwork):
        raise ValueError(
            f"a {type(model).__name__} has no signatures: leave signature_lr_scale at 1"
        )
    source = (
        model.signature_parameters()
        if isinstance(model, NeuralInterpreter)
        else model.generator.signature_parameters()
    )
    signatures = [p for p in source if p.requires_grad]
    chosen = {id(p) for p in signatures}
    rest = [p for p in model.parameters() if p.requires_grad and id(p) not in chosen]
    groups = [{"params": rest, "lr": lr}, {"params": signatures, "lr": lr * signature_lr_scale}]
    return [g for g in groups if g["params"]]


# Buffers a model builds from its config and never trains: a fixed kernel width (``eps``,
# ``log_eps`` when ``learn_eps`` is off), a Neural Interpreter's fixed ``sigma`` and a graph
# prior's target. A warm start with options that set them differently trains at this run's.
CONFIG_BUFFERS = ("log_eps", "log_sigma", "target")


def warm_start(model: Model, path: str | os.PathLike, device: torch.device | str) -> None:
    """Load the weights of the checkpoint at ``path`` into ``model``; a clear error names the
    options that differ when the checkpoint holds another architecture. Parameters the
    checkpoint lacks (an option that adds some, such as ``read_in: {weights: sigmoid}``) keep
    their initialisation, with a warning that names them; anything else that does not fit (a
    parameter of another shape, or one this model lacks) is refused. Buffers set from the
    config (``CONFIG_BUFFERS``: a fixed ``eps``, ...) keep this run's values where its options
    differ from the checkpoint's, with a warning that names them."""
    state = read_checkpoint(path, device)
    asked = _dotted(model.config.to_dict())
    saved = _dotted(_as_current_options(type(model.config), state["model_config"]))
    differ = {k: (saved.get(k), v) for k, v in asked.items() if k in saved and saved[k] != v}
    from_config = {
        name: value.detach().clone()
        for name, value in model.named_buffers()
        if name.rsplit(".", 1)[-1] in CONFIG_BUFFERS
    }
    try:
        missing, unexpected = model.load_state_dict(model_weights(state), strict=False)
        if unexpected:
            raise RuntimeError(f"parameters this model lacks: {unexpected}")
    except RuntimeError as err:
        raise ValueError(
            f"init_from {path}: its model does not fit this run's (options that differ, "
            f"checkpoint vs this run: {differ}); build the same model to warm-start from it"
        ) from err
    if missing:
        warnings.warn(
            f"init_from {path}: {len(missing)} parameter(s) not in the checkpoint keep their "
            f"initialisation ({', '.join(missing)}; options that differ: {differ})",
            stacklevel=2,
        )
    if differ:
        buffers = dict(model.named_buffers())
        kept = [
            name for name, value in from_config.items() if not torch.equal(value, buffers[name])
        ]
        with torch.no_grad():
            for name in kept:
                buffers[name].copy_(from_config[name])
        if kept:
            warnings.warn(
                f"init_from {path}: buffers set by this run's options keep its values, not "
                f"the checkpoint's: {', '.join(kept)} (options that differ: {differ})",
                stacklevel=2,
            )


def _as_current_options(config_class: type, saved: dict) -> dict:
    """A checkpoint's model options as this version writes them: grouped, and an option newer
    than the checkpoint at its default. Options this version no longer has are kept as they
    are (they then differ from nothing)."""
    try:
        return config_class.from_dict(saved).to_dict()
    except (ValueError, TypeError):
        return saved


def _dotted(options: dict, prefix: str = "") -> dict:
    """``{"kernel": {"eps": 0.2}}`` as ``{"kernel.eps": 0.2}`` (a group's fields one by one,
    so the options that differ name the field)."""
    flat = {}
    for name, value in options.items():
        if isinstance(value, dict) and name != "prior_params":
            flat.update(_dotted(value, f"{prefix}{name}."))
        else:
            flat[f"{prefix}{name}"] = value
    return flat


def make_optimizer(model: Model, config: TrainConfig) -> torch.optim.Optimizer:
    """The run's AdamW (or RAdam, ``config.optimizer``, its weight decay decoupled as AdamW's):
    ``config.lr`` and weight decay, signatures at ``signature_lr_scale``."""
    groups = parameter_groups(model, config.lr, config.signature_lr_scale)
    if config.optimizer == "radam":
        return torch.optim.RAdam(
            groups, lr=config.lr, weight_decay=config.weight_decay, decoupled_weight_decay=True
        )
    return torch.optim.AdamW(groups, lr=config.lr, weight_decay=config.weight_decay)


def forward_losses(
    net: torch.nn.Module, model: Model, task: Task | None, batch: Batch
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One training forward of a NAC, Neural Interpreter or NFM network (not a Modular Network,
    whose E-step has its own): (outputs (B, n_classes or targets), task loss, structure loss).
    ``net`` is ``model`` itself or a wrapper of it (torch.compile, DDP) that runs the forward;
    the structure loss (the model's regularisers) is read off ``model``."""
    logits, circuit, _ = forward_batch(net, batch, return_circuit=True)
    structure = model.structure_loss(circuit)
    penalties = getattr(model.config, "penalties", None)  # a NAC's; other kinds have none
    if penalties is not None and penalties.logic_contrast_weight > 0:
        if batch.contrast is None:
            raise ValueError(
                "penalties.logic_contrast_weight > 0 needs training batches with contrast "
                "sentences: the pairs task with contrast_per_batch > 0 (-t contrast_per_batch=16)"
            )
        structure = structure + model.logic_contrast_loss(batch.contrast, batch.contrast_mask)
    return logits, objective_loss(task, logits, batch.labels), structure


def optimizer_step(
    model: Model, optimizer: torch.optim.Optimizer, loss: torch.Tensor, grad_clip: float | None
) -> None:
    """Backward ``loss``, clip ``model``'s gradient norm to ``grad_clip`` (None: no clipping),
    step ``optimizer``."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if grad_clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()


def cosine_with_warmup(step: int, warmup: int, total: int) -> float:
    """Learning-rate factor: linear warm-up to 1, then cosine decay to 0 at ``total``."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def constant_with_warmup(step: int, warmup: int, total: int) -> float:
    """Learning-rate factor: linear warm-up to 1, then 1 (``total`` unused)."""
    return (step + 1) / warmup if step < warmup else 1.0


LR_SCHEDULES = {"cosine": cosine_with_warmup, "constant": constant_with_warmup}


class _MetricsLog:
    """metrics.csv, appended one row per step; rows past a resumed checkpoint are dropped."""

    def __init__(self, path: Path, resume_step: int, columns: list[str]) -> None:
        self.path = path
        rows = []
        if resume_step > 0 and path.exists():
            with path.open() as f:
                rows = [r for r in csv.DictReader(f) if int(r["step"]) <= resume_step]

        def rewrite(tmp: Path) -> None:
            with tmp.open("w", newline="") as f:
                writer = csv.DictWriter(f, columns)
                writer.writeheader()
                writer.writerows(rows)

        write_atomic(path, rewrite)
        self.file = path.open("a", newline="")
        self.writer = csv.DictWriter(self.file, columns)

    def append(self, row: dict[str, Any]) -> None:
        self.writer.writerow(row)
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class _StopOnInterrupt:
    """Turns Ctrl-C (SIGINT) into a request to stop after the current step, so that the step
    is logged and checkpointed whole. A second Ctrl-C stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _check_run_dir(config: TrainConfig, run_dir: Path, resume: bool) -> None:
    """Refuse to clobber a run, or to resume one with other options."""
    checkpoint_path = run_dir / CHECKPOINT
    if resume:
        if not checkpoint_path.is_file():
            raise FileNotFoundError(f"--resume: no checkpoint at {checkpoint_path}")
        # fields added since the run started take their defaults; speed-only ones may differ
        saved_values = json.loads((run_dir / CONFIG).read_text())
        saved = dataclasses.asdict(TrainConfig.from_dict(saved_values))
        asked = dataclasses.asdict(config)
        for name in SPEED_ONLY_FIELDS:
            saved.pop(name)
            asked.pop(name)
        if saved != asked:
            diff = {k: (saved.get(k), v) for k, v in asked.items() if saved.get(k) != v}
            raise ValueError(f"--resume with options that differ from {run_dir / CONFIG}: {diff}")
    elif checkpoint_path.exists():
        raise FileExistsError(
            f"{run_dir} already holds a run; pass --resume to continue it or pick another --out"
        )


@dataclasses.dataclass
class _Run:
    """What a training run holds between steps."""

    task: Task
    model: Model
    net: torch.nn.Module  # what the step runs: the model, wrapped for DDP or compiled
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LambdaLR
    average: WeightAverage | None
    start_step: int
    elapsed_before: float


def _set_up(
    config: TrainConfig, run_dir: Path, resume: bool, rank: Any, device: torch.device
) -> _Run:
    """The task, the model (resumed, warm-started or seeded from its prior), its optimiser and
    schedule; writes the run's config.json on rank 0."""
    task = make_task(config.task, conditional=config.conditional, **config.task_options)
    torch.manual_seed(config.seed)
    model = build_model(config, task).to(device)
    if isinstance(model, ModularNetwork) and (rank.distributed or config.compile):
        raise ValueError(
            "a Modular Network trains in one eager process (its E-step updates a table): "
            "run it without torchrun and without --compile"
        )
    if rank.is_main:  # only a config that builds a model gets a run directory
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / CONFIG).write_text(json.dumps(dataclasses.asdict(config), indent=2))
    net = DistributedDataParallel(model) if rank.distributed else model
    if config.compile:
        net = torch.compile(net)  # checkpoints and evaluation keep using the plain model
    optimizer = make_optimizer(model, config)
    schedule = LR_SCHEDULES[config.lr_schedule]
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: schedule(s, config.warmup_steps, config.steps)
    )
    start_step, elapsed_before, state = 0, 0.0, None
    if resume:
        state = read_checkpoint(run_dir, device)
        start_step, elapsed_before = restore_training(state, model, optimizer, scheduler)
    elif config.init_from is not None:
        warm_start(model, config.init_from, device)
    elif isinstance(model, NAC) and model.config.prior_fit.seed_steps:
        seed_signatures_from_prior(model, model.config.prior_fit.seed_steps)
    average = None if config.ema_decay is None else WeightAverage(model, config.ema_decay)
    if average is not None and state is not None:
        average.load_state_dict(state["averaged_model"])
    return _Run(task, model, net, optimizer, scheduler, average, start_step, elapsed_before)


def _step(
    run: _Run, config: TrainConfig, batch: Batch, step: int
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor, torch.Tensor], dict[str, float]]:
    """One optimisation step: the logits, (loss, task loss, structure loss) and the model's
    extra metrics (a Modular Network's E-step)."""
    extra: dict[str, float] = {}
    if isinstance(run.model, ModularNetwork):
        losses = training_losses(run.model, batch, step)
        logits, task_loss, structure_loss = losses.outputs, losses.task_loss, losses.structure_loss
        extra = losses.metrics
    else:
        logits, task_loss, structure_loss = forward_losses(run.net, run.model, run.task, batch)
    loss = task_loss + structure_loss
    optimizer_step(run.model, run.optimizer, loss, config.grad_clip)
    run.scheduler.step()
    if run.average is not None:
        run.average.update(run.model)
    return logits, (loss, task_loss, structure_loss), extra


def _metrics_row(
    done: int, lr: float, means: list[float], name: str, extra: dict[str, float]
) -> dict[str, str]:
    """metrics.csv's row of step ``done`` (validation columns left empty)."""
    return {
        "step": done,
        "lr": f"{lr:.6g}",
        "loss": f"{means[0]:.6f}",
        "task_loss": f"{means[1]:.6f}",
        "structure_loss": f"{means[2]:.6f}",
        f"train_{name}": f"{means[3]:.4f}",
        "val_loss": "",
        f"val_{name}": "",
        **{key: f"{value:.4f}" for key, value in extra.items()},
    }


def _save(run: _Run, config: TrainConfig, run_dir: Path, done: int, elapsed: float) -> None:
    save_checkpoint(
        run_dir / CHECKPOINT,
        model=run.model,
        optimizer=run.optimizer,
        scheduler=run.scheduler,
        train_config=dataclasses.asdict(config),
        step=done,
        elapsed_s=elapsed,
        averaged=None if run.average is None else run.average.state_dict(),
    )


def _summary(
    config: TrainConfig,
    model: Model,
    name: str,
    validation: tuple[float, float],
    wall_time: float,
    device: torch.device,
    rank: Any,
) -> dict[str, Any]:
    """summary.json's fields but the parameter checksums: the task, the last validation, the
    time, the model's size and where it ran."""
    return {
        "task": config.task,
        "conditional": config.conditional,
        "steps": config.steps,
        "val_loss": validation[0],
        f"val_{name}": validation[1],
        "wall_time_s": round(wall_time, 2),
        "parameters": model.n_parameters(),
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        "world_size": rank.world_size,
    }


def train(
    config: TrainConfig,
    run_dir: str | os.PathLike,
    *,
    resume: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Train (or resume) a NAC on ``config.task``; returns the summary written to summary.json.

    Under torchrun every process calls this; rank 0 alone writes the run directory.

    Parameters
    ----------
    config
        The run's config.
    run_dir
        Where the run writes config.json, checkpoint.pt, metrics.csv and summary.json.
    resume
        Go on from ``run_dir``'s checkpoint; ``config`` must be the run's (``compile`` aside).
    progress
        Show a progress bar.

    Raises
    ------
    FileNotFoundError
        ``resume`` without a checkpoint in ``run_dir``.
    FileExistsError
        ``run_dir`` holds a run and ``resume`` is off.
    ValueError
        ``resume`` with options that differ from the run's (they are named).
    """
    run_dir = Path(run_dir)
    _check_run_dir(config, run_dir, resume)
    rank, device = distributed.start(config.device)
    run = _set_up(config, run_dir, resume, rank, device)
    started = time.perf_counter()
    validation, checksums = _train_steps(run, config, run_dir, rank, device, progress)
    wall_time = run.elapsed_before + time.perf_counter() - started
    name = score_name(run.task)
    summary = _summary(config, run.model, name, validation, wall_time, device, rank)
    summary["parameter_checksums"] = checksums
    if rank.is_main:
        (run_dir / SUMMARY).write_text(json.dumps(summary, indent=2))
    return summary


def _train_steps(
    run: _Run,
    config: TrainConfig,
    run_dir: Path,
    rank: distributed.Rank,
    device: torch.device,
    progress: bool,
) -> tuple[tuple[float, float], list]:
    """The run's steps from ``run.start_step`` to ``config.steps``: metrics logged, validated
    and checkpointed on schedule, a checkpoint saved on Ctrl-C (then KeyboardInterrupt).
    Returns the last validation (loss, score) and the parameters' checksums over ranks."""
    model, task, average = run.model, run.task, run.average
    scored = model if average is None else average.model  # what validation and summary read
    rows = distributed.shard(config.batch_size, rank)
    log = (
        _MetricsLog(run_dir / METRICS, run.start_step, metric_columns(task, model))
        if rank.is_main
        else None
    )
    started = time.perf_counter()
    bar = tqdm(
        range(run.start_step, config.steps),
        initial=run.start_step,
        total=config.steps,
        disable=not (progress and rank.is_main),
        desc="train",
        mininterval=1.0,
    )
    val_loss = val_acc = float("nan")  # val_acc holds R^2 for a regression task
    name = score_name(task)
    model.train()
    stop = _StopOnInterrupt()
    try:
        for step in bar:
            torch.manual_seed(step_seed(config.seed, step) + rank.rank)
            batch = task.sample(config.batch_size, seed=step_seed(config.seed, step))
            batch = batch.rows(rows).to(device)
            logits, losses, extra = _step(run, config, batch, step)
            done = step + 1
            means = distributed.mean_over_ranks(
                [*(x.item() for x in losses), task_score(task, logits, batch.labels)],
                rank,
                device,
            )
            if not rank.is_main:
                if stop.requested:
                    raise KeyboardInterrupt
                continue
            row = _metrics_row(done, run.scheduler.get_last_lr()[0], means, name, extra)
            if done % config.eval_every == 0 or done == config.steps:
                val_loss, val_acc = evaluate(scored, task, config, device)
                row.update({"val_loss": f"{val_loss:.6f}", f"val_{name}": f"{val_acc:.4f}"})
            elapsed = run.elapsed_before + time.perf_counter() - started
            row["elapsed_s"] = f"{elapsed:.2f}"
            log.append(row)
            bar.set_postfix({"loss": f"{means[0]:.3f}", f"val_{name}": f"{val_acc:.3f}"})
            if done % config.checkpoint_every == 0 or done == config.steps or stop.requested:
                _save(run, config, run_dir, done, elapsed)
            if stop.requested:
                message = f"interrupted: checkpoint saved at step {done}; continue with --resume"
                tqdm.write(message, file=sys.stderr)
                raise KeyboardInterrupt
        checksums = distributed.parameter_checksums(model, rank)
    finally:
        stop.restore()
        bar.close()
        if log is not None:
            log.close()
        distributed.stop(rank)
    return (val_loss, val_acc), checksums
