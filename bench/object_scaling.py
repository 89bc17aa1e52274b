"""Accuracy and step time against the number of modules on object-images (U = 32 ... 256).

The no-prior NAC of configs/object-images/nac.yaml (U = 128: object_runs' ``none``) and the same
with 32, 64 and 256 processors (``processors_U``): validation accuracy on 2,048 images per
trained seed, and the training step's time (batch 64, one thread, median of 5 rounds
interleaved over the sizes in one process, so a slow spell of the machine hits all sizes alike;
run it with nothing else on the machine). The paper: accuracy grows with modules at a cost
linear in them for the read-in and quadratic for the propagation.

    OMP_NUM_THREADS=1 python bench/object_scaling.py [--seeds 0 1 2] [--no-timing]

Adds its rows to bench/results/object_scaling.csv (a rerun of a size and seed replaces them;
with --no-timing the rows it writes have no step time).
"""

from __future__ import annotations

import argparse
import dataclasses
import warnings

import torch
import torch.nn.functional as F
from common import interleaved_medians, merge_table
from object_runs import OBJECTS

from circuitlab.model import NAC
from circuitlab.tasks import make_task
from circuitlab.train import batch_metrics

SIZES = {32: "processors_32", 64: "processors_64", 128: "none", 256: "processors_256"}


def train_step(model: NAC, images: torch.Tensor, labels: torch.Tensor):
    """One training step of ``model`` (forward, cross-entropy, backward, AdamW) as a callable."""
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()

    return step


def step_times(task) -> dict[int, float]:
    """{processors: median seconds per training step} for fresh models of every size."""
    base = OBJECTS.config("none", 0).model_config(task)
    batch = task.sample(64, seed=0)
    steps = {
        u: train_step(NAC(dataclasses.replace(base, n_processors=u)), batch.inputs, batch.labels)
        for u in SIZES
    }
    return interleaved_medians(steps, torch.device("cpu"), repeats=5, warmup=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--no-timing", dest="timing", action="store_false")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    task = make_task("object-images")
    times = step_times(task) if args.timing else {}
    batch = task.validation(2048, seed=10**6)
    rows = []
    for u, name in SIZES.items():
        for seed in args.seeds:
            row = {"processors": u, "seed": seed, "step_s": times.get(u, float("nan"))}
            if OBJECTS.is_trained(name, seed):
                model, _, _ = OBJECTS.trained(name, seed)
                row["val_acc"] = batch_metrics(model, batch)[1]
            else:
                print(f"no accuracy for {u} processors, seed {seed}: train {name} first")
                row["val_acc"] = float("nan")
            rows.append(row)
    merge_table(
        rows,
        "object_scaling",
        "object-images: accuracy and train-step time against processors",
        keys=["processors", "seed"],
    )


if __name__ == "__main__":
    main()
