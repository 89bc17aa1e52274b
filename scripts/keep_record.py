"""Keep a run's record in the repository without its weights: how the screens and seeds under
``training/`` are kept (training/README.md).

    python scripts/keep_record.py RUN --to training/NAME [--init-from training/EARLIER]

Copies config.json and summary.json (a finished run's) and metrics.csv thinned to a 1,000-row
curve that keeps every validation row (``circuitlab.run_records.keep_record``). A warm-started
run names the record of the run it started from with ``--init-from``, so that its config points
at a folder in the repository rather than at a ``runs/`` folder that does not outlive the
machine. To get the weights back, retrain from the kept config.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from circuitlab.run_records import keep_record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run directory")
    parser.add_argument("--to", type=Path, required=True, help="the record folder to write")
    parser.add_argument(
        "--init-from",
        type=Path,
        default=None,
        help="the record (training/NAME) of the run RUN was warm-started from",
    )
    args = parser.parse_args()
    try:
        rows = keep_record(args.run, args.to, init_from=args.init_from)
    except (FileNotFoundError, FileExistsError) as err:
        raise SystemExit(f"error: {err}") from None
    print(f"kept {args.run} -> {args.to} (config, summary, {rows:,}-row curve; no weights)")


if __name__ == "__main__":
    main()
