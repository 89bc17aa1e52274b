"""Fig. 5 on object-images: drop processors, least connected first, and keep the accuracy?

For every trained model of object_runs (the NAC with each prior and none, and Perceiver IO) and
seed: accuracy on 2,048 fixed validation images with k/16 of the 128 processors dropped
(k = 0..15), in three orders for a NAC -- ``connectivity`` (row sums of P among processors),
``readout`` (how much the read-outs listen to each processor) and ``random`` (3 seeded orders)
-- and in random order for Perceiver IO, whose all-ones graph ranks nothing. A model's
*droppable* share is the largest k/16 such that no share up to it loses more than 3 points.

Throughput depends only on the architecture and the processors kept, so it is timed once per
architecture (NAC, Perceiver IO) on 256 images, rounds interleaved over the sizes (the median of
5 rounds; one thread), into its own table, which the summary joins at each droppable share. Time
it with nothing else running; while trainings run, pass ``--no-timing`` (accuracy only) and
time later (``--seeds 0 --models none perceiver_io`` suffices: a NAC's prior does not change
its speed).

The acceptance of issue 59: a NAC keeps within 3 points with >= 75 % of processors dropped, for
>= 5x throughput, and least-connected-first keeps more droppable than random on each seed.

    OMP_NUM_THREADS=1 python bench/object_dropping.py [--seeds 0 1 2]

Adds its rows to bench/results/object_dropping.csv (a rerun of a model and seed replaces them)
and object_dropping_speed.csv (each speed-up against the full model timed in the same run), and
rewrites object_dropping_summary.csv from every row there.
"""

from __future__ import annotations

import argparse
import warnings

import pandas as pd
import torch
from common import RESULTS, interleaved_medians, merge_table, write_table
from object_runs import OBJECTS, PRIOR_MODELS

from circuitlab.tasks import make_task
from circuitlab.tasks.base import Batch
from circuitlab.train import batch_metrics, predict_logits

FRACTIONS = [k / 16 for k in range(16)]
RANDOM_SEEDS = (0, 1, 2)
LOSS_ALLOWED = 0.03
ROUNDS = 5


def accuracy_rows(name: str, seed: int, model, batch, orders: list[tuple[str, int]]) -> list[dict]:
    """One row per (order, random seed, fraction dropped) with the accuracy."""
    u = model.config.n_processors
    rows = []
    for order, order_seed in orders:
        for fraction in FRACTIONS:
            smaller = model.drop_modules(round(fraction * u), order=order, seed=order_seed)
            _, accuracy = batch_metrics(smaller, batch)
            rows.append(
                {
                    "model": name,
                    "seed": seed,
                    "order": order if order != "random" else f"random-{order_seed}",
                    "dropped": fraction,
                    "processors": smaller.config.n_processors,
                    "accuracy": accuracy,
                }
            )
    return rows


def throughput(model, images: torch.Tensor) -> dict[int, float]:
    """{processors kept: images per second}, the median of ROUNDS rounds interleaved over the
    sizes (common.interleaved_medians)."""
    u = model.config.n_processors
    batch = Batch(images, torch.zeros(len(images), dtype=torch.long))
    steps = {}
    for fraction in FRACTIONS:
        smaller = model.drop_modules(round(fraction * u), order="random")
        steps[smaller.config.n_processors] = lambda m=smaller: predict_logits(m, batch)
    medians = interleaved_medians(steps, torch.device("cpu"), repeats=ROUNDS, warmup=1)
    return {kept: len(images) / seconds for kept, seconds in medians.items()}


def droppable(frame: pd.DataFrame) -> float:
    """The largest share dropped such that no share up to it loses more than 3 points."""
    frame = frame.sort_values("dropped")
    lost = frame["accuracy"].iloc[0] - frame["accuracy"]
    within = (lost <= LOSS_ALLOWED).cumprod().astype(bool)
    return float(frame["dropped"][within].max())


DROPPING_MODELS = (*PRIOR_MODELS, "perceiver_io")


def architecture(name: str) -> str:
    """Throughput depends only on this: ``perceiver_io`` or ``nac`` (whatever the prior)."""
    return "perceiver_io" if name == "perceiver_io" else "nac"


def speed_rows(name: str, model, images: torch.Tensor) -> list[dict]:
    """Images per second and speed-up over the full model for each number of processors kept."""
    speeds = throughput(model, images)
    full = speeds[model.config.n_processors]
    return [
        {
            "architecture": architecture(name),
            "processors": kept,
            "throughput": s,
            "speedup": s / full,
        }
        for kept, s in sorted(speeds.items())
    ]


def summarise(frame: pd.DataFrame, speed: pd.DataFrame | None) -> list[dict]:
    """Per (model, seed, order): full accuracy, droppable share and the speed-up there (NaN
    until ``--timing`` has run for the model's architecture)."""
    speedup = {} if speed is None else speed.set_index(["architecture", "processors"])["speedup"]
    summary = []
    for (name, seed, order), group in frame.groupby(["model", "seed", "order"]):
        share = droppable(group)
        kept = int(group[group.dropped == share]["processors"].iloc[0])
        summary.append(
            {
                "model": name,
                "seed": seed,
                "order": order,
                "full_accuracy": group.sort_values("dropped")["accuracy"].iloc[0],
                "droppable": share,
                "processors_kept": kept,
                "speedup": float(speedup.get((architecture(name), kept), float("nan"))),
            }
        )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument(
        "--models", nargs="+", default=list(DROPPING_MODELS), choices=list(DROPPING_MODELS)
    )
    parser.add_argument(
        "--no-timing",
        dest="timing",
        action="store_false",
        help="accuracy only (time throughput later, with nothing else running)",
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    task = make_task("object-images")
    batch = task.validation(2048, seed=10**6)
    rows, speeds, timed = [], [], set()
    pairs = [(name, seed) for seed in args.seeds for name in args.models]
    for name, seed, model, _, _ in OBJECTS.trained_runs(pairs):
        orders = [("random", s) for s in RANDOM_SEEDS]
        if architecture(name) == "nac":
            orders = [("connectivity", 0), ("readout", 0), *orders]
        rows += accuracy_rows(name, seed, model, batch, orders)
        if args.timing and architecture(name) not in timed:
            timed.add(architecture(name))
            speeds += speed_rows(name, model, batch.inputs[:256])
    if not rows:
        raise SystemExit("no trained run found: python bench/object_runs.py --seeds 0 1 2")
    frame = merge_table(
        rows,
        "object_dropping",
        "object-images: accuracy with processors dropped",
        keys=["model", "seed", "order", "dropped"],
    )
    if speeds:
        merge_table(
            speeds,
            "object_dropping_speed",
            "object-images: inference throughput by processors kept (256 images, one thread)",
            keys=["architecture", "processors"],
        )
    speed_path = RESULTS / "object_dropping_speed.csv"
    speed = pd.read_csv(speed_path) if speed_path.exists() else None
    write_table(
        summarise(frame, speed), "object_dropping_summary", "largest share dropped within 3 points"
    )


if __name__ == "__main__":
    main()
