"""The shipped models on an accelerator: the CPU's answers, and how much faster they train.

For each shipped conditional checkpoint (``checkpoints/nlvr``, ``checkpoints/pairs``): on a
fixed batch of its task's validation examples, in eval mode, the logits and the link
probabilities P of the generated circuits on the CPU and on ``--device``; reports the largest
logit and P differences, the share of answers that agree and both accuracies. Then the median
time of one training step of that model (forward, task and structure losses, backward, gradient
clip, AdamW: ``circuitlab.train``'s own step) on one training batch of its task, on the CPU and
on the device, in interleaved rounds, and the device's peak memory for a step. The batch is
drawn and moved once, so the times leave out drawing examples (CPU work that a run does every
step).

    python bench/device_parity.py [--device cuda] [--examples 512] [--repeats 10]

Sentences are encoded by the frozen text encoder through its disk cache ($CIRCUITLAB_CACHE): a
machine without the encoder's weights can run this once the cache holds the sentences (run it
first on a machine with them, ``--device cpu``, with the same cache folder).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from common import interleaved_medians, machine, sync, write_table

from circuitlab.device import pick_device
from circuitlab.interventions import generated_circuits, link_probabilities
from circuitlab.task import Batch, Task
from circuitlab.train import (
    TrainConfig,
    forward_losses,
    load_model,
    make_optimizer,
    optimizer_step,
    predict_logits,
    step_seed,
)
from circuitlab.worlds.tasks import make_task

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ("checkpoints/nlvr", "checkpoints/pairs")


def eval_outputs(model: torch.nn.Module, batch: Batch, device: torch.device) -> dict:
    """Logits (B, n_classes) and P among the processors (B, u, u) of ``model`` on ``batch``,
    returned on the CPU."""
    logits = predict_logits(model, batch, device)
    with torch.no_grad():
        signatures, _ = generated_circuits(model, batch)
    return {"logits": logits, "p": torch.as_tensor(link_probabilities(model, signatures))}


def parity_row(path: str, batch: Batch, device: torch.device) -> dict:
    """How far ``device``'s eval outputs of checkpoint ``path`` lie from the CPU's."""
    on_cpu = eval_outputs(load_model(path, "cpu")[0], batch, torch.device("cpu"))
    on_device = eval_outputs(load_model(path, str(device))[0], batch, device)
    answers = [out["logits"].argmax(-1) for out in (on_cpu, on_device)]
    return {
        "examples": len(batch),
        "max_logit_diff": (on_cpu["logits"] - on_device["logits"]).abs().max().item(),
        "max_p_diff": (on_cpu["p"] - on_device["p"]).abs().max().item(),
        "answers_agree": (answers[0] == answers[1]).float().mean().item(),
        "accuracy_cpu": (answers[0] == batch.labels).float().mean().item(),
        "accuracy_device": (answers[1] == batch.labels).float().mean().item(),
    }


def training_step(path: str, config: TrainConfig, task: Task, batch: Batch, device: torch.device):
    """One training step of a fresh copy of checkpoint ``path`` (trained on ``task``) on
    ``batch``, as a callable."""
    model = load_model(path, str(device))[0].train()
    optimizer = make_optimizer(model, config)
    batch = batch.to(device)

    def step() -> None:
        _, task_loss, structure_loss = forward_losses(model, model, task, batch)
        optimizer_step(model, optimizer, task_loss + structure_loss, config.grad_clip)

    return step


def peak_step_memory(step, device: torch.device) -> int | None:
    """Peak bytes allocated on ``device`` during one call of ``step`` (None on the CPU)."""
    if device.type != "cuda":
        return None
    sync(device)
    torch.cuda.reset_peak_memory_stats(device)
    step()
    sync(device)
    return torch.cuda.max_memory_allocated(device)


def say(path: str, what: str, started: float) -> None:
    """One line of progress: what is being done for checkpoint ``path``, seconds since start."""
    print(f"{path}: {what} ({time.perf_counter() - started:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", help="auto (cuda if present), cuda, cpu")
    parser.add_argument("--examples", type=int, default=512, help="validation examples")
    parser.add_argument("--repeats", type=int, default=10, help="timed rounds of each step")
    parser.add_argument("--checkpoints", nargs="+", default=list(CHECKPOINTS))
    args = parser.parse_args()
    device = pick_device(args.device)
    cpu = torch.device("cpu")
    rows = []
    for path in args.checkpoints:
        started = time.perf_counter()
        _, config = load_model(ROOT / path, "cpu")
        say(path, "drawing examples", started)
        task = make_task(config.task, conditional=config.conditional, **config.task_options)
        examples = task.validation(args.examples, seed=step_seed(config.seed, 10**12))
        batch = task.sample(config.batch_size, seed=step_seed(config.seed, 0))
        row = {"checkpoint": path, "device": machine(device)}
        say(path, "answers on both devices", started)
        row.update(parity_row(str(ROOT / path), examples, device))
        say(path, "timing training steps", started)
        steps = {
            name: training_step(str(ROOT / path), config, task, batch, where)
            for name, where in (("cpu", cpu), ("device", device))
        }
        medians = interleaved_medians(steps, device, repeats=args.repeats)
        row["train_step_ms_cpu"] = 1000 * medians["cpu"]
        row["train_step_ms_device"] = 1000 * medians["device"]
        row["speedup"] = medians["cpu"] / medians["device"]
        peak = peak_step_memory(steps["device"], device)
        row["step_peak_mib_device"] = np.nan if peak is None else peak / 2**20
        rows.append(row)
        write_table(  # after each checkpoint, so that a run cut short keeps what it measured
            rows,
            "device_parity",
            f"shipped checkpoints on {machine(device)} against {machine(cpu)} "
            f"(batch {config.batch_size} per training step)",
        )


if __name__ == "__main__":
    main()
