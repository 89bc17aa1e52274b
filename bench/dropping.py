"""Module dropping (paper Fig. 5): validation accuracy and inference throughput against the
fraction of processor modules dropped, least connected first (NAC.drop_modules; Perceiver IO's
all-ones graph ranks nothing, so its latents are dropped at random, seeded). One NAC is also
dropped in random order, the control for the ordering.

Models: on the toy task, an unconditional NAC per prior and none, and a Perceiver IO, the runs of
bench/toy_runs.py that bench/priors_shape.py shares (trained here if missing); on the NLVR task, the
small conditional NAC (checkpoints/nlvr-small: configs/nlvr-small.yaml, no prior), the same
configuration with each prior and the Perceiver IO baseline, the runs of bench/nlvr_runs.py (trained
here if missing: about 11 minutes each on 2 CPU cores; --no-nlvr-runs leaves them out). Accuracy on
each run's fixed validation set; throughput = validation examples per second (median of 5 after a
warm-up). Writes the CSV and docs/figures/dropping.png.

    python bench/dropping.py [--steps 1000] [--no-nlvr-runs]
"""

from __future__ import annotations

import argparse
import statistics
import time

import nlvr_runs
from common import FIGURES, write_table
from toy_runs import PRIORS, trained_perceiver_io, trained_with_prior

from circuitlab.analysis.figures import dropping_figure, save_figure
from circuitlab.train import (
    TrainConfig,
    batch_metrics,
    load_model,
    predict_logits,
    validation_batch,
)
from circuitlab.worlds.tasks import make_task

FRACTIONS = [k / 8 for k in range(8)]
REPEATS = 5
CONTROL = "scale_free"  # also dropped in random order: does least-connected-first matter?


def curve(
    name: str,
    model,
    config: TrainConfig,
    order: str | None = None,
    *,
    fractions: list[float] = FRACTIONS,
    seed: int = 0,
) -> list[dict]:
    """One row per dropped fraction; ``order`` defaults to least connected first (random for
    an all-ones graph, which ranks nothing); ``seed`` draws a random order."""
    task = make_task(config.task, conditional=config.conditional, **config.task_options)
    batch = validation_batch(task, config)
    if order is None:
        order = "random" if model.config.graph == "dense" else "connectivity"
    u = model.config.n_processors
    rows = []
    for fraction in fractions:
        smaller = model.drop_modules(
            round(fraction * u),
            order=order,
            conditioning=batch.conditioning,
            conditioning_mask=batch.conditioning_mask,
            seed=seed,
        )
        # also the warm-up: first-call allocations are not throughput
        _, accuracy = batch_metrics(smaller, batch)
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            predict_logits(smaller, batch)
            times.append(time.perf_counter() - start)
        rows.append(
            {
                "task": config.task,
                "model": name,
                "processors": smaller.config.n_processors,
                "order": order,
                "dropped": fraction,
                "accuracy": accuracy,
                "throughput": len(batch.labels) / statistics.median(times),
            }
        )
    base = rows[0]
    for row in rows:
        row["accuracy_lost"] = base["accuracy"] - row["accuracy"]
        row["speedup"] = row["throughput"] / base["throughput"]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-nlvr-runs",
        dest="nlvr_runs",
        action="store_false",
        help="only the small NLVR NAC (no NLVR prior or Perceiver IO runs to train)",
    )
    args = parser.parse_args()
    rows = []
    for prior in PRIORS:
        model, config, _ = trained_with_prior(prior, args.steps, args.seed)
        rows += curve(f"toy NAC, prior {prior or 'none'}", model, config)
        if prior == CONTROL:
            rows += curve(f"toy NAC, prior {prior}, random order", model, config, "random")
    model, config, _ = trained_perceiver_io(args.steps, args.seed)
    rows += curve("toy Perceiver IO", model, config)
    model, config = load_model("checkpoints/nlvr-small")
    rows += curve("NLVR NAC, prior none (configs/nlvr-small.yaml)", model, config)
    if args.nlvr_runs:
        rows += curve(
            "NLVR NAC, prior none (configs/nlvr-small.yaml), random order", model, config, "random"
        )
        for prior in nlvr_runs.PRIORS:
            model, config = nlvr_runs.trained_with_prior(prior, args.seed)
            rows += curve(f"NLVR NAC, prior {prior}", model, config)
        model, config = nlvr_runs.trained_perceiver_io(args.seed)
        rows += curve("NLVR Perceiver IO", model, config)
    table = write_table(rows, "dropping", "accuracy and throughput against processors dropped")
    (path,) = save_figure(dropping_figure(table), FIGURES, "dropping", formats=("png",))
    print(f"figure: {path}")
    at_most_3 = table[table["accuracy_lost"] <= 0.03]
    best = at_most_3.loc[at_most_3.groupby("model")["speedup"].idxmax()]
    print("largest speed-up for < 3 points of accuracy lost, per model:")
    print(best[["model", "dropped", "speedup", "accuracy_lost"]].to_string(index=False))


if __name__ == "__main__":
    main()
