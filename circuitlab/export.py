"""Export a trained run's circuits to a circuit store."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd

from circuitlab.store import CircuitStore
from circuitlab.tasks import make_task
from circuitlab.train import CHECKPOINT, load_model


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def export_run(
    run_dir: str | os.PathLike,
    out: str | os.PathLike,
    *,
    n_circuits: int = 256,
    seed: int = 0,
    overwrite: bool = False,
) -> CircuitStore:
    """Write the circuits of ``run_dir``'s checkpoint to the store ``out``.

    Unconditional model: its one circuit. Conditional model: one circuit for each of
    ``n_circuits`` distinct conditioning inputs drawn from the task (text, label, ... in the frame).
    """
    run_dir = Path(run_dir)
    model, train_config = load_model(run_dir)
    if model.config.conditional:
        task = make_task(train_config.task, conditional=True, **train_config.task_options)
        batch, frame = task.circuit_inputs(n_circuits, seed)
        circuits = []
        for start in range(0, n_circuits, 256):
            part = slice(start, start + 256)
            mask = None if batch.conditioning_mask is None else batch.conditioning_mask[part]
            circuits += model.circuits(batch.conditioning[part], mask)
    else:
        circuits = [model.circuit()]
        frame = pd.DataFrame(
            {"text": [""], "label": [""], "split": ["model"], "dataset": [train_config.task]}
        )
    return CircuitStore.write(
        out,
        circuits,
        frame,
        model.config.to_dict(),
        checkpoint_hash=file_sha256(run_dir / CHECKPOINT),
        overwrite=overwrite,
    )
