"""Which graph prior explains a circuit: ``fit_priors`` and ``best_prior``.

The one reading of the question, used by the library, ``circuitlab analyze``, the app's prior
panel and the benches alike:

- **what is read**: the link-probability matrix P itself, entries read as expected links (each
  family's graphon fitted by maximum likelihood, ``analysis.prior_families``), over the
  processors (read-out modules left out: ``readouts=True`` keeps them). A networkx graph or a
  0/1 matrix is read as it is: pass ``to_graph(circuit, threshold=0.5)`` or a graph drawn from
  P to get the thresholded or single-draw readings, named options that nothing calls by
  default (a graph drawn from a near-uniform P reads Erdos-Renyi whatever was learned, and at
  P > 0.5 weak-link families are empty);
- **the families compared** by two-part description length (nats); the best is named when it
  beats the second best by at least ``AMBIGUITY_NATS`` (else ``ambiguous``: 3 nats is a
  likelihood ratio of e^3 ~ 20, "strong" evidence on the Kass & Raftery (1995) scale) and
  graphs simulated from its fit look like a graph drawn from P (``analysis.goodness``; else
  ``no_prior_fits``);
- **the null beside it** (``analysis.prior_null``): the same reading of circuits that learned
  nothing, random signatures of the circuit's width and eps by default for a ``Circuit``, or an
  untrained model's P over >= 20 seeds (``circuitlab.untrained.untrained_null``). A reading
  whose density and structure both lie inside the null's band is ``like_null``, whatever family
  fits it best: nothing it shows needs learning.

A family named this way is a description; whether it is the prior a model was trained with,
with that prior's parameters, is ``analysis.recovery.recovered_prior``.

Degenerate input has a defined result: a graph with no links or with every link is Erdos-Renyi
with p = 0 or 1 (the other families are not fitted); fewer than 3 nodes is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from circuitlab.analysis.goodness import GoodnessOfFit, goodness_of_fit
from circuitlab.analysis.matrix import LinkMatrixError, is_binary, link_matrix
from circuitlab.analysis.prior_families import PriorFit, fit_all
from circuitlab.analysis.prior_null import NullComparison, PriorNull, random_signature_null
from circuitlab.circuit import Circuit
from circuitlab.prior_targets import PRIOR_NAMES, sample_graph

__all__ = [
    "AMBIGUITY_NATS",
    "PriorVerdict",
    "best_prior",
    "block_order",
    "fit_priors",
    "read_matrix",
]

AMBIGUITY_NATS = 3.0
AMBIGUOUS, NO_PRIOR_FITS, LIKE_NULL = "ambiguous", "no_prior_fits", "like_null"
# the words of a verdict that name no family
NO_FAMILY = (AMBIGUOUS, NO_PRIOR_FITS, LIKE_NULL)
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
    """The verdict of ``best_prior``.

    ``family``: one of the four families, ``ambiguous``, ``no_prior_fits`` or ``like_null``;
    ``params``: the best fit's parameters; ``best``: the best family by description length;
    ``gap``: nats to the second best; ``goodness``: the goodness-of-fit check (None if
    skipped); ``null``: the comparison with the null (None without one); ``reading``: what was
    read (e.g. "P among 128 processors"); ``fits``: every family's fit.

    Parameters
    ----------
    family, params, best, gap, goodness, fits, null, reading
        As above.
    """

    family: str
    params: dict[str, Any]
    best: str
    gap: float
    goodness: GoodnessOfFit | None = None
    fits: dict[str, PriorFit] = field(default_factory=dict, repr=False)
    null: NullComparison | None = None
    reading: str = ""

    @property
    def names_family(self) -> bool:
        """Whether the verdict names one of the four families."""
        return self.family not in NO_FAMILY


def block_order(a: np.ndarray, params: dict) -> np.ndarray:
    """An order of the n modules of ``a`` (n, n) that draws a fit's blocks as the paper's Fig. 3
    draws P: a ring of cliques' cliques in turn around its ring, a planted partition's blocks in
    turn (each block's modules in their own order), any other family's modules by descending
    expected degree. Returns (n,) module indices.

    Parameters
    ----------
    a
        (n, n) the matrix the fit read (``read_matrix``).
    params
        The fit's parameters (``PriorVerdict.params`` or a fit's ``params``): ``labels`` (one
        block per module) and, for a ring, ``ring_order`` (the blocks around the ring).
    """
    labels = params.get("labels")
    if labels is None:
        return np.argsort(-np.asarray(a).sum(1), kind="stable")
    labels = np.asarray(labels, dtype=int)
    ring = params.get("ring_order")
    place = np.argsort(ring) if ring is not None else np.arange(labels.max() + 1)
    return np.lexsort((np.arange(len(labels)), place[labels]))


def read_matrix(
    source: Circuit | nx.Graph | np.ndarray, *, readouts: bool = False
) -> tuple[np.ndarray, str]:
    """The checked matrix the prior reading fits, and a phrase saying what it is.

    A ``Circuit`` gives its P among the processors (with the read-out modules too when
    ``readouts``); a graph its 0/1 adjacency; a matrix itself (weighted or 0/1).

    Parameters
    ----------
    source, readouts
        As above.
    """
    if isinstance(source, Circuit):
        keep = np.arange(source.n_modules) if readouts else source.processors
        if len(keep) == 0:
            raise LinkMatrixError("the circuit has no processor modules to read")
        p = source.link_probability()[np.ix_(keep, keep)]
        what = "modules" if readouts else "processors"
        return link_matrix(p), f"P among {len(keep)} {what}"
    a = link_matrix(source)
    kind = "0/1 graph" if is_binary(a) else "weighted matrix"
    return a, f"{kind} of {a.shape[0]} nodes"


def default_null(source: Circuit | nx.Graph | np.ndarray, n: int) -> PriorNull | None:
    """The null a reading gets when none is given: random signatures of a ``Circuit``'s width,
    eps and truncation for its ``n`` read modules; None for a graph or a matrix (nothing says
    what an unlearned one would be)."""
    if not isinstance(source, Circuit):
        return None
    return random_signature_null(n, source.signatures.shape[1], source.eps, source.truncation)


def best_prior(
    source: Circuit | nx.Graph | np.ndarray,
    *,
    readouts: bool = False,
    null: PriorNull | str | None = "auto",
    check: bool = True,
    n_simulations: int = 12,
    seed: int = 0,
) -> PriorVerdict:
    """Fit the four priors to ``source`` and decide (the reading of the module docstring).

    Parameters
    ----------
    source
        A ``Circuit`` (its P, processors only unless ``readouts``), a networkx graph or a
        (n, n) matrix, 0/1 or weighted (entries in [0, 1], symmetric).
    readouts
        Keep a circuit's read-out modules in the reading (they link to processors only).
    null
        The circuits that learned nothing to compare with: a ``PriorNull`` (e.g.
        ``untrained_null(config)`` for a trained model), ``"auto"`` (random signatures of a
        circuit's width and eps; no null for a graph or a matrix) or None (no comparison).
    check
        Run the goodness-of-fit check (``no_prior_fits`` needs it).
    n_simulations
        Graphs simulated from the best fit for the check.
    seed
        Seed of the partitions' k-means, the draw from P and the simulations.

    Returns
    -------
    PriorVerdict
        ``.family`` (a family, ``ambiguous``, ``no_prior_fits`` or ``like_null``), ``.params``,
        ``.null`` (the band), ``.reading`` and every fit in ``.fits``.

    Raises
    ------
    LinkMatrixError
        For fewer than 3 read nodes, a matrix that is not symmetric, not square or outside
        [0, 1], or a null built for another number of modules.

    >>> import numpy as np
    >>> from circuitlab.prior_targets import planted_partition
    >>> best_prior(planted_partition(64, n_blocks=4), null=None).family
    'planted_partition'
    """
    a, reading = read_matrix(source, readouts=readouts)
    if a.shape[0] < 3:
        raise LinkMatrixError(f"prior fitting needs at least 3 nodes, got {a.shape[0]}")
    if isinstance(null, str):
        if null != "auto":
            raise ValueError(f"null must be a PriorNull, 'auto' or None, got {null!r}")
        null = default_null(source, a.shape[0])
    fits = fit_all(a, seed=seed)
    ranked = sorted(fits.values(), key=lambda f: f.description_length_)
    best = ranked[0]
    gap = ranked[1].description_length_ - best.description_length_ if len(ranked) > 1 else np.inf
    goodness = None
    family = best.family
    comparison = None if null is None else null.compare(a, best.family, fits)
    if check and len(ranked) > 1:
        graph = a if is_binary(a) else sample_graph(a, np.random.default_rng(seed))
        goodness = goodness_of_fit(graph, best, n_simulations=n_simulations, seed=seed)
        if not goodness.fits:
            family = NO_PRIOR_FITS
    if family != NO_PRIOR_FITS and gap < AMBIGUITY_NATS:
        family = AMBIGUOUS
    if comparison is not None and not comparison.distinguishable:
        family = LIKE_NULL
    return PriorVerdict(
        family, best.params(), best.family, float(gap), goodness, fits, comparison, reading
    )


def fit_priors(
    source: Circuit | nx.Graph | np.ndarray,
    *,
    readouts: bool = False,
    null: PriorNull | str | None = "auto",
    check: bool = True,
    n_simulations: int = 12,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per family: fitted parameters, description length and its parts (nats),
    relative weight exp(-DL) / sum, gap to the best, and the ``verdict`` (the same in every row).

    Takes the arguments of ``best_prior``. Families that do not apply (a ring needs 4 blocks;
    degenerate graphs) have NaN lengths. ``frame.attrs`` holds the goodness-of-fit check
    (``"goodness"``, a dict, when run), the comparison with the null (``"null"``, a dict, when
    there is one) and what was read (``"reading"``).

    Parameters
    ----------
    source, readouts, null, check, n_simulations, seed
        As ``best_prior`` takes them.
    """
    verdict = best_prior(
        source,
        readouts=readouts,
        null=null,
        check=check,
        n_simulations=n_simulations,
        seed=seed,
    )
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
    if verdict.null is not None:
        frame.attrs["null"] = verdict.null.to_dict()
    frame.attrs["reading"] = verdict.reading
    return frame
