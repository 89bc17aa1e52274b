"""Neural Interpreters on multi-task digits against a ViT (the NI paper's section 4.2, Fig. 5a,
5b, 5c, 6 and 8), with what exists offline, on the CPU.

Pre-training (``circuitlab train``'s trainer; runs kept in RUNS/MODEL/seedS, resumed or
reused): the ``digit-renditions`` task, scikit-learn's digits in three renditions with a CLS
token each (MNIST, SVHN and MNIST-M's roles), for the Neural Interpreter
(configs/ni/digits.yaml) and the ViT baseline (configs/ni/digits-vit.yaml: one function per
script, four one-iteration scripts, i.e. a 4-block transformer). Then, per seed:

- ``in-distribution``: accuracy on the 540 held-out digits in each rendition (k: rendition
  index; the ViT is the baseline matched in distribution when the two read alike);
- ``drop`` (Fig. 5c): k of the NI's 4 functions removed from every script, or k of the ViT's 4
  blocks, nothing retrained; mean accuracy over the renditions and 5 random choices (k = 0:
  nothing dropped);
- ``iterations`` (Fig. 8, NI only): every script run k times at test time (trained with 2);
- ``adapt`` (Fig. 5a): a new CLS token, every parameter fine-tuned on k support images per
  class of the new task (8 classes of procedural objects never seen, K-MNIST's role), accuracy
  on 100 query images per class; ``adapt destroyed`` (Fig. 6): the same from the NI with every
  function's signature and code redrawn first;
- ``add`` (Fig. 5b, NI only): k new functions per script, adapted with the new CLS token and
  the new functions' codes only (setting ``cls``), on ``--add-shots`` images per class.

Rows (seed, model, measure, k, accuracy, wall_s) go to bench/results/ni_digits.csv after every
seed, keeping rows of other seeds; the summary (mean, min, max over seeds) is printed and drawn
to docs/figures/ni_digits.png.

    python bench/ni_digits.py [--seeds 0 1 2] [--shots 1 5 25] [--adapt-steps 200]
    python bench/ni_digits.py --from-csv     # the summary and figure from the CSV
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import pandas as pd
import torch
from common import RESULTS, merge_into_csv, pipe_table, save_figure, trained_run

from circuitlab.ni.adapt import (
    ExampleSet,
    accuracy_on,
    adapt,
    with_destroyed_functions,
    with_iterations,
    without_functions,
    without_scripts,
)
from circuitlab.ni.model import NeuralInterpreter
from circuitlab.options_file import read_options
from circuitlab.predict import own_task_logits
from circuitlab.train import TrainConfig
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.digit_renditions import (
    DIGIT_RENDITIONS,
    DigitRenditions,
    new_task_images,
)

ROOT = Path(__file__).resolve().parents[1]
MODELS = {"ni": ROOT / "configs/ni/digits.yaml", "vit": ROOT / "configs/ni/digits-vit.yaml"}
NAME = "ni_digits"
KEYS = ["seed", "model", "measure", "k"]
N_NEW_CLASSES = 8
DROP_DRAWS = 5


@torch.no_grad()
def rendition_accuracy(model: NeuralInterpreter, task: DigitRenditions, rendition: str) -> float:
    """Accuracy of the rendition's own CLS token on the held-out digits drawn in it."""
    model.eval()
    batch = task.rendition(rendition, len(task.test_labels), seed=0)
    logits = own_task_logits(model(batch.inputs), batch.labels, task.n_classes)
    return float((logits.argmax(-1) == batch.labels[:, 1]).float().mean())


def mean_accuracy(model: NeuralInterpreter, task: DigitRenditions) -> float:
    """Mean over the renditions of ``rendition_accuracy``."""
    scores = [rendition_accuracy(model, task, r) for r in DIGIT_RENDITIONS]
    return sum(scores) / len(scores)


def adapted_accuracy(
    model: NeuralInterpreter,
    shots: int,
    seed: int,
    *,
    setting: str,
    steps: int,
    lr: float,
    add_functions: int = 0,
) -> float:
    """Query accuracy of a copy of ``model`` adapted to the new task from ``shots`` images per
    class (support and query drawn from ``seed``)."""
    support, query = new_task_images(shots, seed)
    examples = ExampleSet(support, N_NEW_CLASSES, name="new objects")
    adapted = copy.deepcopy(model)
    adapt(
        adapted,
        examples,
        setting=setting,
        steps=steps,
        batch_size=min(48, len(examples)),
        lr=lr,
        seed=seed,
        add_functions=add_functions,
        progress=False,
    )
    return accuracy_on(adapted, query)


def measure_seed(seed: int, runs: Path, args: argparse.Namespace) -> list[dict]:
    """Every measure of one seed for both models, as rows."""
    rows: list[dict] = []
    for name, recipe in MODELS.items():
        config = TrainConfig.from_dict({**read_options(recipe), "seed": seed})
        model, config, _ = trained_run(runs / name / f"seed{seed}", config)
        task = make_task(config.task, **config.task_options)
        rows += measure_model(name, model, task, seed, args)
    return rows


def measure_model(
    name: str, model: NeuralInterpreter, task: DigitRenditions, seed: int, args: argparse.Namespace
) -> list[dict]:
    """The measures of one pre-trained model (``name``: ni or vit) as rows."""
    rows: list[dict] = []
    clock = [time.perf_counter()]

    def row(measure: str, k: int, accuracy: float) -> None:
        now = time.perf_counter()
        wall_s = round(now - clock[0], 2)
        clock[0] = now
        rows.append(
            dict(seed=seed, model=name, measure=measure, k=k, accuracy=accuracy, wall_s=wall_s)
        )
        print(f"seed {seed} {name} {measure} k={k}: {accuracy:.3f} ({wall_s} s)", flush=True)

    tune = dict(steps=args.adapt_steps, lr=args.adapt_lr)
    for k, rendition in enumerate(DIGIT_RENDITIONS):
        row("in-distribution", k, rendition_accuracy(model, task, rendition))
    drop = without_functions if name == "ni" else without_scripts
    row("drop", 0, mean_accuracy(model, task))
    for k in range(1, 4):
        draws = [mean_accuracy(drop(model, k, seed=r), task) for r in range(DROP_DRAWS)]
        row("drop", k, sum(draws) / len(draws))
    for shots in args.shots:
        row("adapt", shots, adapted_accuracy(model, shots, seed, setting="all", **tune))
    if name != "ni":
        return rows
    for k in (1, 2, 3):
        row("iterations", k, mean_accuracy(with_iterations(model, k), task))
    destroyed = with_destroyed_functions(model, seed)
    for shots in args.shots:
        row(
            "adapt destroyed",
            shots,
            adapted_accuracy(destroyed, shots, seed, setting="all", **tune),
        )
    for k in [0, *args.adds]:
        score = adapted_accuracy(
            model, args.add_shots, seed, setting="cls", add_functions=k, **tune
        )
        row("add", k, score)
    return rows


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread (min-max) over seeds of each model's measures."""
    grouped = frame.groupby(["model", "measure", "k"], sort=False)["accuracy"]
    out = grouped.agg(["mean", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "seeds"}).round(3)


def figure(frame: pd.DataFrame, path: Path) -> None:
    """Four panels, mean over seeds with the range shaded: adaptation against support images
    per class (Fig. 5a, with the destroyed-functions control of Fig. 6), accuracy against
    functions or blocks dropped (Fig. 5c), against functions added (Fig. 5b) and against
    iterations at test time (Fig. 8)."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        ("Fig. 5a / 6: adapting to new classes", "support images per class", "new-task accuracy",
         [("ni", "adapt", "NI"), ("vit", "adapt", "ViT"),
          ("ni", "adapt destroyed", "NI, functions destroyed")]),
        ("Fig. 5b: functions added", "functions added per script", "new-task accuracy",
         [("ni", "add", "NI")]),
        ("Fig. 5c: dropped at test time", "functions (NI) / blocks (ViT) dropped", "digit accuracy",
         [("ni", "drop", "NI"), ("vit", "drop", "ViT")]),
        ("Fig. 8: iterations at test time", "function iterations per script", "digit accuracy",
         [("ni", "iterations", "NI (trained with 2)")]),
    ]  # fmt: skip
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.4))
    for ax, (title, xlabel, ylabel, lines) in zip(axes, panels, strict=True):
        for model, measure, label in lines:
            rows = frame[(frame["model"] == model) & (frame["measure"] == measure)]
            if rows.empty:
                continue
            stats = rows.groupby("k")["accuracy"].agg(["mean", "min", "max"])
            ax.plot(stats.index, stats["mean"], marker="o", label=label)
            ax.fill_between(stats.index, stats["min"], stats["max"], alpha=0.2)
        if lines[0][1] == "adapt":
            ax.set_xscale("log")
            shots = sorted(set(frame.loc[frame["measure"] == "adapt", "k"]))
            ax.set_xticks(shots, [str(n) for n in shots])
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    save_figure(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "ni-digits")
    parser.add_argument("--shots", type=int, nargs="+", default=[1, 5, 25])
    parser.add_argument("--adapt-steps", type=int, default=200)
    parser.add_argument("--adapt-lr", type=float, default=5e-4)
    parser.add_argument("--adds", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--add-shots", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / f"{NAME}.csv")
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "figures" / f"{NAME}.png")
    parser.add_argument("--from-csv", action="store_true", help="read --out, train nothing")
    args = parser.parse_args()
    frame = pd.read_csv(args.out) if args.out.is_file() else pd.DataFrame(columns=KEYS)
    if not args.from_csv:
        for seed in args.seeds:
            new = pd.DataFrame(measure_seed(seed, args.runs, args))
            # after every seed, into the file as it stands: nothing lost, other writers kept
            frame = merge_into_csv(args.out, new, KEYS)
    print(pipe_table(summary_table(frame)))
    figure(frame, args.figure)
    print(f"written: {args.out}, {args.figure}")


if __name__ == "__main__":
    main()
