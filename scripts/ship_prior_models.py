"""Ship the object-images prior models of one seed as checkpoints/priors/MODEL: the models of
Fig. 3 (a NAC per graph prior and one with none), which `make demo` exports into one store.

    python scripts/ship_prior_models.py [--seed 0] [--runs runs/objects] [--to checkpoints/priors]

Each run (bench/object_runs.py: RUNS/MODEL-seedS) is copied weights only: the checkpoint keeps
the model, its config and the run's TrainConfig, not the optimiser state a resume needs (about a
third of the size); config.json and summary.json as they are, metrics.csv thinned to a 500-row
curve (``circuitlab.run_records``: its validation rows and evenly spaced steps). Models not
trained yet are skipped with a message.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from circuitlab.checkpoint import CHECKPOINT
from circuitlab.run_config import SUMMARY
from circuitlab.run_records import ship_weights_only

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from object_runs import PRIOR_MODELS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "objects")
    parser.add_argument("--to", type=Path, default=ROOT / "checkpoints" / "priors")
    args = parser.parse_args()
    for model in PRIOR_MODELS:
        run = args.runs / f"{model}-seed{args.seed}"
        if not (run / SUMMARY).is_file():
            print(f"skipped {model}: {run} has not finished (python bench/object_runs.py)")
            continue
        ship_weights_only(run, args.to / model)
        size = (args.to / model / CHECKPOINT).stat().st_size / 2**20
        print(f"shipped {run} -> {args.to / model} ({size:.1f} MiB)")


if __name__ == "__main__":
    main()
