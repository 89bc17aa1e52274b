"""Modular Networks: how many M-steps per E-step Viterbi EM needs to avoid collapse.

Kirsch et al. (2018) call "many gradient updates" between E-steps critical: the modules must
fit the paths the E-step gave them before the next E-step judges them (their language model
takes 15 M-steps per E-step and S = 10 controller samples; their published CIFAR-10 script 10).
Here the M-steps per E-step are ``MNConfig.e_step_every`` (an E-step minibatch also takes its
M-step, so 1 means an E-step on every minibatch) and S is ``e_step_samples``.

Sweep: M-steps per E-step in ``--m-steps`` (1 2 5 15) x S in ``--samples`` (10) x, on
digits, the controller in ``--controllers`` (linear; conv: ``MNConfig.controller``), Viterbi EM
only, on the experiments of bench/mn_collapse.py with their configs otherwise unchanged: the
same number of gradient steps everywhere (so more M-steps per E-step means fewer E-steps), or
with ``--equal-e-steps`` as many E-steps as the configs' own 2 M-steps per E-step make (the
steps scaled by M-steps / 2, so more M-steps per E-step means more gradient steps): the
regression toy (``--toy-seeds``, 10), the 8-component mixture and the 8 x 8 digits
(``--seeds``, 5). Per run, mn_collapse.measure's held-out measures: test error, H_a, H_b,
modules used (the fewest over layers of modules picked by >= 1 % of the held-out inputs),
collapse and, on the toy, specialisation.

Runs are kept in RUNS/EXPERIMENT/mM-sS[-conv][-tSTEPS]/seedN and reused; rows go to
bench/results/mn_m_steps.csv after every run; the summary table is printed and the figure
(modules used and the toy's specialised seeds against M-steps) written to
docs/figures/mn_m_steps.png.

    python bench/mn_m_steps.py [--experiments toy mixture8 digits] [--m-steps 1 2 5 15]
    python bench/mn_m_steps.py --experiments toy --m-steps 1 --steps-of 15  # compute control
    python bench/mn_m_steps.py --from-csv      # table and figure from the CSV, run nothing
"""

from __future__ import annotations

import argparse
import math
from functools import cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from common import FIGURES, RESULTS, merge_into_csv, pipe_table, save_figure  # noqa: E402
from mn_collapse import measure, run_config, specialised_seeds, spread  # noqa: E402
from tqdm import tqdm  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAME = "mn_m_steps"
EXPERIMENTS = ["toy", "mixture8", "digits"]
CONTROLLERS = ["linear", "conv"]
# a run's identity in the CSV
KEYS = ["experiment", "controller", "steps", "m_steps", "samples", "seed"]
TITLES = {"toy": "paper's toy (M = 2)", "mixture8": "8-component mixture", "digits": "8 x 8 digits"}


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, M-steps per E-step and S: seeds, test error, modules used (mean and
    min-max over seeds), collapse rate and (toy) specialised seeds."""
    rows = []
    groups = frame.groupby(KEYS[:-1], sort=False)
    for (experiment, controller, steps, m_steps, samples), runs in groups:
        row = {
            "experiment": experiment,
            "controller": controller,
            "steps": steps,
            "E-steps": steps // m_steps,
            "M-steps per E-step": m_steps,
            "S": samples,
            "seeds": len(runs),
            "test error": spread(runs.test_error, ".3f", ".3f"),
            "modules used": f"{spread(runs.modules_used, '.1f')} of {n_modules(runs)}",
            "collapse rate": f"{runs.collapsed.astype(bool).mean():.1f}",
            **specialised_seeds(runs),
        }
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def figure(frame: pd.DataFrame, path: Path) -> None:
    """Modules used (mean, min-max over seeds) against M-steps per E-step, one panel per
    experiment; the toy's panel shows the share of specialised seeds."""
    experiments = [e for e in EXPERIMENTS if e in set(frame.experiment)]
    colors: dict[str, str] = {}  # one colour per series label in every panel
    fig, axes = plt.subplots(1, len(experiments), figsize=(4 * len(experiments), 3.2))
    axes = [axes] if len(experiments) == 1 else list(axes)
    for ax, experiment in zip(axes, experiments, strict=True):
        runs = frame[frame.experiment == experiment]
        own = config_steps(experiment)
        budgets = {  # a run at the config's 2 M-steps per E-step belongs to both series
            "steps fixed": runs.steps == own,
            "E-steps fixed": runs.steps // runs.m_steps == own // 2,
        }
        series = [
            (budget, controller, samples, group)
            for budget, chosen in budgets.items()
            for (controller, samples), group in runs[chosen].groupby(["controller", "samples"])
            if group.m_steps.nunique() > 1
        ]
        for budget, controller, samples, group in series:
            label = f"S = {samples}, {budget}" + (", conv" if controller == "conv" else "")
            color = colors.setdefault(label, f"C{len(colors)}")
            by = group.groupby("m_steps")
            if experiment == "toy":
                share = by.specialised.apply(lambda s: s.astype(bool).mean())
                ax.plot(share.index, share.values, "o-", label=label, color=color)
                ax.set_ylabel("seeds specialised")
                ax.set_ylim(-0.05, 1.05)
            else:
                used = by.modules_used
                ax.errorbar(
                    used.mean().index,
                    used.mean().values,
                    yerr=[used.mean() - used.min(), used.max() - used.mean()],
                    fmt="o-",
                    capsize=3,
                    label=label,
                    color=color,
                )
                ax.set_ylabel("modules used (fewest over layers)")
                ax.set_ylim(0, n_modules(group) + 0.5)
        ax.set_xscale("log")
        ax.set_xticks(sorted(set(runs.m_steps)), [str(m) for m in sorted(set(runs.m_steps))])
        ax.set_xlabel("M-steps per E-step")
        ax.set_title(TITLES[experiment])
        ax.legend(fontsize=8)
    save_figure(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiments", nargs="+", default=EXPERIMENTS, choices=EXPERIMENTS)
    parser.add_argument("--m-steps", type=int, nargs="+", default=[1, 2, 5, 15])
    parser.add_argument("--samples", type=int, nargs="+", default=[10])
    parser.add_argument("--controllers", nargs="+", default=["linear"], choices=CONTROLLERS)
    parser.add_argument(
        "--equal-e-steps",
        action="store_true",
        help="train M-steps / 2 times the config's steps: the same E-steps as its own runs",
    )
    parser.add_argument(
        "--steps-of",
        type=int,
        metavar="M",
        help="train every run for the gradient steps that M M-steps per E-step take with "
        "--equal-e-steps (the config's steps x M / 2), whatever its own M-steps: the control "
        "that separates the M-steps from the extra compute",
    )
    parser.add_argument("--toy-seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(5)))
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "mn-m-steps")
    parser.add_argument("--out", type=Path, default=RESULTS / f"{NAME}.csv")
    parser.add_argument("--from-csv", action="store_true", help="read --out, run nothing")
    args = parser.parse_args()
    if args.from_csv:
        frame = read_rows(args.out)
    else:
        torch.set_num_threads(1)
        jobs = [
            (experiment, controller, m_steps, samples, seed)
            for experiment in args.experiments
            for controller in args.controllers
            if controller == "linear" or experiment == "digits"  # conv reads images only
            for m_steps in args.m_steps
            for samples in args.samples
            for seed in (args.toy_seeds if experiment == "toy" else args.seeds)
        ]
        for experiment, controller, m_steps, samples, seed in tqdm(jobs, desc="runs"):
            steps = config_steps(experiment)
            if args.steps_of is not None:
                steps = steps * args.steps_of // 2
            elif args.equal_e_steps:
                steps = steps * m_steps // 2
            name = f"m{m_steps}-s{samples}" + ("-conv" if controller == "conv" else "")
            if steps != config_steps(experiment):
                name += f"-t{steps}"
            run = args.runs / experiment / name / f"seed{seed}"
            options = dict(e_step_every=m_steps, e_step_samples=samples, controller=controller)
            row = measure(experiment, "em", seed, run, steps, **options)
            row.update(controller=controller, steps=steps, m_steps=m_steps, samples=samples)
            # after every run, into the file as it stands: nothing lost, other writers kept
            merge_into_csv(args.out, pd.DataFrame([row]), KEYS)
        frame = read_rows(args.out)
    frame = frame.sort_values(KEYS, key=_order)
    print(pipe_table(summary_table(frame)))
    figure(frame, FIGURES / f"{NAME}.png")
    print(f"written: {args.out}, {FIGURES / f'{NAME}.png'}")


def n_modules(runs: pd.DataFrame) -> int:
    """M, the modules of a layer, of ``runs`` (each row holds log M)."""
    return round(math.exp(runs.log_m.iloc[0]))


@cache
def config_steps(experiment: str) -> int:
    """The training steps of the experiment's own config."""
    return run_config(experiment, "em", 0).steps


def read_rows(path: Path) -> pd.DataFrame:
    """The CSV's rows; rows written before the controller and the steps were options are
    linear's, at the config's steps."""
    frame = pd.read_csv(path)
    if "controller" not in frame:
        frame["controller"] = "linear"
    if "steps" not in frame:
        frame["steps"] = frame["experiment"].map(config_steps)
    return frame


def _order(column: pd.Series) -> pd.Series:
    """Sort key: experiments and controllers in their lists' order, numbers as they are."""
    order = {"experiment": EXPERIMENTS, "controller": CONTROLLERS}.get(column.name)
    return column.map(order.index) if order else column


if __name__ == "__main__":
    main()
