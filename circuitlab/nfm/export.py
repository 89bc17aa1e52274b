"""An NFM network's circuits in a circuit store (``circuitlab.kinds.nfm``).

Per input: ``attention`` (N, reader, slot) float32, the weight each layer of the second pass
puts on what each layer wrote (slots: the first pass's layers, the second pass's, the null
slot; ``store.json``'s ``slots`` names them), averaged over positions and heads;
``images`` (N, C, S, S) float16, the input image; ``outputs`` (N, n_answers) float32.
store.json adds ``slots``, ``n_layers``, ``answers`` and ``task``; the frame holds each
input's question (``text``), answer (``label``), split, question kind and ``correct``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from circuitlab.files import file_sha256
from circuitlab.kinds import nfm
from circuitlab.nfm.model import NFMNetwork, slot_names
from circuitlab.run_config import TrainConfig
from circuitlab.store import SAMPLE_AXIS, CircuitStore
from circuitlab.worlds.sort_of_clevr import ANSWERS
from circuitlab.worlds.tasks import make_task

__all__ = ["write_nfm_store"]


@torch.no_grad()
def write_nfm_store(
    model: NFMNetwork,
    train_config: TrainConfig,
    checkpoint: Path,
    out: str | os.PathLike,
    *,
    n_circuits: int = 256,
    seed: int = 0,
    overwrite: bool = False,
    chunk: int = 256,
) -> CircuitStore:
    """Run ``model`` on ``n_circuits`` test questions and as many held-out ones and write
    which layers each layer read.

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
    if not model.config.nfm:
        raise ValueError(
            "this is the CNN-MLP baseline (nfm: false): no layer reads another, so it has no "
            "circuit to export"
        )
    task = make_task(train_config.task, **train_config.task_options)
    batch, frame = task.circuit_inputs(n_circuits, seed)
    model.eval()
    outputs, attention = [], []
    for start in range(0, len(batch), chunk):
        part = batch.rows(slice(start, start + chunk))
        logits, reads, _ = model(part.inputs, part.conditioning, return_circuit=True)
        outputs.append(logits.float())
        attention.append(reads.float())
    logits = torch.cat(outputs)
    frame["correct"] = (logits.argmax(-1) == batch.labels).numpy()
    arrays: dict[str, tuple[np.ndarray, list[str]]] = {
        "attention": (torch.cat(attention).numpy(), [SAMPLE_AXIS, "reader", "slot"]),
        "images": (batch.inputs.half().numpy(), [SAMPLE_AXIS, "channel", "row", "column"]),
        "outputs": (logits.numpy(), [SAMPLE_AXIS, "answer"]),
    }
    extra = {
        "slots": slot_names(model.n_layers),
        "n_layers": model.n_layers,
        "answers": ANSWERS,
        "task": train_config.task,
    }
    return CircuitStore.write_arrays(
        out,
        nfm.NAME,
        arrays,
        frame,
        model.config.to_dict(),
        extra_meta=extra,
        checkpoint_hash=file_sha256(checkpoint),
        overwrite=overwrite,
    )
