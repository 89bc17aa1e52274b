"""Ship a finished run, weights only, as a checkpoint folder of the repository: how the
related systems' models that ``make demo`` exports were shipped (checkpoints/ni,
checkpoints/mn, checkpoints/nfm; each folder's summary.json and config.json say what it is).

    python scripts/ship_model.py RUN --to checkpoints/NAME

The checkpoint keeps the model, its config and the run's TrainConfig, not the optimiser state
a resume needs; config.json and summary.json are copied, metrics.csv thinned to a 500-row curve
(``circuitlab.run_records.ship_weights_only``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from circuitlab.run_records import ship_weights_only


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished run directory")
    parser.add_argument("--to", type=Path, required=True, help="the checkpoint folder to write")
    args = parser.parse_args()
    try:
        path = ship_weights_only(args.run, args.to)
    except FileNotFoundError as err:
        raise SystemExit(f"error: {err}") from None
    print(f"shipped {args.run} -> {args.to} ({path.stat().st_size / 2**20:.2f} MiB)")


if __name__ == "__main__":
    main()
