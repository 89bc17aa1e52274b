"""Does the circuit decide the answer? The acceptance table of "Circuits that decide the answer".

For each trained NLVR run (a directory of `circuitlab train --task nlvr`):

- task: accuracy on 4,000 held-out world examples (new sentences on new scenes) and on NLVR test;
- graph matters: the accuracy lost when every example takes the signatures of an example with
  another sentence (codes kept), the codes of one (signatures kept), or an all-ones kernel;
- shape: fraction of processor links with P > 0.5 (mean over the held-out sentences) and its
  spread, participation ratio and first principal component's share of the stack of P, and
  (pc1_mean_p_corr, CSV only) how closely that component follows the graphs' mean P;
- meaning: 5-NN accuracy (5-fold) of the exact grammar category of held-out sentences that have
  one, from P, from the P of an untrained generator (same architecture, random init: the
  templates alone), and from the sentence embedding the generator reads; and the share of
  minimal pairs (``circuitlab.worlds.minimal_pairs``) whose logic change moves P more than their
  wording change.

Unconditional runs (Perceiver IO baselines) get the task columns only.

    python bench/circuit_causality.py RUN [RUN ...] [--name NAME ...] [--append]
    python bench/circuit_causality.py --markdown     # the table of docs/results.md from the CSV
    python bench/circuit_causality.py --markdown NAME NAME   # only these rows (the README's)
    python bench/circuit_causality.py --seeds NAME NAME NAME   # mean ± sd of seeds' rows

Rows go to bench/results/circuit_causality.csv; with --append, rows of runs already there are
replaced in place and the others kept (new runs last).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from common import RESULTS, finished_runs, separation, with_other_runs, write_table

from circuitlab.data.nlvr import read_nlvr
from circuitlab.interventions import (
    minimal_pair_shifts,
)
from circuitlab.model import NAC
from circuitlab.nlvr_eval import full_task, nlvr_causality, predict_nlvr, world_heldout
from circuitlab.train import load_model
from circuitlab.worlds.minimal_pairs import minimal_pairs

NAME = "circuit_causality"
SEPARATION_SENTENCES = 2000  # held-out sentences drawn for the category and minimal-pair measures


def meaning(model: NAC, task, seed: int) -> dict[str, float]:
    """Category separation and minimal pairs on held-out world sentences."""
    sentences = task.heldout_sentences(SEPARATION_SENTENCES)
    single = [(s.text, next(iter(s.categories))) for s in sentences if len(s.categories) == 1]
    row = separation(model, task.encode_text, [t for t, _ in single], [c for _, c in single], seed)
    pairs = minimal_pair_shifts(
        model, task.encode_text, minimal_pairs([s.text for s in sentences], seed)
    )
    row.update(pairs=len(pairs), logic_moves_more=float(pairs["logic_moves_more"].mean()))
    return row


def measure(run: Path, name: str, world: int, seed: int) -> dict:
    model, config = load_model(run)
    summary = json.loads((run / "summary.json").read_text())
    task = full_task(config)
    test = read_nlvr("nlvr-test")
    row = {
        "run": name,
        "seed": config.seed,
        "steps": config.steps,
        "train_time_s": summary.get("wall_time_s"),
    }
    examples = world_heldout(task, world)
    if not model.config.conditional:
        row["world_heldout"] = float(predict_nlvr(model, task, examples)["correct"].mean())
        row["nlvr_test"] = float(predict_nlvr(model, task, test)["correct"].mean())
        return row
    report = nlvr_causality(model, task, examples, seed)
    test_report = nlvr_causality(model, task, test, seed)
    row["world_heldout"] = report["accuracy"]
    row["nlvr_test"] = test_report["accuracy"]  # own circuits: what predict_nlvr scores
    for key in (
        "signature_swap_drop",
        "code_swap_drop",
        "all_ones_drop",
        "density",
        "density_std",
        "mean_p",
        "participation_ratio",
        "pc1_share",
        "pc1_mean_p_corr",
    ):
        row[key] = report[key]
    row["nlvr_test_signature_swap_drop"] = test_report["signature_swap_drop"]
    row.update(meaning(model, task, seed))
    return row


# the results table's columns: (CSV column, heading)
TABLE_COLUMNS = (
    ("run", "design"),
    ("world_heldout", "world held-out"),
    ("nlvr_test", "NLVR test"),
    ("signature_swap_drop", "signature swap drop"),
    ("code_swap_drop", "code swap drop"),
    ("all_ones_drop", "all-ones drop"),
    ("density", "links P > 0.5"),
    ("density_std", "spread"),
    ("participation_ratio", "particip. ratio"),
    ("pc1_share", "PC1 share"),
    ("knn_p", "5-NN P"),
    ("knn_untrained", "5-NN untrained"),
    ("knn_sentence", "5-NN sentence"),
    ("logic_moves_more", "logic > wording"),
)


def markdown(frame: pd.DataFrame) -> str:
    """The results table (docs/results.md): one row per run, the acceptance columns, 3 decimals."""
    names = [c for c, _ in TABLE_COLUMNS if c in frame.columns]
    headings = dict(TABLE_COLUMNS)
    lines = [
        "| " + " | ".join(headings[c] for c in names) + " |",
        "|" + "---|" * len(names),
    ]
    for _, row in frame.iterrows():
        cells = [
            "-"
            if pd.isna(row[c])
            else f"{row[c]:.3f}"
            if isinstance(row[c], float)
            else str(row[c])
            for c in names
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rows_named(frame: pd.DataFrame, runs: list[str]) -> pd.DataFrame:
    """The rows named ``runs``, in that order (a short table: the README's)."""
    missing = [r for r in runs if r not in set(frame["run"])]
    if missing:
        raise ValueError(f"no rows named {missing} in the results; names are the --name given")
    return frame.set_index("run").loc[runs].reset_index()


def seed_summary(frame: pd.DataFrame, runs: list[str]) -> str:
    """One markdown row for several seeds of one configuration: each acceptance column's mean
    and sample standard deviation (ddof 1) over the rows named ``runs``, 3 decimals."""
    if len(runs) < 2:
        raise ValueError("a spread needs at least two seeds' rows")
    rows = rows_named(frame, runs)
    names = [c for c, _ in TABLE_COLUMNS if c in frame.columns and c != "run"]
    cells = []
    for c in names:
        values = rows[c].dropna()
        cells.append(f"{values.mean():.3f} ± {values.std(ddof=1):.3f}" if len(values) > 1 else "-")
    return f"| mean ± sd over {len(rows)} seeds | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path)
    parser.add_argument("--name", nargs="*", help="row names (default: the run directories')")
    parser.add_argument("--world", type=int, default=4000, help="held-out world examples")
    parser.add_argument("--seed", type=int, default=0, help="seed of swaps, folds, controls")
    parser.add_argument("--append", action="store_true", help="keep other runs' rows")
    parser.add_argument(
        "--markdown",
        nargs="*",
        metavar="NAME",
        help="print the results table (only the rows with these names, in this order)",
    )
    parser.add_argument(
        "--seeds", nargs="+", metavar="NAME", help="print mean ± sd of these rows (seeds)"
    )
    args = parser.parse_args()
    if args.markdown is not None or args.seeds:
        frame = pd.read_csv(RESULTS / f"{NAME}.csv")
        if args.seeds:
            print(seed_summary(frame, args.seeds))
        else:
            print(markdown(rows_named(frame, args.markdown) if args.markdown else frame))
        return
    if not args.runs:
        parser.error("give the run directories to measure (or --markdown)")
    names = finished_runs(args.runs, args.name)
    rows = [
        measure(run, name, args.world, args.seed)
        for run, name in zip(args.runs, names, strict=True)
    ]
    if args.append:
        rows = with_other_runs(NAME, rows)
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 250):
        write_table(rows, NAME, "circuits that decide the answer (held-out world; NLVR test)")


if __name__ == "__main__":
    main()
