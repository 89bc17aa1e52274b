"""Table 3 on ListOps: an unconditional NAC against Perceiver IO with the same budget (the
paper: 41.40 vs 39.70 % on LRA's ListOps).

Both recipes (configs/listops/) train 4,000 steps of 64 expressions with 32 latents/processors;
runs are kept in runs/listops/MODEL-seedS. Accuracy on the task's fixed test set of 2,000
expressions (never drawn in training), per seed, with mean and sd.

    OMP_NUM_THREADS=1 python bench/listops_table.py --train [--seeds 0 1 2]

Adds its rows to bench/results/listops.csv (a rerun of a model and seed replaces its row).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from common import RunSet, merge_table

from circuitlab.train import batch_metrics
from circuitlab.worlds.tasks import make_task

LISTOPS = RunSet(
    Path("runs/listops"),
    {"nac": "listops/nac.yaml", "perceiver_io": "listops/perceiver-io.yaml"},
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--train", action="store_true", help="train missing runs")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    rows = []
    pairs = [(name, seed) for name in LISTOPS.models for seed in args.seeds]
    for name, seed, model, config, _ in LISTOPS.trained_runs(pairs, train=args.train):
        task = make_task(config.task, **config.task_options)
        test = task.validation(len(task.test_expressions), seed=0)
        rows.append({"model": name, "seed": seed, "test_acc": batch_metrics(model, test)[1]})
    if not rows:
        raise SystemExit("no trained run found: pass --train")
    frame = merge_table(
        rows, "listops", "ListOps: accuracy on the fixed test set (2,000)", keys=["model", "seed"]
    )
    print(frame.groupby("model")["test_acc"].agg(["count", "mean", "std"]).to_string())


if __name__ == "__main__":
    main()
