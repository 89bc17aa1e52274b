"""Adapting a pre-trained Neural Interpreter to new outputs, and changing its functions.

``adapt`` gives the model new CLS tokens (one per new output) and trains a chosen part of it
(``ADAPT_SETTINGS``), as the paper's fuzzy Boolean recomposition experiment does:

- ``cls``: only the new CLS tokens (and, with ``add_functions``, the new functions' codes);
- ``cls+types``: also the type-matching parameters of every script, what routes tokens to
  functions: the type inference, the function signatures (unless the model keeps them frozen)
  and the kernel's width sigma (when it learns);
- ``all``: every parameter (signatures too, unless frozen).

``without_functions`` drops functions from a trained model (nothing retrained) to see how
gracefully it degrades.
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
from circuitlab.tasks.base import Task
from circuitlab.tasks.boolean import r_squared

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
    """Train ``model`` in place on ``task`` (a regression, one output per new CLS token) with
    Adam (or ``optimizer="radam"``) at ``lr``, cosine to 0; returns the training loss of every
    step. ``add_functions`` new functions join every script first (their codes learn in every
    setting; old functions' codes only in ``all``)."""
    if setting not in ADAPT_SETTINGS:
        raise ValueError(f"setting must be one of {ADAPT_SETTINGS}, got {setting!r}")
    if optimizer not in ("adam", "radam"):
        raise ValueError(f"optimizer must be 'adam' or 'radam', got {optimizer!r}")
    model.set_cls_tokens(task.n_outputs)
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
        loss = F.mse_loss(model(batch.inputs), batch.labels)
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
    """R^2 of ``model`` on ``n`` of ``task``'s validation examples."""
    model.eval()
    batch = task.validation(n, seed)
    return r_squared(model(batch.inputs), batch.labels)


def without_functions(model: NeuralInterpreter, n_drop: int, seed: int = 0) -> NeuralInterpreter:
    """A copy of ``model`` with ``n_drop`` functions (chosen at random) removed from every
    script, nothing retrained."""
    rng = random.Random(seed)
    dropped = copy.deepcopy(model)
    for script in dropped.scripts:
        if n_drop:
            script.remove_functions(rng.sample(range(script.n_functions), n_drop))
    return dropped
