"""The ablation ladder (paper Table 1) on NLVR's generated world, one seed: accuracy in and out
of distribution.

Rungs, each the small NLVR configuration (configs/nlvr-small.yaml, 16 processors, 8000 steps) but
for what the rung changes, trained by bench/nlvr_runs.py: Perceiver IO (scene and sentence tokens as
one input set; configs/experiments/nlvr-baselines/perceiver-io.yaml); + ModFC (module codes
generated from the sentence, all-ones graph); + sparse frozen graph (signatures from a frozen random
head); the NAC with a learned graph and no prior (checkpoints/nlvr-small, shipped before the circuit
model); the NAC with each of the four priors. Splits, all on held-out sentences: the world
validation set (every sentence, as training reports it); in distribution, the sentences about
scattered scenes on boxes of 1-8 objects, as in training; out of distribution, the same sentences on
boxes of 9-12 objects (NLVRWorld.out_of_distribution). Labels are balanced per sentence in every
split.

    python bench/nlvr_ablation.py [--examples 1024] [--seed 0] [--rungs "Perceiver IO" ...]
    python bench/nlvr_ablation.py --summary

A seed other than 0 trains every rung it asks for (about 11 minutes each; the prior-free NAC as
run ``none``); ``--rungs`` picks a subset. Writes bench/results/nlvr_ablation_seedS.csv.
``--summary`` trains and evaluates nothing: it reads every nlvr_ablation_seedS.csv there is and
writes each rung's mean and spread over its seeds to bench/results/nlvr_ablation.csv.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial

import pandas as pd
from common import RESULTS, write_table
from nlvr_runs import PRIORS, trained_graph_rung, trained_perceiver_io, trained_with_prior
from tqdm import tqdm

from circuitlab.model import NAC
from circuitlab.train import TrainConfig, batch_metrics, load_model
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.nlvr import NLVRWorld

SMALL_NLVR = "checkpoints/nlvr-small"


def rungs(seed: int) -> dict[str, Callable[[], tuple[NAC, TrainConfig]]]:
    """Rung name -> a function giving its (model, TrainConfig), training it first if needed.
    The prior-free NAC of seed 0 is checkpoints/nlvr-small (trained from the same config)."""
    if seed == 0:
        no_prior = partial(load_model, SMALL_NLVR)
    else:
        no_prior = partial(trained_with_prior, None, seed)
    return {
        "Perceiver IO": partial(trained_perceiver_io, seed),
        "+ ModFC": partial(trained_graph_rung, "modfc_dense", seed),
        "+ sparse frozen graph": partial(trained_graph_rung, "modfc_frozen", seed),
        "NAC, prior none": no_prior,
        **{f"NAC, prior {p}": partial(trained_with_prior, p, seed) for p in PRIORS},
    }


def summary(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Rows (rung, seed, iid, ood, ...) -> one row a rung, in first-seen order: seeds, and the
    mean, std (over seeds; NaN for one seed) and per-seed values of iid, ood and ood - iid."""
    runs = per_seed.assign(gap=per_seed["ood"] - per_seed["iid"]).sort_values("seed", kind="stable")
    rows = []
    for rung in per_seed["rung"].unique():  # the ladder's order, as the CSVs list it
        group = runs[runs["rung"] == rung]
        row: dict = {"rung": rung, "seeds": len(group)}
        for split in ("iid", "ood", "gap"):
            row[f"{split}_mean"] = group[split].mean()
            row[f"{split}_std"] = group[split].std()
            row[f"{split}_per_seed"] = " ".join(f"{v:.3f}" for v in group[split])
        rows.append(row)
    return pd.DataFrame(rows)


def write_summary() -> None:
    """Aggregate every bench/results/nlvr_ablation_seedS.csv into nlvr_ablation.csv."""
    paths = sorted(RESULTS.glob("nlvr_ablation_seed*.csv"))
    if not paths:
        raise SystemExit(
            f"no nlvr_ablation_seedS.csv in {RESULTS}: run python bench/nlvr_ablation.py first"
        )
    per_seed = pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)
    seeds = sorted(int(seed) for seed in per_seed["seed"].unique())
    write_table(
        summary(per_seed).to_dict("records"),
        "nlvr_ablation",
        f"NLVR world ablation over seeds {seeds}: accuracy iid (1-8 objects a box), ood (9-12) "
        "and ood - iid (gap); mean, std over seeds and the per-seed values (seed order)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1024, help="per split")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rungs", nargs="+", choices=list(rungs(0)), help="default: all")
    parser.add_argument(
        "--summary", action="store_true", help="aggregate the per-seed CSVs, train nothing"
    )
    args = parser.parse_args()
    if args.summary:
        write_summary()
        return
    splits: dict[tuple, dict] = {}  # the tasks' batches, shared by rungs that read alike
    rows = []
    chosen = {
        name: build for name, build in rungs(args.seed).items() if name in (args.rungs or [name])
    }
    for rung, build in tqdm(chosen.items(), desc="rungs"):
        model, config = build()
        key = (config.conditional, config.task_options.get("inputs", "scene"))
        if key not in splits:
            task = make_task(config.task, conditional=config.conditional, **config.task_options)
            assert isinstance(task, NLVRWorld)
            # seeds apart from training's and validation's; iid and ood share one, so they ask
            # the same sentences (drawn first) about differently crowded scenes
            splits[key] = {
                "world val": task.validation(args.examples, seed=10**9 + 1),
                "iid": task.scattered_validation(args.examples, seed=10**9 + 2),
                "ood": task.out_of_distribution(args.examples, seed=10**9 + 2),
            }
        row = {"rung": rung, "seed": args.seed}
        for split, batch in splits[key].items():
            row[split] = batch_metrics(model, batch)[1]
        rows.append(row)
    write_table(
        rows,
        f"nlvr_ablation_seed{args.seed}",
        f"NLVR world, seed {args.seed}, {args.examples} examples per split: accuracy on all "
        "held-out sentences, on the scattered-scene ones with 1-8 objects a box (iid) and with "
        "9-12 (ood)",
    )


if __name__ == "__main__":
    main()
