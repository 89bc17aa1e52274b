"""Recovery of known priors: fit graphs from ``analysis.synthetic`` and score the verdicts.

``bench/prior_recovery.py`` prints the table of docs/results.md from this; a test runs a smaller
draw.
"""

from __future__ import annotations

import time

import pandas as pd
from tqdm import tqdm

from circuitlab.analysis.prior_verdict import NO_PRIOR_FITS, best_prior
from circuitlab.analysis.synthetic import SYNTHETIC_FAMILIES, synthetic_graphs

COUNTS = {"planted_partition": "n_blocks", "ring_of_cliques": "n_cliques", "scale_free": "m"}
RATES = {"erdos_renyi": ("p",), "planted_partition": ("p_in", "p_out")}


def close(fitted: float, true: float) -> bool:
    """Within 10 % relative, or 0.01 absolute when the value is small."""
    return abs(fitted - true) <= max(0.1 * abs(true), 0.01)


def recovery(
    count: int, seed: int = 0, families: tuple[str, ...] = SYNTHETIC_FAMILIES
) -> pd.DataFrame:
    """One row per graph: family, n, verdict, best family, gap, and the recovery checks."""
    rows = []
    jobs = [(f, g) for f in families for g in synthetic_graphs(f, count, seed)]
    for family, sample in tqdm(jobs, desc="fitting", unit="graph"):
        start = time.perf_counter()
        verdict = best_prior(sample.graph, seed=seed)
        wanted = NO_PRIOR_FITS if family == "random_signatures" else family
        row = {
            "family": family,
            "n": sample.graph.number_of_nodes(),
            "verdict": verdict.family,
            "best": verdict.best,
            "gap": verdict.gap,
            "recovered": verdict.family == wanted,
            "seconds": time.perf_counter() - start,
        }
        fitted = verdict.fits[family].params() if family in verdict.fits else {}
        if family in COUNTS:
            key = COUNTS[family]
            row["count_exact"] = fitted.get(key) == sample.params[key]
        if family in RATES:
            row["rates_close"] = all(close(fitted[k], sample.params[k]) for k in RATES[family])
        rows.append(row)
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per family: graphs, recovered, K/m exact, rates within 10 %, ambiguous at 5 and 10 nats."""

    def share(column: str):
        return lambda g: (
            g[column].mean() if column in g and g[column].notna().any() else float("nan")
        )

    grouped = frame.groupby("family", sort=False)
    table = pd.DataFrame(
        {
            "graphs": grouped.size(),
            "recovered": grouped.apply(share("recovered"), include_groups=False),
            "count_exact": grouped.apply(share("count_exact"), include_groups=False),
            "rates_within_10pct": grouped.apply(share("rates_close"), include_groups=False),
            "gap_under_5": grouped.apply(lambda g: (g["gap"] < 5).mean(), include_groups=False),
            "gap_under_10": grouped.apply(lambda g: (g["gap"] < 10).mean(), include_groups=False),
            "median_s": grouped["seconds"].median(),
        }
    )
    return table
