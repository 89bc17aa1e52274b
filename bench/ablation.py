"""The ablation ladder (paper Table 1), re-measured small: accuracy in and out of distribution.

Rungs, each trained on toy-sets (64 processors, bench/toy_runs.py) with 3 seeds: Perceiver IO;
+ ModFC (code-conditioned layers, all-ones graph); + a sparse frozen graph (random signatures
that never train); the NAC with a learned graph and no prior; the NAC with each of the four
priors. In distribution: the run's fixed validation set (8 objects per scene). Out of
distribution: scenes with twice as many objects (ToySets.out_of_distribution; ``--ood-scale``
sets the factor), same rule and labels. Writes per-run rows (ablation_runs.csv) and mean and
spread per rung (ablation.csv); another scale adds ``_oodS`` to the names.
``--signature-lr-scale`` trains the learned-graph rungs with that signature learning-rate
factor (``_slrS`` in the names; the other rungs have no signatures to train).

    python bench/ablation.py [--steps 1000] [--seeds 0 1 2] [--ood-scale 2]
                             [--signature-lr-scale 1]
"""

from __future__ import annotations

import argparse

from common import prior_overrides, write_table
from toy_runs import PRIORS, trained

from circuitlab.train import batch_metrics, step_seed, validation_batch
from circuitlab.worlds.tasks import make_task

RUNGS = {
    "Perceiver IO": ("perceiver_io", {"graph": "dense", "modfc": False}),
    "+ ModFC": ("modfc_dense", {"graph": "dense"}),
    "+ sparse frozen graph": ("modfc_frozen", {"graph": "frozen"}),
    **{f"NAC, prior {p or 'none'}": (p or "none", prior_overrides(p)) for p in PRIORS},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--ood-scale", type=float, default=2.0, help="objects OOD / IID")
    parser.add_argument("--signature-lr-scale", type=float, default=1.0)
    args = parser.parse_args()
    suffix = "" if args.ood_scale == 2.0 else f"_ood{args.ood_scale:g}"
    suffix += "" if args.signature_lr_scale == 1.0 else f"_slr{args.signature_lr_scale:g}"
    rows = []
    for rung, (name, overrides) in RUNGS.items():
        learned = overrides.get("graph", "learned") == "learned"
        scale = args.signature_lr_scale if learned else 1.0
        for seed in args.seeds:
            model, config, _ = trained(name, overrides, args.steps, seed, scale)
            task = make_task(config.task, conditional=config.conditional, **config.task_options)
            iid_batch = validation_batch(task, config)
            ood_batch = task.out_of_distribution(
                config.eval_size, seed=step_seed(seed, 10**12), scale=args.ood_scale
            )
            _, iid = batch_metrics(model, iid_batch)
            _, ood = batch_metrics(model, ood_batch)
            rows.append({"rung": rung, "seed": seed, "iid": iid, "ood": ood})
    runs = write_table(rows, f"ablation_runs{suffix}", "ablation ladder, one row per run")
    summary = runs.groupby("rung", sort=False)[["iid", "ood"]].agg(["mean", "std", "min", "max"])
    summary.columns = [f"{split}_{stat}" for split, stat in summary.columns]
    summary = summary.reset_index()
    summary.insert(1, "seeds", len(args.seeds))
    write_table(
        summary.to_dict("records"),
        f"ablation{suffix}",
        f"toy-sets, {args.steps} steps, seeds {args.seeds}: accuracy IID (8 objects) and "
        f"OOD ({round(8 * args.ood_scale)} objects), signature lr x{args.signature_lr_scale:g} "
        "for the learned graphs; mean / std / min / max over seeds",
    )


if __name__ == "__main__":
    main()
