"""Goodness of fit: does a graph look like the graphs its fitted prior generates?

Simulate graphs from the fitted model and compare four statistics of the observed graph with
their simulated spread: the degree distribution (Kolmogorov-Smirnov distance to the pooled
simulated degrees), transitivity, the modularity of Louvain communities, and the three largest
adjacency eigenvalues. A statistic is outside the band when it lies more than ``z`` simulated
standard deviations from the simulated mean, where the standard deviation is floored at
``rel_tol`` times the mean (deterministic models simulate near-identical graphs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from circuitlab.analysis.fast_louvain import louvain_modularity
from circuitlab.analysis.matrix import top_eigenvalues
from circuitlab.analysis.prior_families import PriorFit

__all__ = ["GoodnessOfFit", "degree_histograms", "goodness_of_fit"]

STATISTICS = (
    "degree_ks",
    "transitivity",
    "modularity",
    "eigenvalue_1",
    "eigenvalue_2",
    "eigenvalue_3",
)


@dataclass
class GoodnessOfFit:
    """Observed statistics, simulated means and spreads, and which fall outside the band.

    Parameters
    ----------
    observed
        Each statistic of the read graph, by name.
    simulated_mean, simulated_sd
        Each statistic's mean and spread over the graphs simulated from the fit.
    z_scores
        (observed - mean) / sd per statistic.
    outside
        The statistics outside the band.
    """

    observed: dict[str, float]
    simulated_mean: dict[str, float]
    simulated_sd: dict[str, float]
    z_scores: dict[str, float]
    outside: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return not self.outside


def graph_statistics(a: np.ndarray, seed: int = 0) -> dict[str, float]:
    """Transitivity, Louvain modularity and top-3 eigenvalues of a 0/1 adjacency (n, n)."""
    degrees = a.sum(axis=1)
    triangles = float(((a @ a) * a).sum())
    wedges = float((degrees * (degrees - 1)).sum())
    q = louvain_modularity(a, seed)
    top = top_eigenvalues(a)
    return {
        "transitivity": triangles / wedges if wedges else 0.0,
        "modularity": q,
        "eigenvalue_1": float(top[0]),
        "eigenvalue_2": float(top[1]),
        "eigenvalue_3": float(top[2]),
    }


def ks_statistic(x: np.ndarray, y: np.ndarray) -> float:
    """The two-sample Kolmogorov-Smirnov statistic of samples ``x`` and ``y`` (1-D, non-empty):
    ``scipy.stats.ks_2samp(x, y).statistic`` computed the same way, without the exact p-value
    that ``ks_2samp`` works out on samples this small and the check never reads.

    Parameters
    ----------
    x, y
        As above.
    """
    x, y = np.sort(x), np.sort(y)
    both = np.concatenate([x, y])
    diffs = np.searchsorted(x, both, side="right") / len(x)
    diffs = diffs - np.searchsorted(y, both, side="right") / len(y)
    below = np.clip(-diffs[np.argmin(diffs)], 0, 1)
    above = diffs[np.argmax(diffs)]
    d = float(below if below > above else above)
    n1, n2 = len(x), len(y)
    if max(n1, n2) <= 10_000:  # ks_2samp's exact method snaps d to a multiple of 1 / lcm
        lcm = (n1 // math.gcd(n1, n2)) * n2
        d = int(np.round(d * lcm)) * 1.0 / lcm
    return d


def degree_histograms(
    a: np.ndarray,
    fit: PriorFit,
    rng: np.random.Generator,
    n_simulations: int = 20,
    size: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Modules per degree in the 0/1 graph ``a`` and, averaged, in ``n_simulations`` graphs
    drawn from ``fit``: two arrays of ``size`` entries (default: up to the largest degree).

    Parameters
    ----------
    a
        (n, n) the 0/1 graph.
    fit
        The prior fit simulated from.
    rng
        The random generator of the draws.
    n_simulations, size
        As above.
    """
    observed = a.sum(axis=1).astype(int)
    simulated = [fit.sample(rng).sum(axis=1).astype(int) for _ in range(n_simulations)]
    if size is None:
        size = int(max(observed.max(), max(s.max() for s in simulated))) + 1
    counts = np.bincount(observed, minlength=size)[:size]
    mean = np.mean([np.bincount(s, minlength=size)[:size] for s in simulated], axis=0)
    return counts, mean


def goodness_of_fit(
    a: np.ndarray,
    fit: PriorFit,
    n_simulations: int = 12,
    z: float = 4.0,
    rel_tol: float = 0.05,
    seed: int = 0,
) -> GoodnessOfFit:
    """Compare the 0/1 graph ``a`` (n, n) with ``n_simulations`` graphs drawn from ``fit``.

    Parameters
    ----------
    a
        (n, n) the 0/1 graph read.
    fit
        The prior fit simulated from.
    n_simulations
        Graphs drawn from the fit.
    z
        Simulated standard deviations beyond which a statistic falls outside the band.
    rel_tol
        The floor of the simulated spread, as a share of the simulated mean.
    seed
        Seed of the draws.
    """
    if n_simulations < 1:
        raise ValueError(
            f"n_simulations must be at least 1, got {n_simulations}; "
            "to skip the goodness-of-fit check pass check=False (CLI: --no-check)"
        )
    rng = np.random.default_rng(seed)
    sims = [fit.sample(rng) for _ in range(n_simulations)]
    observed = graph_statistics(a, seed=seed)
    simulated = [graph_statistics(s, seed=seed) for s in sims]
    sim_degrees = [s.sum(axis=1) for s in sims]
    pooled = np.concatenate(sim_degrees)
    observed["degree_ks"] = ks_statistic(a.sum(axis=1), pooled)
    for i, stats in enumerate(simulated):
        others = np.concatenate(sim_degrees[:i] + sim_degrees[i + 1 :]) if len(sims) > 1 else pooled
        stats["degree_ks"] = ks_statistic(sim_degrees[i], others)
    mean, sd, zs, outside = {}, {}, {}, []
    for name in STATISTICS:
        values = np.array([s[name] for s in simulated])
        mean[name], sd[name] = float(values.mean()), float(values.std(ddof=1))
        spread = max(sd[name], rel_tol * abs(mean[name]), 1e-3)
        zs[name] = float((observed[name] - mean[name]) / spread)
        # a degree distribution closer to the model's than the simulations are is no misfit
        if zs[name] > z or (name != "degree_ks" and zs[name] < -z):
            outside.append(name)
    return GoodnessOfFit(observed, mean, sd, zs, outside)
