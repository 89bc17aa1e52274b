"""Neural Function Modules on Sort-of-CLEVR (Lamb et al. 2021, small, on the CPU): the CNN-MLP
against CNN-MLP + NFM, relational and non-relational questions, in distribution and on the
held-out colour-shape combinations; which layers read which.

For each seed and model (configs/nfm/sort-of-clevr.yaml; ``cnn-mlp`` is it with nfm: false,
the second pass alone), train (kept in RUNS/MODEL/seedS, resumed or reused), then score every
question of the test and held-out pools. Rows (one per seed, model, split and question kind)
go to bench/results/nfm_clevr.csv after every run; the summary (mean, min-max over seeds) is
printed, and the NFM runs' mean reads (test questions) are drawn to docs/figures/nfm_reads.png
with each reader's top-down share (weight on deeper first-pass layers).

    python bench/nfm_clevr.py [--seeds 0 1 2] [--runs runs/nfm-clevr]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from common import RESULTS, pipe_table, trained_run
from tqdm import tqdm

from circuitlab.analysis.layer_reads import top_down_share
from circuitlab.nfm.model import slot_names
from circuitlab.options_file import read_options
from circuitlab.tasks import make_task
from circuitlab.train import TrainConfig, predict_logits

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "nfm" / "sort-of-clevr.yaml"
NAME = "nfm_clevr"
MODELS = {"cnn-mlp": False, "nfm": True}


def run_config(model: str, seed: int) -> TrainConfig:
    values = read_options(CONFIG)
    values["model"] = {**values["model"], "nfm": MODELS[model]}
    # the CNN-MLP trains in ~2 min: compiling it would cost about as long as it saves
    values["compile"] = values.get("compile", False) and MODELS[model]
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
        if split == "test" and model.config.nfm:
            with torch.no_grad():
                part = batch.rows(slice(0, 2000))
                _, attention, _ = model.eval()(part.inputs, part.conditioning, return_circuit=True)
            reads = attention.mean(0).numpy()
    return rows, reads


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    grouped = frame.groupby(["split", "kind", "model"], sort=False)["accuracy"]
    out = grouped.agg(["mean", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "seeds"})


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
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "nfm-clevr")
    parser.add_argument("--out", type=Path, default=RESULTS / f"{NAME}.csv")
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "figures" / "nfm_reads.png")
    args = parser.parse_args()
    rows, all_reads = [], []
    jobs = [(model, seed) for seed in args.seeds for model in MODELS]
    for model, seed in tqdm(jobs, desc="runs"):
        new_rows, reads = measure(model, seed, args.runs / model / f"seed{seed}")
        rows += new_rows
        if reads is not None:
            all_reads.append(reads)
        RESULTS.mkdir(exist_ok=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)  # after every run: nothing lost
    print(pipe_table(summary_table(pd.DataFrame(rows))))
    if all_reads:
        reads_figure(np.mean(all_reads, 0), args.figure)
    print(f"written: {args.out}, {args.figure}")


if __name__ == "__main__":
    main()
