"""The prior reading on graphs of known family and parameters: graphs drawn from each prior's
target (its graphon, ``circuitlab.prior_targets``) at U = 32, 64, 128, 256, and circuits of
untrained signatures.

Each drawn graph is read by ``best_prior`` (as given: a 0/1 graph, no null) and judged by
``recovered_prior``: the family named *with its parameters* (blocks of about 11 modules, 12 at
U = 128 as in the Fig. 3 models; the ring's p_out 0.01). ``untrained``: N(0, 1) signatures
(d_sig 16, eps 0.25, an untrained Fig. 3 NAC) read with the random-signature null, counted
as recovered when no family is named. Goal: every cell >= 0.95.

    python bench/prior_graphons.py [--count 20] [--sizes 32 64 128 256]

Prints the share recovered per family and size, and writes bench/results/prior_graphons.csv
(one row per graph, with what was fitted against the target).
"""

from __future__ import annotations

import argparse
import warnings

from common import RESULTS, pipe_table

from circuitlab.analysis.recovery import GRAPHON_SIZES, graphon_recovery

NAME = "prior_graphons"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20, help="graphs per family and size")
    parser.add_argument("--sizes", nargs="+", type=int, default=list(GRAPHON_SIZES))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    frame = graphon_recovery(args.count, tuple(args.sizes), seed=args.seed)
    frame.to_csv(RESULTS / f"{NAME}.csv", index=False)
    table = frame.groupby(["family", "n"])["recovered"].mean().unstack("n")
    table["all sizes"] = frame.groupby("family")["recovered"].mean()
    print(f"share recovered with parameters ({args.count} graphs a cell; goal >= 0.95):")
    print(pipe_table(table.round(2), index=True))
    verdicts = frame.groupby(["family", "verdict"]).size().unstack(fill_value=0)
    print("\nverdicts:")
    print(pipe_table(verdicts, index=True))
    print(f"written: {RESULTS / f'{NAME}.csv'}")


if __name__ == "__main__":
    main()
