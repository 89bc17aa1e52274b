"""The shipped toy recipes, trained in full: does each reach >= 95 % validation accuracy, and in
how many minutes? (The test suite trains the unconditional one cut to 1,200 steps; this is the
whole schedule of both.)

    OMP_NUM_THREADS=1 python bench/toy_recipes.py

Runs are kept in runs/toy_recipes/NAME (resumed if interrupted). Time with nothing else running:
the two recipes train one after the other, one thread each. Adds its rows to
bench/results/toy_recipes.csv (a rerun of a recipe replaces its row).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from common import CONFIGS, merge_table, trained_run

from circuitlab.options_file import read_options
from circuitlab.train import TrainConfig

RECIPES = ("toy-sets", "toy-sets-conditional")
RUNS = Path("runs/toy_recipes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", nargs="+", default=list(RECIPES), choices=RECIPES)
    args = parser.parse_args()
    rows = []
    for name in args.recipes:
        config = TrainConfig.from_dict(read_options(CONFIGS / f"{name}.yaml"))
        _, _, summary = trained_run(RUNS / name, config)
        rows.append(
            {
                "recipe": f"configs/{name}.yaml",
                "steps": summary["steps"],
                "val_acc": round(summary["val_acc"], 4),
                "minutes": round(summary["wall_time_s"] / 60, 1),
                "torch_threads": summary["torch_threads"],
            }
        )
    merge_table(rows, "toy_recipes", "The shipped toy recipes trained in full", keys=["recipe"])


if __name__ == "__main__":
    main()
