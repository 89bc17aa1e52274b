"""Adapting a pre-trained Neural Interpreter to new outputs, and changing its functions.

``adapt`` gives the model new CLS tokens (one per new output) and trains a chosen part of it
(``ADAPT_SETTINGS``), as the paper's fuzzy Boolean recomposition experiment does:

- ``cls``: only the new CLS tokens (and, with ``add_functions``, the new functions' codes);
- ``cls+types``: also the type-matching parameters of every script, what routes tokens to
  functions: the type inference, the function signatures (unless the model keeps them frozen)
  and the kernel's width sigma (when it learns);
- ``all``: every parameter (signatures too, unless frozen).

A regression task (fuzzy Boolean) gets one new CLS token per output and the squared error; a
classification task one new CLS token whose outputs are the classes, and the cross-entropy
(``ExampleSet`` makes a fixed few-shot support set a task).

At test time, nothing retrained: ``without_functions`` drops functions from every script (how
gracefully it degrades, Fig. 5c), ``without_scripts`` drops whole scripts (a ViT's blocks:
digits-vit.yaml), ``with_iterations`` runs each script a number of times other than trained
(Fig. 8); ``with_destroyed_functions`` redraws every function's signature and code, the
control of Fig. 6 (adapting it tells what the pre-trained functions were worth).
"""

from __future__ import annotations

import copy
import math
import random

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from circuitlab.ni.model import NeuralInterpreter
from circuitlab.run_config import objective
from circuitlab.task import Batch, Task, sample_rows
from circuitlab.worlds.tasks.boolean import r_squared

__all__ = [
    "ADAPT_SETTINGS",
    "ExampleSet",
    "accuracy_on",
    "adapt",
    "r_squared_on",
    "with_destroyed_functions",
    "with_iterations",
    "without_functions",
    "without_scripts",
]

ADAPT_SETTINGS = ("cls", "cls+types", "all")


def type_matching_parameters(model: NeuralInterpreter) -> list[torch.Tensor]:
    """Every script's type inference, its signatures (unless frozen) and its kernel's sigma
    (when it learns): the parameters that decide which function a token goes to."""
    chosen = []
    for script in model.scripts:
        chosen += list(script.type_inference.parameters())
        if not model.config.frozen_signatures:
            chosen.append(script.signatures)
        if isinstance(script.kernel.log_sigma, nn.Parameter):
            chosen.append(script.kernel.log_sigma)
    return chosen


def _trainable(model: NeuralInterpreter, setting: str, add_functions: int) -> list[torch.Tensor]:
    if setting == "all":
        frozen = model.config.frozen_signatures
        return [p for name, p in model.named_parameters() if not (frozen and "signatures" in name)]
    chosen = [model.cls_tokens]
    if add_functions:
        chosen += [script.codes for script in model.scripts]
    if setting == "cls+types":
        chosen += type_matching_parameters(model)
    return chosen


def _keep_old_rows(parameter: torch.Tensor, n_old: int) -> torch.utils.hooks.RemovableHandle:
    """Zero the gradient of rows [0, n_old): only the functions added later learn."""

    def hook(grad: torch.Tensor) -> torch.Tensor:
        grad = grad.clone()
        grad[:n_old] = 0.0
        return grad

    return parameter.register_hook(hook)


def adapt(
    model: NeuralInterpreter,
    task: Task,
    *,
    setting: str = "cls",
    steps: int = 1000,
    batch_size: int = 64,
    lr: float = 1e-3,
    seed: int = 0,
    add_functions: int = 0,
    optimizer: str = "adam",
    progress: bool = True,
) -> list[float]:
    """Train ``model`` in place on ``task`` with Adam (or ``optimizer="radam"``) at ``lr``,
    cosine to 0; returns the training loss of every step. A regression task gets one new CLS
    token per output (squared error), a classification task one new CLS token whose outputs
    are its classes (cross-entropy; the model's ``n_outputs`` must cover them).
    ``add_functions`` new functions join every script first (their codes learn in every
    setting; old functions' codes only in ``all``).

    Parameters
    ----------
    model, task
        The interpreter (trained in place) and the task it adapts to.
    setting, add_functions
        What is trained (``ADAPT_SETTINGS``), and new functions, as above.
    steps, batch_size, lr, optimizer
        The adaptation's steps, examples per step, learning rate and optimiser.
    seed, progress
        Seed of the batches and the new parameters; a progress bar.
    """
    if setting not in ADAPT_SETTINGS:
        raise ValueError(f"setting must be one of {ADAPT_SETTINGS}, got {setting!r}")
    if optimizer not in ("adam", "radam"):
        raise ValueError(f"optimizer must be 'adam' or 'radam', got {optimizer!r}")
    regression = objective(task) == "regression"
    if not regression and task.n_classes > model.config.n_outputs:
        raise ValueError(
            f"task {task.name!r} has {task.n_classes} classes; the model reads "
            f"{model.config.n_outputs} outputs per CLS token"
        )
    model.set_cls_tokens(task.n_outputs if regression else 1)
    loss_of = F.mse_loss if regression else F.cross_entropy
    hooks = []
    for script in model.scripts:
        if add_functions:
            n_old = script.n_functions
            script.add_functions(add_functions)
            if setting != "all":
                hooks.append(_keep_old_rows(script.codes, n_old))
    chosen = _trainable(model, setting, add_functions)
    chosen_ids = {id(p) for p in chosen}
    trainable_before = {id(p): p.requires_grad for p in model.parameters()}
    for p in model.parameters():
        p.requires_grad_(id(p) in chosen_ids)
    step_rule = (torch.optim.RAdam if optimizer == "radam" else torch.optim.Adam)(chosen, lr=lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        step_rule, lambda s: 0.5 * (1 + math.cos(math.pi * s / steps))
    )
    model.train()
    losses = []
    for step in tqdm(range(steps), desc=f"adapt {setting}", disable=not progress):
        torch.manual_seed(seed * 1_000_003 + step)
        batch = task.sample(batch_size, seed=seed * 1_000_003 + step)
        loss = loss_of(model(batch.inputs), batch.labels)
        step_rule.zero_grad(set_to_none=True)
        loss.backward()
        step_rule.step()
        schedule.step()
        losses.append(loss.item())
    for p in model.parameters():  # what was trainable before stays so (new parameters are)
        p.requires_grad_(trainable_before.get(id(p), True))
    for hook in hooks:
        hook.remove()
    model.eval()
    return losses


@torch.no_grad()
def r_squared_on(model: NeuralInterpreter, task: Task, n: int = 4096, seed: int = 0) -> float:
    """R^2 of ``model`` on ``n`` of ``task``'s validation examples.

    Parameters
    ----------
    model
        The interpreter.
    task
        A regression task.
    n
        Validation examples.
    seed
        Seed of the examples.
    """
    model.eval()
    batch = task.validation(n, seed)
    return r_squared(model(batch.inputs), batch.labels)


@torch.no_grad()
def accuracy_on(model: NeuralInterpreter, batch: Batch, chunk: int = 512) -> float:
    """Accuracy of ``model``'s outputs (B, n_classes) on ``batch``'s labels (B,).

    Parameters
    ----------
    model
        The interpreter.
    batch
        The examples.
    chunk
        Examples per forward pass.
    """
    model.eval()
    hits = 0
    for start in range(0, len(batch), chunk):
        part = batch.rows(slice(start, start + chunk))
        hits += int((model(part.inputs).argmax(-1) == part.labels).sum())
    return hits / len(batch)


class ExampleSet:
    """A fixed set of labelled examples as a classification task (a few-shot support set):
    ``sample`` draws ``batch_size`` distinct examples of it (all when fewer).

    Parameters
    ----------
    batch
        The examples.
    n_classes
        Their classes.
    name
        The task's name in messages.
    """

    objective = "classification"
    conditional = False

    def __init__(self, batch: Batch, n_classes: int, name: str = "examples") -> None:
        self.batch, self.n_classes, self.name = batch, n_classes, name
        self.input_dim = batch.inputs.shape[-1]

    def sample(self, batch_size: int, seed: int) -> Batch:
        return sample_rows(self.batch.inputs, self.batch.labels, batch_size, seed)

    def __len__(self) -> int:
        return len(self.batch)


def without_scripts(model: NeuralInterpreter, n_drop: int, seed: int = 0) -> NeuralInterpreter:
    """A copy of ``model`` with ``n_drop`` scripts (chosen at random) skipped: the tokens pass
    them unchanged. For a ViT written as one-function scripts, ``n_drop`` blocks removed.

    Parameters
    ----------
    model
        The interpreter (left as it is).
    n_drop
        Scripts skipped.
    seed
        Seed of the choice.
    """
    if not 0 <= n_drop < len(model.scripts):
        raise ValueError(f"drop 0 to {len(model.scripts) - 1} scripts, got {n_drop}")
    dropped = copy.deepcopy(model)
    gone = set(random.Random(seed).sample(range(len(model.scripts)), n_drop))
    dropped.scripts = nn.ModuleList(s for i, s in enumerate(dropped.scripts) if i not in gone)
    return dropped


def with_iterations(model: NeuralInterpreter, iterations: int) -> NeuralInterpreter:
    """A copy of ``model`` whose every script runs ``iterations`` function iterations (its
    shared parameters applied that many times), whatever it was trained with.

    Parameters
    ----------
    model
        The interpreter (left as it is).
    iterations
        Function iterations per script.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    changed = copy.deepcopy(model)
    for script in changed.scripts:
        script.iterations = iterations
    return changed


def with_destroyed_functions(model: NeuralInterpreter, seed: int = 0) -> NeuralInterpreter:
    """A copy of ``model`` whose every function gets a new random signature and code (drawn as
    at initialisation): what the functions learned is gone, the rest of the model is kept.

    Parameters
    ----------
    model
        The interpreter (left as it is).
    seed
        Seed of the new signatures and codes.
    """
    destroyed = copy.deepcopy(model)
    g = torch.Generator().manual_seed(seed)
    for script in destroyed.scripts:
        for parameter in (script.signatures, script.codes):
            fresh = torch.randn(parameter.shape, generator=g)
            parameter.data = fresh.to(device=parameter.device, dtype=parameter.dtype)
    return destroyed


def without_functions(model: NeuralInterpreter, n_drop: int, seed: int = 0) -> NeuralInterpreter:
    """A copy of ``model`` with ``n_drop`` functions (chosen at random) removed from every
    script, nothing retrained.

    Parameters
    ----------
    model
        The interpreter (left as it is).
    n_drop
        Functions removed from every script.
    seed
        Seed of the choice.
    """
    rng = random.Random(seed)
    dropped = copy.deepcopy(model)
    for script in dropped.scripts:
        if n_drop:
            script.remove_functions(rng.sample(range(script.n_functions), n_drop))
    return dropped
