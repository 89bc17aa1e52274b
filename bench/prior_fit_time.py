"""Time of the four prior fits at U = 1024 (issue 4's goal: <= 2 s on 2 cores), and of the
goodness-of-fit check on top. Medians of REPEATS runs per graph; prints a table, writes CSV.

    python bench/prior_fit_time.py [--n 1024] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import torch

from circuitlab.analysis.goodness import goodness_of_fit
from circuitlab.analysis.matrix import link_matrix
from circuitlab.analysis.prior_families import fit_all
from circuitlab.circuit import link_probabilities


def graphs(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    signatures = rng.standard_normal((n, 16))
    random_signatures = (link_probabilities(signatures) > 0.5).astype(float)
    np.fill_diagonal(random_signatures, 0)
    return {
        "erdos_renyi p=0.05": link_matrix(nx.gnp_random_graph(n, 0.05, seed=0)),
        "planted_partition K=8": link_matrix(
            nx.planted_partition_graph(8, n // 8, 0.3, 0.02, seed=0)
        ),
        "ring_of_cliques 32x32": link_matrix(nx.ring_of_cliques(32, n // 32)),
        "barabasi_albert m=4": link_matrix(nx.barabasi_albert_graph(n, 4, seed=0)),
        "random signatures d=16": random_signatures,
        "weighted P (random signatures)": link_matrix(link_probabilities(signatures)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", type=Path, default=Path("bench/results/prior_fit_time.csv"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    rows = []
    for name, a in graphs(args.n).items():
        fit_times, check_times = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fits = fit_all(a)
            fit_times.append(time.perf_counter() - start)
        best = min(fits.values(), key=lambda f: f.description_length_)
        if np.all((a == 0) | (a == 1)):
            start = time.perf_counter()
            goodness_of_fit(a, best)
            check_times.append(time.perf_counter() - start)
        rows.append(
            {
                "graph": name,
                "n": args.n,
                "links": int(a.sum() / 2),
                "best": best.family,
                "four_fits_s": statistics.median(fit_times),
                "goal_met": statistics.median(fit_times) <= 2.0,
                "check_s": check_times[0] if check_times else float("nan"),
            }
        )
    frame = pd.DataFrame(rows)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.csv, index=False)
    print(f"torch threads {torch.get_num_threads()}; medians of {args.repeats} runs")
    print(frame.to_string(index=False, float_format=lambda x: f"{x:.2f}"))


if __name__ == "__main__":
    main()
