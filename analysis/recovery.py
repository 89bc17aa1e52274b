"""Recovery of known priors: was a family found *with the parameters it was imposed with*?

- ``recovered_prior(verdict, prior, n_modules, **params)``: the rule a trained model's verdict
  is judged by. The verdict must name the imposed family, and its fit must carry the imposed
  parameters: Erdos-Renyi p within 0.03 of the target's density; a planted partition / ring of
  cliques with the imposed number of blocks / cliques and p_in, p_out (p_ring) within 0.1 of
  the target's (the target's own means over those groups of pairs); scale-free with m and
  exponent inside the spread of the same fit on 200 graphs drawn from the target.
- ``recovery(count)``: fit graphs from ``analysis.synthetic`` and score the verdicts;
  ``bench/prior_recovery.py`` prints the table of docs/results.md from this, a test runs a
  smaller draw.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from tqdm import tqdm

from circuitlab.analysis.prior_families import ScaleFreeFit
from circuitlab.analysis.prior_verdict import NO_PRIOR_FITS, PriorVerdict, best_prior
from circuitlab.analysis.synthetic import SYNTHETIC_FAMILIES, synthetic_graphs
from circuitlab.prior_targets import (
    block_labels,
    default_blocks,
    off_diagonal_density,
    sample_graph,
    target,
)

__all__ = ["GRAPHON_SIZES", "graphon_recovery", "recovered_prior", "recovery", "summary"]

# how far a fitted rate may be from the target's and still count as recovered
RATE_TOLERANCE = {"erdos_renyi": 0.03, "planted_partition": 0.1, "ring_of_cliques": 0.1}
SCALE_FREE_DRAWS = 200  # the band holds a new draw of the target with probability 200/201


@dataclass
class PriorRecovery:
    """Whether ``prior`` was recovered: ``recovered`` (the family named and every check
    passed), ``checks`` {what: passed}, the ``target``'s parameters and the ``fitted`` ones.

    Parameters
    ----------
    prior
        The imposed prior's name.
    recovered
        The family named and every check passed.
    checks
        Each check's outcome, by what it checks.
    target, fitted
        The imposed parameters and the fitted ones.
    """

    prior: str
    recovered: bool
    checks: dict[str, bool] = field(default_factory=dict)
    target: dict[str, float] = field(default_factory=dict)
    fitted: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        """One line: each parameter fitted against the target, and which checks failed."""
        shown = ", ".join(
            f"{k} {self.fitted.get(k, float('nan')):.3g} (target {v})"
            for k, v in self.target.items()
        )
        failed = [k for k, ok in self.checks.items() if not ok]
        head = "recovered" if self.recovered else f"not recovered ({', '.join(failed)})"
        return f"{self.prior}: {head}; {shown}"


def target_parameters(prior: str, n_modules: int, **params: float) -> dict[str, object]:
    """The parameters a fit of ``prior``'s target (``circuitlab.prior_targets``, for
    ``n_modules`` and the imposed ``params``) should find.

    Rates are the target's means over the groups of pairs each family has (a ring's first nodes
    link to two blocks with probability 1, so its p_in and p_ring sit above the nominal 0.9 and
    p_out); scale-free gives (low, high) spreads of m and the exponent over graphs drawn from
    the target."""
    g = target(prior, n_modules, **params)
    if prior == "erdos_renyi":
        return {"p": off_diagonal_density(g)}
    if prior == "scale_free":
        return _scale_free_spread(n_modules)
    k = int(params.get("n_blocks") or default_blocks(n_modules))
    labels = block_labels(n_modules, k)
    same = labels[:, None] == labels[None, :]
    off = ~np.eye(n_modules, dtype=bool)
    if prior == "planted_partition":
        return {"n_blocks": k, "p_in": _mean(g, same & off), "p_out": _mean(g, ~same)}
    step = np.abs(labels[:, None] - labels[None, :])
    ring = (step == 1) | (step == k - 1)
    return {
        "n_cliques": k,
        "p_in": _mean(g, same & off),
        "p_ring": _mean(g, ring),
        "p_out": _mean(g, ~same & ~ring),
    }


def _mean(g: np.ndarray, mask: np.ndarray) -> float:
    return float(g[mask].mean()) if mask.any() else 0.0


@lru_cache(maxsize=8)
def _scale_free_spread(n_modules: int) -> dict[str, object]:
    """(low, high) of the scale-free fit's m and exponent over graphs drawn from the target."""
    g = target("scale_free", n_modules)
    rng = np.random.default_rng(n_modules)
    fits = [ScaleFreeFit().fit(sample_graph(g, rng)) for _ in range(SCALE_FREE_DRAWS)]
    m = [f.m_ for f in fits]
    exponent = [f.exponent_ for f in fits if np.isfinite(f.exponent_)]
    return {"m": (min(m), max(m)), "exponent": (min(exponent), max(exponent))}


def recovered_prior(
    verdict: PriorVerdict, prior: str, n_modules: int, **params: float
) -> PriorRecovery:
    """Judge ``verdict`` (of ``best_prior``) against the ``prior`` a model was trained with, on
    ``n_modules`` processors with the imposed ``params`` (``prior_params`` of its config).

    >>> from circuitlab.prior_targets import planted_partition
    >>> v = best_prior(planted_partition(96, n_blocks=3), null=None)
    >>> recovered_prior(v, "planted_partition", 96, n_blocks=3).recovered
    True

    Parameters
    ----------
    verdict
        ``best_prior``'s verdict on the learned circuit.
    prior
        The imposed prior's name.
    n_modules
        The processors read.
    **params
        The imposed parameters.
    """
    wanted = target_parameters(prior, n_modules, **params)
    fit = verdict.fits.get(prior)
    fitted = {} if fit is None else fit.params()
    checks = {"family named": verdict.family == prior}
    for key, value in wanted.items():
        got = fitted.get(key)
        if got is None:
            checks[key] = False
        elif isinstance(value, tuple):
            checks[key] = value[0] <= got <= value[1]
        elif key in ("n_blocks", "n_cliques"):
            checks[key] = got == value
        else:
            checks[key] = abs(got - value) <= RATE_TOLERANCE[prior]
    shown = {k: v for k, v in fitted.items() if k in wanted}
    target_shown = {
        k: (
            f"{v[0]:.3g}-{v[1]:.3g}"
            if isinstance(v, tuple)
            else v
            if isinstance(v, int)
            else round(float(v), 3)
        )
        for k, v in wanted.items()
    }
    return PriorRecovery(prior, all(checks.values()), checks, target_shown, shown)


COUNTS = {"planted_partition": "n_blocks", "ring_of_cliques": "n_cliques", "scale_free": "m"}
RATES = {"erdos_renyi": ("p",), "planted_partition": ("p_in", "p_out")}


def close(fitted: float, true: float) -> bool:
    """Within 10 % relative, or 0.01 absolute when the value is small."""
    return abs(fitted - true) <= max(0.1 * abs(true), 0.01)


def recovery(
    count: int, seed: int = 0, families: tuple[str, ...] = SYNTHETIC_FAMILIES
) -> pd.DataFrame:
    """One row per graph: family, n, verdict, best family, gap, and the recovery checks.

    Parameters
    ----------
    count
        Graphs per family.
    seed
        Seed of the draws and fits.
    families
        The families drawn, and "random_signatures".
    """
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
    """Per family: graphs, recovered, K/m exact, rates within 10 %, ambiguous at 5 and 10 nats.

    Parameters
    ----------
    frame
        ``recovery``'s rows.
    """

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


# the graphon check: every family's target at these sizes, blocks of about 11 modules as in
# the Fig. 3 models (12 blocks at U = 128), the ring's p_out that of configs/object-images
GRAPHON_SIZES = (32, 64, 128, 256)
GRAPHON_FAMILIES = ("erdos_renyi", "planted_partition", "ring_of_cliques", "scale_free")
UNTRAINED = "untrained"


def graphon_parameters(family: str, n_modules: int) -> dict[str, float]:
    """The imposed parameters of ``family``'s target at ``n_modules`` in the graphon check."""
    blocks = max(4, round(n_modules / 10.7))
    if family == "planted_partition":
        return {"n_blocks": blocks}
    if family == "ring_of_cliques":
        return {"n_blocks": blocks, "p_out": 0.01}
    return {}


def graphon_recovery(
    count: int,
    sizes: tuple[int, ...] = GRAPHON_SIZES,
    families: tuple[str, ...] = (*GRAPHON_FAMILIES, UNTRAINED),
    seed: int = 0,
) -> pd.DataFrame:
    """One row per graph: ``count`` 0/1 graphs drawn from each family's target
    (``circuitlab.prior_targets``) at each size, judged by ``recovered_prior``; and, as
    ``untrained``, ``count`` circuits of N(0, 1) signatures (d_sig 16, eps 0.25: an untrained
    Fig. 3 NAC) read by ``best_prior`` with its null, judged recovered when no family is named.
    Columns: family, n, verdict, best, gap, recovered, detail, seconds.

    Parameters
    ----------
    count
        As above.
    sizes
        The graph sizes n.
    families
        The families drawn, and "untrained".
    seed
        Seed of the draws and fits.
    """
    from circuitlab.circuit import Circuit

    rows = []
    jobs = [(f, n, k) for f in families for n in sizes for k in range(count)]
    for family, n, k in tqdm(jobs, desc="graphons", unit="graph"):
        # seeded by the family's place in the full list: a subset draws the same graphs
        rng = np.random.default_rng([seed, n, k, (*GRAPHON_FAMILIES, UNTRAINED).index(family)])
        start = time.perf_counter()
        if family == UNTRAINED:
            circuit = Circuit(rng.standard_normal((n, 16)), ["processor"] * n, eps=0.25)
            verdict = best_prior(circuit, seed=seed)
            recovered, detail = not verdict.names_family, verdict.null.describe()
        else:
            params = graphon_parameters(family, n)
            graph = sample_graph(target(family, n, **params), rng)
            verdict = best_prior(graph, null=None, seed=seed)
            judged = recovered_prior(verdict, family, n, **params)
            recovered, detail = judged.recovered, judged.describe()
        rows.append(
            {
                "family": family,
                "n": n,
                "verdict": verdict.family,
                "best": verdict.best,
                "gap": verdict.gap,
                "recovered": recovered,
                "detail": detail,
                "seconds": time.perf_counter() - start,
            }
        )
    return pd.DataFrame(rows)
