"""Neural Interpreters on fuzzy Boolean recomposition (the NI paper's section 4.1, Table 1 and
Fig. 5b/5c), small, on the CPU.

For each seed: pre-train a Neural Interpreter on the 20 pre-training functions
(configs/ni/fuzzy-boolean.yaml, through ``circuitlab train``'s trainer; the run is kept in
RUNS/seedS and resumed or reused), then adapt copies of it to the 10 held-out functions, new
CLS tokens each:

- (a) ``cls``: only the new CLS tokens learn; (b) ``cls+types``: also the type-matching
  parameters (type inference, sigma, and the signatures unless the recipe freezes them);
  (c) ``all``: every parameter (frozen signatures stay frozen);
- function dropping (Fig. 5c): k functions removed from every script of the pre-trained
  model, nothing retrained, R^2 on the pre-training functions (mean over 5 random choices);
- function adding (Fig. 5b): k new functions in every script, adapted as (a) with the new
  functions' codes learning too, R^2 on the held-out functions.

R^2 is on 4,096 fresh inputs. Rows go to bench/results/ni_boolean.csv (one per seed and
measure) after every seed, merged into the file as it stands then: a seed measured again
replaces its rows, other seeds' stay (so seeds can run in separate processes on one file). The
summary (mean and spread over seeds) is printed and the dropping and adding curves are drawn to
docs/figures/ni_function_curves.png. ``--from-csv`` reports from the file, train nothing; with
files (``--from-csv A.csv B.csv``) it first joins their rows into it.

    python bench/ni_boolean.py [--seeds 0 1 2] [--runs runs/ni-boolean] [--adapt-steps 600]
    python bench/ni_boolean.py --config configs/ni/fuzzy-boolean-wide.yaml \
        --runs runs/ni-boolean-wide --out bench/results/ni_boolean_wide.csv --adapt-lr 0.05
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import pandas as pd
from common import RESULTS, merge_into_csv, pipe_table, save_figure, trained_run

from circuitlab.ni.adapt import ADAPT_SETTINGS, adapt, r_squared_on, without_functions
from circuitlab.options_file import read_options
from circuitlab.train import TrainConfig
from circuitlab.worlds.tasks import make_task

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "ni" / "fuzzy-boolean.yaml"
NAME = "ni_boolean"
KEYS = ["seed"]  # a seed measured again replaces all its rows
FIGURE = "ni_function_curves.png"


def pretrain_config(seed: int, recipe: Path = CONFIG) -> TrainConfig:
    values = read_options(recipe)
    return TrainConfig.from_dict({**values, "seed": seed})


def measure_seed(
    seed: int,
    run: Path,
    adapt_steps: int,
    drops: list[int] | None,
    adds: list[int],
    recipe: Path = CONFIG,
    adapt_lr: float = 1e-3,
) -> list[dict]:
    """Every measure of one seed, as rows (seed, measure, k, r2, wall_s). ``drops`` None:
    0 to n_functions - 1 functions dropped. Adaptation uses the pre-training's optimizer
    (Adam for AdamW runs, RAdam for RAdam ones) at ``adapt_lr``."""
    model, config, summary = trained_run(run, pretrain_config(seed, recipe))
    if drops is None:
        drops = list(range(model.config.n_functions))
    tune = dict(lr=adapt_lr, optimizer="radam" if config.optimizer == "radam" else "adam")
    pre_task = make_task(config.task, **config.task_options)
    new_task = make_task(config.task, **{**config.task_options, "functions": "adapt"})

    def row(measure: str, k: int, r2: float, wall_s: float | None = None) -> dict:
        return dict(seed=seed, measure=measure, k=k, r2=r2, wall_s=wall_s)

    rows = [row("pretrain", 0, r_squared_on(model, pre_task), summary.get("wall_time_s"))]
    for setting in ADAPT_SETTINGS:
        started = time.perf_counter()
        adapted = copy.deepcopy(model)
        adapt(adapted, new_task, setting=setting, steps=adapt_steps, seed=seed, **tune)
        r2 = r_squared_on(adapted, new_task)
        rows.append(row(f"adapt {setting}", 0, r2, time.perf_counter() - started))
    for k in drops:
        scores = [r_squared_on(without_functions(model, k, seed=r), pre_task) for r in range(5)]
        rows.append(row("drop", k, sum(scores) / len(scores)))
    for k in adds:
        started = time.perf_counter()
        grown = copy.deepcopy(model)
        adapt(grown, new_task, setting="cls", steps=adapt_steps, seed=seed, add_functions=k, **tune)
        rows.append(row("add", k, r_squared_on(grown, new_task), time.perf_counter() - started))
    return rows


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread (min-max) over seeds of each measure."""
    grouped = frame.groupby(["measure", "k"], sort=False)["r2"]
    out = grouped.agg(["mean", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "seeds"})


def curves_figure(frame: pd.DataFrame, path: Path) -> None:
    """R^2 against functions dropped (pre-training functions, nothing retrained) and against
    functions added (held-out functions, adapted as setting cls; 0 added is ``adapt cls``):
    mean over seeds, the range shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dropped = frame[frame["measure"] == "drop"]
    base = frame[frame["measure"] == "adapt cls"].assign(measure="add", k=0)
    added = pd.concat([base, frame[frame["measure"] == "add"]])
    panels = [
        (dropped, "functions dropped per script", "pre-training functions"),
        (added, "functions added per script", "held-out functions"),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, (rows, xlabel, what) in zip(axes, panels, strict=True):
        stats = rows.groupby("k")["r2"].agg(["mean", "min", "max"])
        ax.plot(stats.index, stats["mean"], marker="o")
        ax.fill_between(stats.index, stats["min"], stats["max"], alpha=0.25)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"R^2 on the {what}")
        ax.grid(alpha=0.3)
    save_figure(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "ni-boolean")
    parser.add_argument("--adapt-steps", type=int, default=600)
    parser.add_argument("--out", type=Path, default=RESULTS / f"{NAME}.csv")
    parser.add_argument(
        "--from-csv",
        type=Path,
        nargs="*",
        help="run nothing: the summary from --out, after joining these files' rows into it",
    )
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "figures" / FIGURE)
    parser.add_argument("--config", type=Path, default=CONFIG, help="the pre-training recipe")
    parser.add_argument("--adapt-lr", type=float, default=1e-3)
    parser.add_argument("--drops", type=int, nargs="*", help="default: 0 .. n_functions - 1")
    parser.add_argument("--adds", type=int, nargs="*", default=[1, 2, 4])
    args = parser.parse_args()
    if args.from_csv is not None:
        for path in args.from_csv:
            merge_into_csv(args.out, pd.read_csv(path), KEYS)
        if not args.out.is_file():
            parser.error(f"--from-csv: no rows to read, {args.out} does not exist")
        report(pd.read_csv(args.out), args)
        return
    for seed in args.seeds:
        rows = measure_seed(
            seed,
            args.runs / f"seed{seed}",
            args.adapt_steps,
            args.drops,
            args.adds,
            args.config,
            args.adapt_lr,
        )
        # after every seed, into the file as it stands: nothing lost, other writers kept
        frame = merge_into_csv(args.out, pd.DataFrame(rows), KEYS)
    report(frame, args)


def report(frame: pd.DataFrame, args: argparse.Namespace) -> None:
    print(pipe_table(summary_table(frame)))
    curves_figure(frame, args.figure)
    print(f"written: {args.out}, {args.figure}")


if __name__ == "__main__":
    main()
