"""A Modular Network's circuits in a circuit store (``circuitlab.kinds.mn``).

Per input: ``paths`` (N, layer, pick) int16, the modules the controller's argmax picks in every
layer; ``probabilities`` (N, layer, categorical, module) float32, the controllers' softmax
(categorical: one per pick; top-k gating has one gate); ``outputs`` (N, output) float32 and,
for a regression, ``targets``. Per model: ``usage`` (layer, module), the share of the stored
inputs whose path picks each module, and ``module_graph`` (layer - 1, module, module), how many
of them pick module i in layer l and module j in layer l + 1 (``circuitlab.analysis.paths``
builds the layered graph from both). store.json adds ``method``, ``n_modules``, ``n_select``,
``n_layers`` and ``task``; the frame's ``label`` holds each input's class (or component).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from circuitlab.files import file_sha256
from circuitlab.kinds import mn
from circuitlab.mn.model import ModularNetwork
from circuitlab.mn.paths import layer_transitions, module_usage
from circuitlab.run_config import TrainConfig
from circuitlab.store import SAMPLE_AXIS, CircuitStore
from circuitlab.worlds.tasks import make_task

__all__ = ["write_mn_store"]


@torch.no_grad()
def write_mn_store(
    model: ModularNetwork,
    train_config: TrainConfig,
    checkpoint: Path,
    out: str | os.PathLike,
    *,
    n_circuits: int = 256,
    seed: int = 0,
    overwrite: bool = False,
) -> CircuitStore:
    """Run ``model`` (argmax paths) on ``n_circuits`` held-out inputs of its task and write
    their paths.

    Parameters
    ----------
    model
        The trained Modular Network.
    train_config
        The run's TrainConfig.
    checkpoint
        The checkpoint file it was read from.
    out
        The store's folder.
    n_circuits
        Inputs exported at most.
    seed
        Seed of the inputs drawn.
    overwrite
        Replace a store already at ``out``.
    """
    task = make_task(train_config.task, **train_config.task_options)
    batch, frame = task.circuit_inputs(n_circuits, seed)
    model.eval()
    outputs, circuit, _ = model(batch.inputs, return_circuit=True)
    paths = circuit.paths.numpy()
    n_modules = model.config.n_modules
    arrays: dict[str, tuple[np.ndarray, list[str]]] = {
        "paths": (paths.astype(np.int16), [SAMPLE_AXIS, "layer", "pick"]),
        "probabilities": (
            circuit.probabilities.float().numpy(),
            [SAMPLE_AXIS, "layer", "categorical", "module"],
        ),
        "outputs": (outputs.float().numpy(), [SAMPLE_AXIS, "output"]),
    }
    if batch.labels.is_floating_point():
        arrays["targets"] = (batch.labels.float().numpy(), [SAMPLE_AXIS, "output"])
    else:
        frame["correct"] = (outputs.argmax(-1) == batch.labels).numpy()
    arrays["usage"] = (module_usage(paths, n_modules).astype(np.float32), ["layer", "module"])
    arrays["module_graph"] = (layer_transitions(paths, n_modules), ["layer", "module", "module"])
    config = model.config
    extra = {
        "method": config.method,
        "n_layers": config.n_layers,
        "n_modules": n_modules,
        "n_select": config.n_select,
        "task": train_config.task,
    }
    return CircuitStore.write_arrays(
        out,
        mn.NAME,
        arrays,
        frame,
        config.to_dict(),
        extra_meta=extra,
        checkpoint_hash=file_sha256(checkpoint),
        overwrite=overwrite,
    )
