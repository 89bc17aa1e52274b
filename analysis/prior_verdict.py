"""Which graph prior explains a circuit: ``fit_priors`` and ``best_prior``.

``fit_priors(G)`` fits the four families (``analysis.prior_families``), ranks them by two-part
description length (nats), and gives a verdict:

- the best family, when it beats the second best by at least ``AMBIGUITY_NATS`` and graphs
  simulated from its fit look like G (``analysis.goodness``);
- ``ambiguous`` when the gap is smaller: 3 nats is a likelihood ratio of e^3 ~ 20, "strong"
  evidence on the Kass & Raftery (1995) scale (2 ln B > 6). A planted partition pays about
  that much less than a ring of cliques fitted to it (the ring's extra density and order), so
  a stricter threshold turns many planted partitions ambiguous (docs/results.md: recovery table);
- ``no_prior_fits`` when G falls outside the band of graphs simulated from the best family.

A weighted P (link probabilities, read as expected links) is fitted as it is; its goodness of
fit is checked on one graph sampled from it. Degenerate input has a defined result: a graph with
no links or with every link is Erdos-Renyi with p = 0 or 1 (the other families are not fitted);
fewer than 3 nodes is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from circuitlab.analysis.goodness import GoodnessOfFit, goodness_of_fit
from circuitlab.analysis.matrix import LinkMatrixError, is_binary, link_matrix
from circuitlab.analysis.prior_families import (
    ErdosRenyiFit,
    PlantedPartitionFit,
    PriorFit,
    RingOfCliquesFit,
    ScaleFreeFit,
    candidate_partitions,
)
from circuitlab.circuit import Circuit
from circuitlab.prior_targets import PRIOR_NAMES, sample_graph

AMBIGUITY_NATS = 3.0
AMBIGUOUS, NO_PRIOR_FITS = "ambiguous", "no_prior_fits"
PARAMETER_COLUMNS = (
    "p",
    "n_blocks",
    "p_in",
    "p_out",
    "n_cliques",
    "clique_size",
    "p_ring",
    "m",
    "exponent",
)


@dataclass
class PriorVerdict:
    """The verdict of ``fit_priors``: ``family`` (one of the four, ``ambiguous`` or
    ``no_prior_fits``), the best fit's ``params``, the ``gap`` in nats to the second best, the
    ``best`` family by description length, and the goodness-of-fit check (None if skipped)."""

    family: str
    params: dict[str, Any]
    best: str
    gap: float
    goodness: GoodnessOfFit | None = None
    fits: dict[str, PriorFit] = field(default_factory=dict, repr=False)


def fit_all(a: np.ndarray, seed: int = 0) -> dict[str, PriorFit]:
    """Fit every family that applies to the checked matrix ``a`` (n, n): {family: fit}."""
    fits: dict[str, PriorFit] = {"erdos_renyi": ErdosRenyiFit().fit(a)}
    density = fits["erdos_renyi"].p_
    if density in (0.0, 1.0):
        return fits
    partitions = candidate_partitions(a, seed=seed)
    for family, fit in (
        ("planted_partition", PlantedPartitionFit()),
        ("ring_of_cliques", RingOfCliquesFit()),
    ):
        try:
            fits[family] = fit.fit(a, partitions)
        except ValueError:  # too few blocks for this family
            pass
    fits["scale_free"] = ScaleFreeFit().fit(a)
    return fits


def best_prior(
    source: Circuit | nx.Graph | np.ndarray,
    *,
    check: bool = True,
    n_simulations: int = 12,
    seed: int = 0,
) -> PriorVerdict:
    """Fit the four priors to ``source`` and decide (see the module docstring): the verdict's
    ``.family`` and ``.params``, with every fit in ``.fits``."""
    a = link_matrix(source)
    if a.shape[0] < 3:
        raise LinkMatrixError(f"prior fitting needs at least 3 nodes, got {a.shape[0]}")
    fits = fit_all(a, seed=seed)
    ranked = sorted(fits.values(), key=lambda f: f.description_length_)
    best = ranked[0]
    gap = ranked[1].description_length_ - best.description_length_ if len(ranked) > 1 else np.inf
    goodness = None
    family = best.family
    if check and len(ranked) > 1:
        graph = a if is_binary(a) else sample_graph(a, np.random.default_rng(seed))
        goodness = goodness_of_fit(graph, best, n_simulations=n_simulations, seed=seed)
        if not goodness.fits:
            family = NO_PRIOR_FITS
    if family != NO_PRIOR_FITS and gap < AMBIGUITY_NATS:
        family = AMBIGUOUS
    return PriorVerdict(family, best.params(), best.family, float(gap), goodness, fits)


def fit_priors(
    source: Circuit | nx.Graph | np.ndarray,
    *,
    check: bool = True,
    n_simulations: int = 12,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per family: fitted parameters, description length and its parts (nats),
    relative weight exp(-DL) / sum, gap to the best, and the ``verdict`` (the same in every row).

    ``source``: a networkx graph, a ``Circuit`` (its P) or a (n, n) matrix, 0/1 or weighted.
    Families that do not apply (a ring needs 4 blocks; degenerate graphs) have NaN lengths.
    The goodness-of-fit check is in ``frame.attrs["goodness"]`` (a dict) when run.
    """
    verdict = best_prior(source, check=check, n_simulations=n_simulations, seed=seed)
    return verdict_frame(verdict)


def verdict_frame(verdict: PriorVerdict) -> pd.DataFrame:
    """The table of ``fit_priors`` for an existing verdict."""
    rows = []
    for family in PRIOR_NAMES:
        fit = verdict.fits.get(family)
        row: dict[str, Any] = {"family": family}
        if fit is None:
            row.update(description_length=np.nan, log_likelihood=np.nan, model_cost=np.nan)
            row["params"] = {}
        else:
            params = fit.params()
            row.update(
                description_length=fit.description_length_,
                log_likelihood=fit.log_likelihood_,
                model_cost=fit.model_cost_,
                params=params,
            )
            row.update({k: v for k, v in params.items() if k in PARAMETER_COLUMNS})
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in PARAMETER_COLUMNS:
        if column not in frame:
            frame[column] = np.nan
    lengths = frame["description_length"]
    frame["gap"] = lengths - lengths.min()
    weights = np.exp(-frame["gap"].fillna(np.inf))
    frame["weight"] = weights / weights.sum()
    frame["verdict"] = verdict.family
    columns = [
        "family",
        "description_length",
        "gap",
        "weight",
        "verdict",
        "log_likelihood",
        "model_cost",
        *PARAMETER_COLUMNS,
        "params",
    ]
    frame = frame[columns]
    if verdict.goodness is not None:
        frame.attrs["goodness"] = {
            "observed": verdict.goodness.observed,
            "simulated_mean": verdict.goodness.simulated_mean,
            "z_scores": verdict.goodness.z_scores,
            "outside": verdict.goodness.outside,
        }
    return frame
