"""A Neural Interpreter's circuits in a circuit store (``circuitlab.kinds.ni``).

Per input: ``routing`` (N, steps, U, V) float16, the weight with which each function handles
each token at every function iteration (steps = scripts x iterations, in order; tokens: the
CLS tokens first, then the input's); ``outputs`` (N, n_cls * n_outputs) float32 and, for a
regression task, ``targets`` of the same shape. Per model: ``function_signatures`` (S, U,
d_type) and ``function_codes`` (S, U, d_code) float32. store.json adds ``steps`` (script and
iteration of each step), ``tokens`` (a name per token), ``n_functions``, ``sigma`` (each
script's kernel bandwidth) and ``truncation``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from circuitlab.files import file_sha256
from circuitlab.kinds import ni
from circuitlab.ni.model import NeuralInterpreter
from circuitlab.run_config import TrainConfig
from circuitlab.store import SAMPLE_AXIS, CircuitStore
from circuitlab.worlds.tasks import make_task

__all__ = ["write_ni_store"]


def token_names(model: NeuralInterpreter, task: object, n_inputs: int) -> list[str]:
    """ "cls k" for the CLS tokens, then the task's names for its tokens (``token_names()``)
    or "token i"."""
    named = getattr(task, "token_names", None)
    inputs = list(named()) if named is not None else [f"token {i}" for i in range(n_inputs)]
    return [f"cls {k}" for k in range(model.cls_tokens.shape[0])] + inputs


@torch.no_grad()
def write_ni_store(
    model: NeuralInterpreter,
    train_config: TrainConfig,
    checkpoint: Path,
    out: str | os.PathLike,
    *,
    n_circuits: int = 256,
    seed: int = 0,
    overwrite: bool = False,
    chunk: int = 256,
) -> CircuitStore:
    """Run ``model`` on ``n_circuits`` of its task's inputs and write their routing.

    Parameters
    ----------
    model, train_config, checkpoint
        The trained model, its run's TrainConfig and the checkpoint file it was read from
        (its SHA-256 is recorded).
    out, overwrite
        The store's folder, and whether a store already there is replaced.
    n_circuits, seed, chunk
        As above; the seed of the inputs drawn; inputs per forward pass.
    """
    task = make_task(train_config.task, **train_config.task_options)
    batch, frame = task.circuit_inputs(n_circuits, seed)
    model.eval()
    outputs, routing = [], []
    for start in range(0, len(batch), chunk):
        part = batch.rows(slice(start, start + chunk))
        out_part, routing_part, _ = model(
            part.inputs, input_mask=part.input_mask, return_circuit=True
        )
        outputs.append(out_part.float())
        routing.append(routing_part.half())
    arrays: dict[str, tuple[np.ndarray, list[str]]] = {
        "routing": (torch.cat(routing).numpy(), [SAMPLE_AXIS, "step", "function", "token"]),
        "outputs": (torch.cat(outputs).numpy(), [SAMPLE_AXIS, "output"]),
    }
    if batch.labels.is_floating_point():
        arrays["targets"] = (batch.labels.float().numpy(), [SAMPLE_AXIS, "output"])
    arrays["function_signatures"] = (
        torch.stack([s.signatures.detach() for s in model.scripts]).float().numpy(),
        ["script", "function", "type"],
    )
    arrays["function_codes"] = (
        torch.stack([s.codes.detach() for s in model.scripts]).float().numpy(),
        ["script", "function", "code"],
    )
    config = model.config
    steps = [
        {"script": s, "iteration": i}
        for s in range(config.n_scripts)
        for i in range(config.iterations)
    ]
    extra = {
        "steps": steps,
        "tokens": token_names(model, task, batch.inputs.shape[1]),
        "n_functions": model.scripts[0].n_functions,
        "sigma": [float(s.kernel.sigma) for s in model.scripts],
        "truncation": config.truncation,
        "task": train_config.task,
    }
    return CircuitStore.write_arrays(
        out,
        ni.NAME,
        arrays,
        frame,
        config.to_dict(),
        extra_meta=extra,
        checkpoint_hash=file_sha256(checkpoint),
        overwrite=overwrite,
    )
