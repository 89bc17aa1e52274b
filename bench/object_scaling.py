"""Accuracy and step time against the number of modules on object-images (U = 32 ... 256).

The no-prior NAC of configs/object-images/nac.yaml (U = 128: object_runs' ``none``) and the same
with 32, 64 and 256 processors (``processors_U``): validation accuracy on the 2,048 images
object_ladder reads as IID, per trained seed, and the training step's time (batch 64, one
thread, median of 5 rounds interleaved over the sizes in one process, so a slow spell of the
machine hits all sizes alike; time it with nothing else on the machine). The U = 128 accuracy
comes from its kept run, or else from object_ladder's ``none`` rows (the same images, the same
models). The paper: accuracy grows with modules at a cost linear in them for the read-in and
quadratic for the propagation.

    OMP_NUM_THREADS=1 python bench/object_scaling.py [--seeds 0 1 2] [--no-timing] [--train]

Accuracy rows go to bench/results/object_scaling.csv (a rerun of a size and seed replaces
them), step times to bench/results/object_scaling_speed.csv (only when timed), and the figure
to docs/figures/object_scaling.png.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from common import FIGURES, RESULTS, interleaved_medians, merge_table, save_figure, write_table  # noqa: E402
from object_runs import OBJECTS  # noqa: E402

from circuitlab.model import NAC  # noqa: E402
from circuitlab.train import batch_metrics  # noqa: E402
from circuitlab.worlds.tasks import make_task  # noqa: E402

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


def ladder_accuracy(seed: int) -> float:
    """The no-prior NAC's IID accuracy of ``seed`` in object_ladder.csv (NaN if absent)."""
    path = RESULTS / "object_ladder.csv"
    if not path.is_file():
        return math.nan
    table = pd.read_csv(path)
    rows = table[(table.model == "none") & (table.seed == seed)]
    return float(rows.iid.iloc[0]) if len(rows) else math.nan


def accuracy(u: int, seed: int, batch, train: bool) -> float:
    """Validation accuracy of the U-processor model of ``seed`` (NaN, said, if not trained)."""
    name = SIZES[u]
    if OBJECTS.is_trained(name, seed) or train:
        model, _, _ = OBJECTS.trained(name, seed)
        return batch_metrics(model, batch)[1]
    recorded = ladder_accuracy(seed) if u == 128 else math.nan
    if not math.isnan(recorded):
        return recorded
    how = OBJECTS.how_to_train.replace("NAME", name).replace("SEED", str(seed))
    print(f"no accuracy for {u} processors, seed {seed}: {how}")
    return math.nan


def figure(table: pd.DataFrame, speed: pd.DataFrame | None) -> None:
    """Accuracy (mean and each seed) and, where timed, step time against processors."""
    fig, axes = plt.subplots(1, 2 if speed is not None else 1, figsize=(8, 3.2), squeeze=False)
    ax = axes[0, 0]
    known = table.dropna(subset=["val_acc"])
    ax.scatter(known.processors, known.val_acc, s=12, color="0.6", label="one seed")
    mean = known.groupby("processors").val_acc.mean()
    ax.plot(mean.index, mean.values, marker="o", label="mean over seeds")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(SIZES), [str(u) for u in SIZES])
    ax.set_xlabel("processors U")
    ax.set_ylabel("validation accuracy")
    ax.legend(fontsize=8)
    if speed is not None:
        ax = axes[0, 1]
        ax.plot(speed.processors, speed.step_s, marker="o")
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(SIZES), [str(u) for u in SIZES])
        ax.set_xlabel("processors U")
        ax.set_ylabel("training step (s, batch 64, 1 thread)")
    fig.suptitle("object-images: the no-prior NAC against its number of processors")
    save_figure(fig, FIGURES / "object_scaling.png", dpi=110)
    print(f"written: {FIGURES / 'object_scaling.png'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--no-timing", dest="timing", action="store_false")
    parser.add_argument(
        "--train", action="store_true", help="train missing runs (else they are skipped)"
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    task = make_task("object-images")
    if args.timing:
        times = step_times(task)
        write_table(
            [{"processors": u, "step_s": t, "vs_128": t / times[128]} for u, t in times.items()],
            "object_scaling_speed",
            "object-images: training-step time against processors (batch 64, one thread)",
        )
    batch = task.validation(2048, seed=10**6)
    rows = [
        {"processors": u, "seed": seed, "val_acc": accuracy(u, seed, batch, args.train)}
        for u in SIZES
        for seed in args.seeds
    ]
    table = merge_table(
        rows,
        "object_scaling",
        "object-images: validation accuracy against processors",
        keys=["processors", "seed"],
    )
    speed_path = RESULTS / "object_scaling_speed.csv"
    figure(table, pd.read_csv(speed_path) if speed_path.is_file() else None)


if __name__ == "__main__":
    main()
