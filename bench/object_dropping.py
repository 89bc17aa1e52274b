"""Fig. 5 on object-images: drop processors, least connected first, and keep the accuracy?

For every trained model of object_runs (the NAC with each prior and none, and Perceiver IO) and
seed: accuracy on 2,048 fixed validation images with k/16 of the 128 processors dropped
(k = 0..15), in three orders for a NAC -- ``connectivity`` (row sums of P among processors),
``readout`` (how much the read-outs listen to each processor) and ``random`` (20 seeded orders,
``--random-orders``) -- and in random order for Perceiver IO, whose all-ones graph ranks
nothing. A model's *droppable* share is the largest k/16 such that no share up to it loses more
than 3 points. An order beats random on a seed when its droppable share is above that of >= 95 %
of the random orders (``object_dropping_orders.csv``: its rank among them and the empirical
p-value (1 + orders at or above it) / (1 + orders)).

Throughput depends only on the architecture and the processors kept, so it is timed once per
architecture (NAC, Perceiver IO) on 256 images, rounds interleaved over the sizes (the median of
5 rounds; one thread), into its own table, which the summary joins at each droppable share. Time
it with nothing else running; while trainings run, pass ``--no-timing`` (accuracy only) and
time later (``--seeds 0 --models none perceiver_io`` suffices: a NAC's prior does not change
its speed).

The goal: a NAC keeps within 3 points with >= 75 % of processors dropped, for >= 5x throughput,
and least-connected-first beats random order on each seed.

    OMP_NUM_THREADS=1 python bench/object_dropping.py [--seeds 0 1 2] [--shipped]
    python bench/object_dropping.py --from-csv   # the summaries from the CSV, run nothing

``--shipped`` reads seed 0 from checkpoints/priors when it is not in runs/ (Perceiver IO is not
shipped: train it with bench/object_runs.py).

Adds its rows to bench/results/object_dropping.csv (a rerun of a model and seed replaces them)
and object_dropping_speed.csv (each speed-up against the full model timed in the same run), and
rewrites object_dropping_summary.csv and object_dropping_orders.csv from every row there.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable

import pandas as pd
import torch
from common import RESULTS, interleaved_medians, merge_table, write_table
from object_runs import OBJECTS, PRIOR_MODELS, shipped_seed0
from tqdm import tqdm

from circuitlab.task import Batch
from circuitlab.train import batch_metrics, predict_logits
from circuitlab.worlds.tasks import make_task

FRACTIONS = [k / 16 for k in range(16)]
RANDOM_ORDERS = 20  # the random orders a seed needs before an order can be said to beat them
BEATS_SHARE = 0.95  # an order beats random when above this share of the random orders
LOSS_ALLOWED = 0.03
ROUNDS = 5


def order_name(order: str, order_seed: int) -> str:
    """The order's name in the CSV: "connectivity", "readout" or "random-SEED"."""
    return order if order != "random" else f"random-{order_seed}"


def accuracy_rows(
    name: str, seed: int, model, batch, orders: list[tuple[str, int]], keep: Callable[[list], None]
) -> None:
    """One row per (order, random seed, fraction dropped) with the accuracy, handed to
    ``keep`` order by order (so an interrupted bench keeps every order it finished).

    The full model is evaluated once. A random order stops at its first share that loses more
    than 3 points (nothing past it changes its droppable share, and 20 of them are the bench's
    cost); the ranked orders run to the end, for their curves."""
    u = model.config.n_processors
    full = batch_metrics(model, batch)[1]
    for order, order_seed in tqdm(orders, desc=f"{name} seed {seed}: orders", unit="order"):
        rows = []
        for fraction in FRACTIONS:
            k = round(fraction * u)
            smaller = model.drop_modules(k, order=order, seed=order_seed)
            accuracy = full if k == 0 else batch_metrics(smaller, batch)[1]
            rows.append(
                {
                    "model": name,
                    "seed": seed,
                    "order": order_name(order, order_seed),
                    "dropped": fraction,
                    "processors": smaller.config.n_processors,
                    "accuracy": accuracy,
                }
            )
            if order == "random" and full - accuracy > LOSS_ALLOWED:
                break
        keep(rows)


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


def order_ranks(summary: pd.DataFrame) -> list[dict]:
    """Per (model, seed) and ranked order (connectivity, read-out reach): its droppable share
    against the random orders': how many random orders, the share it is strictly above, the
    share it ties, the empirical p-value (1 + random orders at or above it) / (1 + orders) and
    whether it beats random (strictly above >= ``BEATS_SHARE`` of >= ``RANDOM_ORDERS``)."""
    rows = []
    for (name, seed), group in summary.groupby(["model", "seed"]):
        random = group[group["order"].str.startswith("random-")]["droppable"].to_numpy()
        for order in ("connectivity", "readout"):
            ranked = group[group["order"] == order]
            if ranked.empty or len(random) == 0:
                continue
            share = float(ranked["droppable"].iloc[0])
            above = float((random < share).mean())
            rows.append(
                {
                    "model": name,
                    "seed": seed,
                    "order": order,
                    "droppable": share,
                    "random_orders": len(random),
                    "random_mean": float(random.mean()),
                    "random_max": float(random.max()),
                    "above_share": above,
                    "tied_share": float((random == share).mean()),
                    "p_value": float((1 + (random >= share).sum()) / (1 + len(random))),
                    "beats_random": bool(above >= BEATS_SHARE and len(random) >= RANDOM_ORDERS),
                }
            )
    return rows


def measured_orders(name: str, seed: int) -> set[str]:
    """The orders object_dropping.csv holds for ``name`` and ``seed``."""
    path = RESULTS / "object_dropping.csv"
    if not path.is_file():
        return set()
    frame = pd.read_csv(path)
    return set(frame[(frame["model"] == name) & (frame["seed"] == seed)]["order"])


def forget(name: str, seed: int) -> set[str]:
    """Drop ``name`` and ``seed``'s rows from object_dropping.csv (a fresh measurement of them
    starts); returns the orders left for them: none."""
    path = RESULTS / "object_dropping.csv"
    if path.is_file():
        frame = pd.read_csv(path)
        kept = frame[~((frame["model"] == name) & (frame["seed"] == seed))]
        kept.to_csv(path, index=False)
    return set()


def trained_models(args) -> list[tuple[str, int, object]]:
    """(name, seed, model) of every asked-for run that is trained, or shipped (seed 0, with
    ``--shipped``); says which it skipped."""
    found = []
    for seed in args.seeds:
        for name in args.models:
            if OBJECTS.is_trained(name, seed):
                _, _, model, _, _ = next(OBJECTS.trained_runs([(name, seed)]))
            elif args.shipped and seed == 0 and (shipped := shipped_seed0(name)) is not None:
                model = shipped[0]
            else:
                print(f"skipped {name} seed {seed}: not trained ({OBJECTS.how_to_train})")
                continue
            found.append((name, seed, model))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument(
        "--models", nargs="+", default=list(DROPPING_MODELS), choices=list(DROPPING_MODELS)
    )
    parser.add_argument("--random-orders", type=int, default=RANDOM_ORDERS)
    parser.add_argument(
        "--shipped", action="store_true", help="seed 0 from checkpoints/priors when not in runs/"
    )
    parser.add_argument(
        "--from-csv",
        action="store_true",
        help="run nothing: the summary and the order ranks from object_dropping.csv",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the orders a model and seed have in the CSV and measure the rest (else its "
        "rows are replaced: the CSV never mixes two runs of a model and seed)",
    )
    parser.add_argument(
        "--no-timing",
        dest="timing",
        action="store_false",
        help="accuracy only (time throughput later, with nothing else running)",
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    speeds, timed, frame = [], set(), None
    batch = None if args.from_csv else make_task("object-images").validation(2048, seed=10**6)
    if args.from_csv:
        frame = pd.read_csv(RESULTS / "object_dropping.csv")
    for name, seed, model in [] if args.from_csv else trained_models(args):
        orders = [("random", s) for s in range(args.random_orders)]
        if architecture(name) == "nac":
            orders = [("connectivity", 0), ("readout", 0), *orders]
        done = measured_orders(name, seed) if args.resume else forget(name, seed)
        orders = [o for o in orders if order_name(*o) not in done]

        def keep(rows: list[dict]) -> None:  # into the CSV order by order
            nonlocal frame
            frame = merge_table(
                rows,
                "object_dropping",
                "object-images: accuracy with processors dropped",
                keys=["model", "seed", "order"],  # a rerun replaces an order's whole curve
            )

        accuracy_rows(name, seed, model, batch, orders, keep)
        if frame is None:
            frame = pd.read_csv(RESULTS / "object_dropping.csv")
        if args.timing and architecture(name) not in timed:
            timed.add(architecture(name))
            speeds += speed_rows(name, model, batch.inputs[:256])
    if frame is None:
        raise SystemExit("no trained run found: python bench/object_runs.py --seeds 0 1 2")
    if speeds:
        merge_table(
            speeds,
            "object_dropping_speed",
            "object-images: inference throughput by processors kept (256 images, one thread)",
            keys=["architecture", "processors"],
        )
    speed_path = RESULTS / "object_dropping_speed.csv"
    speed = pd.read_csv(speed_path) if speed_path.exists() else None
    summary = write_table(
        summarise(frame, speed), "object_dropping_summary", "largest share dropped within 3 points"
    )
    write_table(
        order_ranks(summary),
        "object_dropping_orders",
        "each ranked order's droppable share against the random orders of its model and seed",
    )


if __name__ == "__main__":
    main()
