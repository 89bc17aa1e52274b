"""Fig. 4 on object-images: adapt a pre-trained model to 8 classes it never saw, from 1, 5, 10
or 20 images per class.

Every pre-trained model (object_runs: Perceiver IO, the NAC with no prior and with each prior,
whatever is trained) is adapted the same way: a copy with a fresh 8-way output head (every other
weight kept) is fine-tuned on the support images for ``--steps`` full-batch AdamW steps (lr
3e-4), then scored on 50 query images per class (400). The support images are drawn from
``--draws`` seeds; the rows keep every draw, the summary averages them per model, seed and shots.

    OMP_NUM_THREADS=1 python bench/object_few_shot.py [--seeds 0 1 2] [--steps 50]

Adds its rows to bench/results/object_few_shot.csv (a rerun replaces the same model, seed,
shots and draw) and rewrites object_few_shot_summary.csv from every row there.
"""

from __future__ import annotations

import argparse
import dataclasses
import warnings

import torch
import torch.nn.functional as F
from common import merge_table, write_seed_summary
from object_runs import OBJECTS

from circuitlab.model import NAC
from circuitlab.task import Batch
from circuitlab.train import batch_metrics, forward_batch
from circuitlab.worlds.tasks import make_task

SHOTS = (1, 5, 10, 20)
MODELS = ("perceiver_io", "none", "planted_partition", "ring_of_cliques", "erdos_renyi")


def with_new_head(model: NAC, n_classes: int, seed: int) -> NAC:
    """A copy of ``model`` answering ``n_classes`` classes: every weight kept except the output
    head's, which starts fresh (seeded)."""
    torch.manual_seed(seed)
    adapted = NAC(dataclasses.replace(model.config, n_classes=n_classes))
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("head.")}
    missing, unexpected = adapted.load_state_dict(state, strict=False)
    if unexpected or any(not k.startswith("head.") for k in missing):
        raise RuntimeError(f"head swap went wrong: missing {missing}, unexpected {unexpected}")
    return adapted


def adapt(model: NAC, support: Batch, n_classes: int, steps: int, seed: int) -> NAC:
    """Fine-tune a new-headed copy of ``model`` on ``support`` (full batch)."""
    adapted = with_new_head(model, n_classes, seed).train()
    optimizer = torch.optim.AdamW(adapted.parameters(), lr=3e-4, weight_decay=0.01)
    for _ in range(steps):
        loss = F.cross_entropy(forward_batch(adapted, support), support.labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(adapted.parameters(), 1.0)
        optimizer.step()
    return adapted.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--shots", nargs="+", type=int, default=list(SHOTS))
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--draws", type=int, default=1)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    task = make_task("object-images")
    k = len(task.few_shot_classes)
    rows = []
    pairs = [(name, seed) for name in args.models for seed in args.seeds]
    for name, seed, model, _, _ in OBJECTS.trained_runs(pairs):
        for shots in args.shots:
            for draw in range(args.draws):
                support, query = task.few_shot(shots, seed=draw)
                adapted = adapt(model, support, k, args.steps, seed=draw)
                accuracy = batch_metrics(adapted, query)[1]
                rows.append(
                    {
                        "model": name,
                        "seed": seed,
                        "shots": shots,
                        "draw": draw,
                        "query_acc": accuracy,
                    }
                )
                print(f"{name} seed {seed}, {shots} shots, draw {draw}: {accuracy:.3f}")
    if not rows:
        raise SystemExit("no trained run found: python bench/object_runs.py --seeds 0 1 2")
    frame = merge_table(
        rows,
        "object_few_shot",
        f"object-images few-shot ({k} new classes)",
        keys=["model", "seed", "shots", "draw"],
    )
    per_seed = frame.groupby(["model", "shots", "seed"])["query_acc"].mean().reset_index()
    write_seed_summary(
        per_seed,
        ["model", "shots"],
        ["query_acc"],
        "object_few_shot_summary",
        "few-shot query accuracy: mean and sd over pre-training seeds",
    )


if __name__ == "__main__":
    main()
