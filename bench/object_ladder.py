"""Table 1 on object-images: does each rung of the ablation ladder add robustness to renditions
never seen in training?

Rungs (object_runs.LADDER): Perceiver IO, + ModFC, + a sparse frozen graph, NAC, NAC + each
prior. For every rung and seed: accuracy on 2,048 validation images in the training style (IID)
and on 1,024 images of each held-out rendition (outline, texture, sketch, inverted; the role
ImageNet-R plays in the paper), with their mean (OOD). The summary gives mean and sd over seeds
per rung, per rendition beside the average.

    python bench/object_ladder.py [--seeds 0 1 2]

Adds its rows to bench/results/object_ladder.csv (a rerun of a model and seed replaces its row)
and rewrites object_ladder_summary.csv from every row there.
"""

from __future__ import annotations

import argparse
import warnings

from common import merge_table, write_seed_summary
from object_runs import LADDER, OBJECTS

from circuitlab.train import batch_metrics
from circuitlab.worlds.object_images import HELD_OUT_RENDITIONS
from circuitlab.worlds.tasks import make_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--models", nargs="+", default=list(LADDER), choices=list(LADDER))
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    task = make_task("object-images")
    splits = {"iid": task.validation(2048, seed=10**6)}
    splits.update({r: task.rendition(r, 1024, seed=10**6) for r in HELD_OUT_RENDITIONS})
    rows = []
    pairs = [(name, seed) for name in args.models for seed in args.seeds]
    for name, seed, model, _, _ in OBJECTS.trained_runs(pairs):
        row = {"model": name, "seed": seed}
        row.update({split: batch_metrics(model, batch)[1] for split, batch in splits.items()})
        row["ood"] = sum(row[r] for r in HELD_OUT_RENDITIONS) / len(HELD_OUT_RENDITIONS)
        rows.append(row)
    if not rows:
        raise SystemExit("no trained run found: python bench/object_runs.py --seeds 0 1 2")
    frame = merge_table(
        rows, "object_ladder", "object-images: IID and held-out renditions", keys=["model", "seed"]
    )
    write_seed_summary(
        frame,
        ["model"],
        ["iid", *HELD_OUT_RENDITIONS, "ood"],
        "object_ladder_summary",
        "object-images ladder: mean and sd over seeds",
    )


if __name__ == "__main__":
    main()
