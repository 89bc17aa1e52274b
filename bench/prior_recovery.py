"""Prior-fit recovery on graphs of known family (docs/results.md, "Prior fits").

For each family, COUNT graphs from the ranges documented in circuitlab.analysis.synthetic
(fixed seeds): how often the verdict names the family (random signatures: `no_prior_fits`),
how often the number of blocks / cliques / m is exact, how often p, p_in, p_out are within
10 % (or 0.01 when small), and how often the verdict would be `ambiguous` at stricter gap
thresholds. Prints a table and writes CSV.

    python bench/prior_recovery.py [--count 20] [--csv bench/results/prior_recovery.csv]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from circuitlab.analysis.recovery import recovery, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20, help="graphs per family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", type=Path, default=Path("bench/results/prior_recovery.csv"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    frame = recovery(args.count, args.seed)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.csv, index=False)
    print(summary(frame).to_string(float_format=lambda x: f"{x:.2f}"))
    print(f"\nper-graph rows: {args.csv}")


if __name__ == "__main__":
    main()
