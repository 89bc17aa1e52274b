"""The NLVR results table of docs/results.md: every trained run against the same data.

    python bench/nlvr_table.py runs/nlvr runs/nlvr-text-only runs/nlvr-perceiver-io ...

For each run (its results also go to RUN/results.json): accuracy on held-out world data (new
sentences, new scenes), on real NLVR dev and test, training time; then accuracy per reasoning
category on NLVR test (rule-based tagger) and on the held-out world data (the grammar's own
categories). The majority class (the more frequent
label of NLVR dev, "true") is the first row.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from common import pipe_table

from circuitlab.data.nlvr import read_nlvr
from circuitlab.nlvr_eval import WORLD_HELDOUT_SEED, accuracy_table, full_task, predict_nlvr
from circuitlab.train import load_model
from circuitlab.worlds.world import WORLD_CATEGORIES


def _describe(config) -> str:
    model = config.model
    inputs = config.task_options.get("inputs", "scene")
    if model.get("graph") == "dense" and not model.get("modfc", True):
        kind = "Perceiver IO"
    else:
        kind = "NAC" + (" (conditional)" if config.conditional else " (unconditional)")
    return f"{kind}, inputs={inputs}" + (
        " +NLVR dev" if config.task_options.get("nlvr_dev_fraction") else ""
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--world", type=int, default=4000, help="held-out world examples")
    parser.add_argument("--out", type=Path, help="also write the tables as JSON here")
    args = parser.parse_args()

    dev, test = read_nlvr("nlvr-dev"), read_nlvr("nlvr-test")
    majority = sum(e.label for e in dev) >= len(dev) / 2
    overall = [
        {
            "model": f"majority class ({str(majority).lower()})",
            "world held-out": 0.5,
            "NLVR dev": sum(e.label == majority for e in dev) / len(dev),
            "NLVR test": sum(e.label == majority for e in test) / len(test),
            "train time (s)": 0.0,
        }
    ]
    test_categories, world_categories = {}, {}
    for run in args.runs:
        model, config = load_model(run)
        task = full_task(config)
        # the examples of nlvr_eval.world_heldout, kept as WorldExamples for their categories
        world = task.validation_examples(args.world, seed=WORLD_HELDOUT_SEED)
        world_rows = predict_nlvr(model, task, [w.to_nlvr(f"w{i}-0") for i, w in enumerate(world)])
        world_rows["categories"] = [list(w.categories) for w in world]
        dev_rows, test_rows = (predict_nlvr(model, task, split) for split in (dev, test))
        summary = json.loads((run / "summary.json").read_text())
        name = f"{_describe(config)} [{run.name}]"
        overall.append(
            {
                "model": name,
                "world held-out": world_rows["correct"].mean(),
                "NLVR dev": dev_rows["correct"].mean(),
                "NLVR test": test_rows["correct"].mean(),
                "train time (s)": summary["wall_time_s"],
            }
        )
        results = {
            "world_heldout": round(float(world_rows["correct"].mean()), 4),
            "nlvr_dev": round(float(dev_rows["correct"].mean()), 4),
            "nlvr_test": round(float(test_rows["correct"].mean()), 4),
            "world_examples": args.world,
        }
        (run / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        test_categories[name] = accuracy_table(test_rows).set_index("subset")
        world_table = []
        for category in WORLD_CATEGORIES:
            chosen = world_rows["categories"].apply(lambda cs, c=category: c in cs)
            world_table.append(
                (category, int(chosen.sum()), world_rows.loc[chosen, "correct"].mean())
            )
        world_categories[name] = pd.DataFrame(
            world_table, columns=["subset", "examples", "accuracy"]
        ).set_index("subset")

    pd.set_option("display.width", 200)
    table = pd.DataFrame(overall).round(3)
    print("## Overall\n")
    print(pipe_table(table))
    for title, tables in (
        ("NLVR test, tagger categories", test_categories),
        ("held-out world, grammar categories", world_categories),
    ):
        first = next(iter(tables.values()))
        merged = pd.DataFrame({"examples": first["examples"]})
        for name, t in tables.items():
            merged[name.split(" [")[-1].rstrip("]")] = t["accuracy"].round(3)
        print(f"\n## Per category: {title}\n")
        print(pipe_table(merged, index=True))
    if args.out:
        args.out.write_text(table.to_json(orient="records", indent=2))


if __name__ == "__main__":
    main()
