"""Neural Function Modules on Sort-of-CLEVR (Lamb et al. 2021, small, on the CPU): the CNN-MLP
against CNN-MLP + NFM, relational and non-relational questions, in distribution and on the
held-out colour-shape combinations, with the controls and ablations of issue 63; which layers
read which.

Models (``MODELS``; configs/nfm/sort-of-clevr.yaml with these model options):

- ``cnn-mlp``: the baseline, the second pass alone (nfm: false; 112,754 parameters);
- ``cnn-mlp-wide``: the baseline matched in parameters (hidden 414: 237,574 against NFM's
  237,662);
- ``nfm``: the paper's model (two passes, top-3 reads over every written layer, null slot);
- ``nfm-no-top-down``: two passes, no layer reads a deeper first-pass layer: the control
  matched in compute, and the top-down ablation;
- ``nfm-top-1``, ``nfm-dense``: top-k with k = 1, and no sparsification;
- ``nfm-no-null``: no null slot.

For each seed and model, train (kept in RUNS/MODEL/seedS, resumed or reused), then score every
question of the test and held-out pools. Rows (one per seed, model, split and question kind)
go to bench/results/nfm_clevr.csv after every run, merged into the file as it stands then: the
rows of other models and seeds stay, those of other processes writing the same file included.
Printed: accuracy per model (mean and 95 % t-interval over seeds) and each model's gain over
``cnn-mlp-wide`` (difference of means, Welch 95 % interval), each ablation's difference from
``nfm``, and docs/results.md's table (all three in one). The ``nfm`` runs' mean reads (test
questions) are drawn to docs/figures/nfm_reads.png with each reader's top-down share (weight on
deeper first-pass layers), only when every seed asked for has an ``nfm`` run.

    python bench/nfm_clevr.py [--models nfm cnn-mlp-wide] [--seeds 0 1 2 3 4] [--runs DIR]
    python bench/nfm_clevr.py --from-csv     # the tables from the CSV, train nothing
    python bench/nfm_clevr.py --from-csv A.csv B.csv   # join other files' rows into --out
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from common import RESULTS, merge_into_csv, pipe_table, save_figure, trained_run
from scipy import stats
from tqdm import tqdm

from circuitlab.analysis.layer_reads import top_down_share
from circuitlab.nfm.model import slot_names
from circuitlab.options_file import read_options
from circuitlab.train import TrainConfig, predict_logits
from circuitlab.worlds.tasks import make_task

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "nfm" / "sort-of-clevr.yaml"
NAME = "nfm_clevr"
# model name: its model options over the config's
MODELS = {
    "cnn-mlp": {"nfm": False},
    "cnn-mlp-wide": {"nfm": False, "hidden": 414},
    "nfm": {},
    "nfm-no-top-down": {"top_down": False},
    "nfm-top-1": {"top_k": 1},
    "nfm-dense": {"top_k": None},
    "nfm-no-null": {"null_slot": False},
}
REFERENCE = "cnn-mlp-wide"  # the gains are over the baseline matched in parameters
FULL_MODEL = "nfm"  # the ablations are against the paper's model
KEYS = ["model", "seed", "split", "kind"]  # a row's identity in the CSV
# docs/results.md's row names
TITLES = {
    "cnn-mlp": "CNN-MLP (112,754 parameters)",
    "cnn-mlp-wide": "CNN-MLP, hidden 414 (237,574: matched)",
    "nfm": "CNN-MLP + NFM (237,662)",
    "nfm-no-top-down": "NFM, no top-down reads (matched in compute)",
    "nfm-top-1": "NFM, top-1 reads",
    "nfm-dense": "NFM, dense reads (no top-k)",
    "nfm-no-null": "NFM, no null slot",
}


def run_config(model: str, seed: int) -> TrainConfig:
    values = read_options(CONFIG)
    values["model"] = {**values["model"], **MODELS[model]}
    # the CNN-MLP trains in ~2 min: compiling it would cost about as long as it saves
    values["compile"] = values.get("compile", False) and values["model"].get("nfm", True)
    return TrainConfig.from_dict({**values, "seed": seed})


def measure(model_name: str, seed: int, run: Path) -> tuple[list[dict], np.ndarray | None]:
    """Accuracy rows per split and question kind, and (NFM) the mean reads of test questions."""
    model, config, summary = trained_run(run, run_config(model_name, seed), progress=False)
    task = make_task(config.task, **config.task_options)
    rows, reads = [], None
    for split in ("test", "heldout"):
        batch = task.split_batch(split, 10**9)
        right = (predict_logits(model, batch).argmax(-1) == batch.labels).numpy()
        relational = task.relational(split, 10**9)
        for kind, mask in (("relational", relational), ("non-relational", ~relational)):
            rows.append(
                dict(
                    model=model_name,
                    seed=seed,
                    split=split,
                    kind=kind,
                    accuracy=float(right[mask].mean()),
                    questions=int(mask.sum()),
                    wall_s=summary.get("wall_time_s"),
                )
            )
        if split == "test" and model_name == "nfm":
            with torch.no_grad():
                part = batch.rows(slice(0, 2000))
                _, attention, _ = model.eval()(part.inputs, part.conditioning, return_circuit=True)
            reads = attention.mean(0).numpy()
    return rows, reads


def interval(values: np.ndarray) -> float:
    """Half-width of the 95 % t-interval of the mean of ``values`` (NaN for one value)."""
    if len(values) < 2:
        return float("nan")
    return float(stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))


def gain_interval(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """mean(a) - mean(b) and the half-width of its Welch 95 % interval."""
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return float(a.mean() - b.mean()), float(stats.t.ppf(0.975, dof) * np.sqrt(va + vb))


COLUMNS = [("test", "relational"), ("test", "non-relational")]
COLUMNS += [("heldout", "relational"), ("heldout", "non-relational")]


def _accuracies(rows: pd.DataFrame, split: str, kind: str) -> np.ndarray:
    """The per-seed accuracies of ``rows`` on one split and question kind."""
    return rows[(rows.split == split) & (rows.kind == kind)].accuracy.to_numpy()


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model: seeds and, per split and question kind, mean accuracy +- 95 % interval."""
    rows = []
    for model, runs in frame.groupby("model", sort=False):
        row = {"model": model, "seeds": runs.seed.nunique()}
        for split, kind in COLUMNS:
            values = _accuracies(runs, split, kind)
            row[f"{split} {kind}"] = f"{values.mean():.3f} +- {interval(values):.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


def gains_table(frame: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Per model other than ``reference``: its accuracy minus the reference's, in points, with
    the Welch 95 % interval, per split and question kind."""
    rows = []
    base = frame[frame.model == reference]
    for model, runs in frame.groupby("model", sort=False):
        if model == reference or base.empty:
            continue
        row = {"model": model, "seeds": f"{runs.seed.nunique()} vs {base.seed.nunique()}"}
        for split, kind in COLUMNS:
            gain, half = gain_interval(
                _accuracies(runs, split, kind), _accuracies(base, split, kind)
            )
            row[f"{split} {kind}"] = f"{100 * gain:+.1f} +- {100 * half:.1f}"
        rows.append(row)
    # its columns even with no row (no reference, or nothing beside it), so it can be indexed
    return pd.DataFrame(rows, columns=["model", "seeds", *(f"{s} {k}" for s, k in COLUMNS)])


def ablations_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Each ablation (an NFM model with one option changed) against the full NFM model, in
    points with the Welch 95 % interval, per split and question kind."""
    return gains_table(frame[frame.model.str.startswith("nfm")], reference=FULL_MODEL)


def results_table(frame: pd.DataFrame) -> pd.DataFrame:
    """docs/results.md's table: per model (``TITLES``' order and names) seeds and accuracy
    (mean +- 95 % t-interval) per split and question kind; under ``nfm`` its gain over
    ``cnn-mlp-wide``, and beside each ablation its difference from ``nfm`` in points (Welch)."""
    gains = gains_table(frame).set_index("model")
    ablations = ablations_table(frame).set_index("model")
    columns = [f"{split} {kind}" for split, kind in COLUMNS]
    rows = []
    for model, title in TITLES.items():
        runs = frame[frame.model == model]
        if runs.empty:
            continue
        row = {"model": title, "seeds": str(runs.seed.nunique())}
        for column, (split, kind) in zip(columns, COLUMNS, strict=True):
            values = _accuracies(runs, split, kind)
            row[column] = f"{values.mean():.3f} +- {interval(values):.3f}"
            if model in ablations.index:
                row[column] += f" ({ablations.loc[model, column]})"
        rows.append(row)
        if model == FULL_MODEL and model in gains.index:
            gain = {"model": "NFM over the matched CNN-MLP, points"}
            rows.append(gain | gains.loc[model, ["seeds", *columns]].to_dict())
    return pd.DataFrame(rows).rename(columns=lambda c: c.replace("heldout", "held-out"))


def reads_figure(reads: np.ndarray, path: Path) -> None:
    """The mean reads (second-pass layers x slots) with each reader's top-down share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_layers = reads.shape[0]
    fig, ax = plt.subplots(figsize=(7, 2.8))
    image = ax.imshow(reads, vmin=0, vmax=max(float(reads.max()), 1e-6), cmap="Blues")
    ax.set_xticks(range(reads.shape[1]), slot_names(n_layers), rotation=45, ha="right")
    shares = top_down_share(reads)
    ax.set_yticks(
        range(n_layers), [f"layer {r + 1} (top-down {s:.2f})" for r, s in enumerate(shares)]
    )
    ax.set_title("What each second-pass layer reads (test questions, mean over seeds)")
    fig.colorbar(image, ax=ax)
    save_figure(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "nfm-clevr")
    parser.add_argument("--out", type=Path, default=RESULTS / f"{NAME}.csv")
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "figures" / "nfm_reads.png")
    parser.add_argument(
        "--from-csv",
        type=Path,
        nargs="*",
        help="train nothing: the tables from --out, after joining these files' rows into it",
    )
    args = parser.parse_args()
    if args.from_csv is not None:
        for path in args.from_csv:
            merge_into_csv(args.out, pd.read_csv(path), KEYS)
        if not args.out.is_file():
            parser.error(f"--from-csv: no rows to read, {args.out} does not exist")
        frame = pd.read_csv(args.out)
    else:
        frame, all_reads = pd.DataFrame(), []
        jobs = [(model, seed) for seed in args.seeds for model in args.models]
        for model, seed in tqdm(jobs, desc="runs"):
            rows, reads = measure(model, seed, args.runs / model / f"seed{seed}")
            if reads is not None:
                all_reads.append(reads)
            # after every run, into the file as it stands: nothing lost, other writers kept
            frame = merge_into_csv(args.out, pd.DataFrame(rows), KEYS)
        # a figure of some seeds' reads would not be the one the docs describe
        if len(all_reads) == len(args.seeds):
            reads_figure(np.mean(all_reads, 0), args.figure)
            print(f"written: {args.figure}")
    report(frame)
    print(f"written: {args.out}")


def report(frame: pd.DataFrame) -> None:
    """Print the summary, the gains over the reference, the ablations and results.md's table."""
    order = {name: i for i, name in enumerate(MODELS)}
    frame = frame.sort_values(
        ["model", "seed"], key=lambda c: c.map(order) if c.name == "model" else c
    )
    print(pipe_table(summary_table(frame)))
    gains = gains_table(frame)
    if not gains.empty:
        print(f"\ngain over {REFERENCE}, points (Welch 95 % interval):")
        print(pipe_table(gains))
    ablations = ablations_table(frame)
    if not ablations.empty:
        print(f"\nablations against {FULL_MODEL}, points (Welch 95 % interval):")
        print(pipe_table(ablations))
    print("\ndocs/results.md's table:")
    print(pipe_table(results_table(frame)))


if __name__ == "__main__":
    main()
