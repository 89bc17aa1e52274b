"""Modular Networks, small (Kirsch et al. 2018): the regression toy's specialisation and module
collapse of Viterbi EM against REINFORCE and noisy top-k gating, on the CPU.

Experiments (configs/mn/), every method with the same modules, ``--seeds`` seeds each:

- ``toy``: 2-component mixture, M = 2, K = 1, EM (the paper's section 3.1). A seed
  specialises when the controller's argmax sends each component to its own module for at
  least 95 % of the held-out inputs (H_a -> 0, H_b -> log 2).
- ``mixture8``: 8-component mixture, 8 linear modules, K = 1: every module is needed.
- ``digits``: scikit-learn's 8 x 8 digits, two layers of 8 convolution modules, K = 1.

Methods: ``em``; ``reinforce``; ``reinforce+balance`` (REINFORCE with balance_weight *
(log M - H_b) on the controller); ``topk`` (noisy top-k); ``single`` (one module per layer:
the non-modular network of the same width). Per run, on the held-out set with the
controller's argmax path: test error (1 - accuracy; the MSE for a regression), H_a, H_b (mean
over layers), modules used (picked by >= 1 % of inputs; the fewest over layers) and collapse
(circuitlab.mn.diagnostics.collapsed: a layer uses fewer than M modules or exp(H_b) < M / 2).

Runs are kept in RUNS/EXPERIMENT/METHOD/seedS and reused; rows go to
bench/results/mn_collapse.csv after every run, the summary (mean, min-max over seeds) is printed.

    python bench/mn_collapse.py [--experiments toy mixture8 digits] [--seeds 0 1 ... 9]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from common import RESULTS, pipe_table, trained_run
from tqdm import tqdm

from circuitlab.mn.diagnostics import (
    batch_entropy_per_layer,
    collapsed,
    modules_used,
    selection_entropy,
    specialisation,
)
from circuitlab.options_file import read_options
from circuitlab.train import TrainConfig
from circuitlab.worlds.tasks import make_task

ROOT = Path(__file__).resolve().parents[1]
NAME = "mn_collapse"
METHODS = ["em", "reinforce", "reinforce+balance", "topk", "single"]
# experiment: (config, methods, reinforce+balance's weight). The weight is on the scale of the
# REINFORCE surrogate, whose rewards log p(y | x, a) are ~100x larger for the regression
# (likelihood_std 0.1) than for digits: picked on seed 0 from 0.1, 1, 10, 100, 1000 as the
# largest that raised H_b without raising the test error much.
EXPERIMENTS = {
    "toy": ("toy-em.yaml", ["em"], 0.0),
    "mixture8": ("mixture8-em.yaml", METHODS, 100.0),
    "digits": ("digits-em.yaml", METHODS, 1.0),
}


def run_config(
    experiment: str, method: str, seed: int, steps: int | None = None, **model_options: object
) -> TrainConfig:
    """The experiment's config with the method's model options (and ``model_options`` over
    the config's own, e.g. ``e_step_every``; ``steps`` over its training steps)."""
    values = read_options(ROOT / "configs" / "mn" / EXPERIMENTS[experiment][0])
    if steps is not None:
        values["steps"] = steps
    model = {**values["model"], **model_options}
    if method == "single":
        model.update(method="em", n_modules=1)
    elif method == "reinforce+balance":
        model.update(method="reinforce", balance_weight=EXPERIMENTS[experiment][2])
    else:
        model["method"] = method
    return TrainConfig.from_dict({**values, "model": model, "seed": seed})


def measure(
    experiment: str,
    method: str,
    seed: int,
    run: Path,
    steps: int | None = None,
    **model_options: object,
) -> dict:
    """One run's held-out measures (training it first unless kept)."""
    config = run_config(experiment, method, seed, steps, **model_options)
    model, config, summary = trained_run(run, config, progress=False)
    task = make_task(config.task, **config.task_options)
    test = task.validation(10**9, seed=0)  # the whole held-out set
    with torch.no_grad():
        outputs, circuit, _ = model(test.inputs, return_circuit=True)
    if model.config.objective == "regression":
        error = ((outputs - test.labels) ** 2).sum(-1).mean().item()
    else:
        error = (outputs.argmax(-1) != test.labels).float().mean().item()
    probabilities = circuit.probabilities
    h_b = batch_entropy_per_layer(probabilities)
    used = modules_used(circuit.paths, model.config.n_modules)
    row = dict(
        experiment=experiment,
        method=method,
        seed=seed,
        test_error=error,
        h_a=selection_entropy(probabilities).item(),
        h_b=float(h_b.mean()),
        log_m=float(np.log(model.config.n_modules)),
        modules_used=int(used.min()),
        collapsed=collapsed(used, h_b, model.config.n_modules),
        wall_s=summary.get("wall_time_s"),
    )
    if experiment == "toy":
        row.update(specialisation(circuit.paths, task.test_components()))
        row["specialised"] = bool(row["distinct"] and row["purity"] >= 0.95)
    return row


def spread(values: pd.Series, mean_format: str, bound_format: str = "") -> str:
    """ "mean (min-max)" of ``values`` over seeds, in these formats (bounds as they are: "")."""
    low, high = values.min(), values.max()
    return f"{values.mean():{mean_format}} ({low:{bound_format}}-{high:{bound_format}})"


def specialised_seeds(runs: pd.DataFrame) -> dict[str, str]:
    """{"specialised": "k/n"} for toy runs (every row measured), else {}."""
    if "specialised" not in runs or not runs.specialised.notna().all():
        return {}
    return {"specialised": f"{int(runs.specialised.astype(bool).sum())}/{len(runs)}"}


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per experiment and method: seeds, mean and min-max of test error, H_b, modules used,
    the collapse rate and (toy) the specialisation rate."""
    rows = []
    for (experiment, method), runs in frame.groupby(["experiment", "method"], sort=False):
        row = {
            "experiment": experiment,
            "method": method,
            "seeds": len(runs),
            "test error": spread(runs.test_error, ".3f", ".3f"),
            "H_a": f"{runs.h_a.mean():.3f}",
            "H_b / log M": f"{runs.h_b.mean():.2f} / {runs.log_m.iloc[0]:.2f}",
            "modules used": spread(runs.modules_used, ".1f"),
            "collapse rate": f"{runs.collapsed.astype(bool).mean():.1f}",
            **specialised_seeds(runs),
        }
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiments", nargs="+", default=list(EXPERIMENTS))
    parser.add_argument("--methods", nargs="*", help="only these methods (default: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "mn-collapse")
    parser.add_argument("--out", type=Path, default=RESULTS / f"{NAME}.csv")
    parser.add_argument("--from-csv", type=Path, nargs="*", help="join these rows, run nothing")
    args = parser.parse_args()
    if args.from_csv:
        frame = pd.concat([pd.read_csv(path) for path in args.from_csv], ignore_index=True)
        frame.to_csv(args.out, index=False)
        print(pipe_table(summary_table(frame)))
        return
    torch.set_num_threads(1)
    jobs = [
        (experiment, method, seed)
        for experiment in args.experiments
        for method in EXPERIMENTS[experiment][1]
        if not args.methods or method in args.methods
        for seed in args.seeds
    ]
    rows = []
    for experiment, method, seed in tqdm(jobs, desc="runs"):
        run = args.runs / experiment / method / f"seed{seed}"
        rows.append(measure(experiment, method, seed, run))
        RESULTS.mkdir(exist_ok=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)  # after every run: nothing lost
    print(pipe_table(summary_table(pd.DataFrame(rows))))
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
