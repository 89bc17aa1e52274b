"""The null beside a prior verdict: what the same reading gives for circuits that learned nothing.

A fitted family says little on its own: a near-uniform P is described by Erdos-Renyi whether or
not a model learned anything, and random signatures already give P a heavy-tailed degree
spread. So every verdict can be held against a *null*, a stack of link-probability matrices of
circuits that learned nothing:

- for a trained model, the same architecture untrained: its P at initialisation over >= 20
  seeds (``circuitlab.untrained.untrained_null``, which needs torch);
- for a store or a ``Circuit`` without a model, random signatures of the same width, eps and
  truncation (``random_signature_null``): an unconditional NAC draws its signatures so, as
  N(0, 1) vectors.

Two statistics of the reading are compared with the null's spread (``NULL_STATISTICS``):

- ``density``: the mean off-diagonal entry of the read matrix;
- ``structure``: what the verdict's family saves over a uniform graph, the description length
  of an Erdos-Renyi fit less the family's, per node pair (nats; 0 for Erdos-Renyi itself).

A statistic lies outside the band when it is more than ``NULL_Z`` standard deviations of the
null from the null's mean (the spread floored at 5 % of the mean, and at 1e-4, since some nulls
barely vary). A learned P with either statistic outside the band is *distinguishable* from
the null; one with both inside reads ``like_null`` whatever family fits it best.

>>> import numpy as np
>>> from circuitlab.circuit import link_probabilities
>>> null = random_signature_null(40, 16, eps=0.25, n_draws=20)
>>> uniform = np.full((40, 40), 0.3)
>>> null.compare(uniform, "erdos_renyi").distinguishable  # denser than any untrained draw
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from circuitlab.analysis.matrix import LinkMatrixError, check_link_matrix
from circuitlab.analysis.prior_families import PriorFit, fit_all, n_pairs
from circuitlab.circuit import link_probabilities

__all__ = ["NullComparison", "PriorNull", "random_signature_null"]

NULL_DRAWS = 20
NULL_Z = 4.0
NULL_STATISTICS = ("density", "structure")
_REL_FLOOR, _ABS_FLOOR = 0.05, 1e-4


@dataclass
class NullComparison:
    """A reading's statistics against the null's band, for one ``family``.

    ``observed``, ``mean``, ``sd`` and ``z_scores`` are keyed by statistic
    (``NULL_STATISTICS``); ``outside`` lists those beyond ``NULL_Z``; ``source`` says what the
    null is (e.g. "random signatures (d_sig 16, eps 0.25), 20 draws").

    Parameters
    ----------
    source
        What the null is.
    family
        The family whose band the reading is held against.
    observed, mean, sd, z_scores
        The reading's statistics, the null's mean and spread, and the z-scores, by statistic.
    outside
        The statistics beyond ``NULL_Z``.
    """

    source: str
    family: str
    observed: dict[str, float]
    mean: dict[str, float]
    sd: dict[str, float]
    z_scores: dict[str, float]
    outside: list[str] = field(default_factory=list)

    @property
    def distinguishable(self) -> bool:
        """Whether the reading lies outside the null's band on at least one statistic."""
        return bool(self.outside)

    def to_dict(self) -> dict:
        """The comparison as plain data (source, family, observed, mean, sd, z_scores,
        distinguishable): what ``fit_priors`` keeps in ``frame.attrs`` and the app sends."""
        return {
            "source": self.source,
            "family": self.family,
            "observed": self.observed,
            "mean": self.mean,
            "sd": self.sd,
            "z_scores": self.z_scores,
            "distinguishable": self.distinguishable,
        }

    def describe(self) -> str:
        """One line: each statistic observed against the null's mean and spread."""
        parts = [
            f"{name} {self.observed[name]:.4g} (null {self.mean[name]:.4g} +- {self.sd[name]:.2g})"
            for name in self.observed
        ]
        verdict = "distinguishable from" if self.distinguishable else "like"
        return f"{verdict} the null [{self.source}]: " + "; ".join(parts)


def density(a: np.ndarray) -> float:
    """Mean off-diagonal entry of the (n, n) matrix ``a`` (its diagonal is zero)."""
    n = a.shape[0]
    return float(a.sum() / max(n * (n - 1), 1))


def structure(fits: dict[str, PriorFit], family: str, n: int) -> float:
    """What ``family`` saves over Erdos-Renyi, per node pair: (DL_ER - DL_family) / pairs."""
    return float(
        (fits["erdos_renyi"].description_length_ - fits[family].description_length_)
        / max(n_pairs(n), 1)
    )


def null_statistics(a: np.ndarray, fits: dict[str, PriorFit], family: str) -> dict[str, float]:
    """The null's statistics of a checked matrix ``a`` (n, n) under ``family``'s fit: always
    ``density``; ``structure`` when the family was fitted and is not Erdos-Renyi."""
    stats = {"density": density(a)}
    if family != "erdos_renyi" and family in fits:
        stats["structure"] = structure(fits, family, a.shape[0])
    return stats


class PriorNull:
    """Link-probability matrices of circuits that learned nothing, and their band per family.

    ``matrices`` (S, n, n): S >= 2 null draws of the same n modules (entries in [0, 1],
    symmetric); ``source`` says what they are. The families are fitted to each draw once, on
    first use (``seed`` for the fits), and kept.

    Parameters
    ----------
    matrices
        (S, n, n) the null's link-probability matrices, S >= 2.
    source
        What they are, for messages and tables.
    seed
        Seed of the families' fits to each draw.
    """

    def __init__(self, matrices: np.ndarray | Sequence[np.ndarray], source: str, seed: int = 0):
        stack = [check_link_matrix(m, name=f"null draw {i}") for i, m in enumerate(matrices)]
        if len(stack) < 2:
            raise LinkMatrixError(f"a null needs at least 2 draws, got {len(stack)}")
        sizes = {m.shape[0] for m in stack}
        if len(sizes) > 1:
            raise LinkMatrixError(f"the null's draws have different sizes {sorted(sizes)}")
        self.matrices = np.stack(stack)
        self.source = source
        self.seed = seed
        self._fits: list[dict[str, PriorFit]] | None = None

    @property
    def n_modules(self) -> int:
        return int(self.matrices.shape[1])

    def __len__(self) -> int:
        return len(self.matrices)

    def __repr__(self) -> str:
        return f"PriorNull({self.source!r}, draws={len(self)}, n={self.n_modules})"

    def fits(self) -> list[dict[str, PriorFit]]:
        """Every family fitted to every draw (computed once)."""
        if self._fits is None:
            self._fits = [fit_all(a, seed=self.seed) for a in self.matrices]
        return self._fits

    def band(self, family: str) -> dict[str, tuple[float, float]]:
        """{statistic: (mean, sd)} over the draws under ``family`` (statistics that a family
        could not be fitted to on fewer than 2 draws are left out)."""
        values: dict[str, list[float]] = {}
        for a, fits in zip(self.matrices, self.fits(), strict=True):
            for name, value in null_statistics(a, fits, family).items():
                values.setdefault(name, []).append(value)
        return {
            name: (float(np.mean(v)), float(np.std(v, ddof=1)))
            for name, v in values.items()
            if len(v) >= 2
        }

    def compare(
        self,
        a: np.ndarray,
        family: str,
        fits: dict[str, PriorFit] | None = None,
        z: float = NULL_Z,
    ) -> NullComparison:
        """The reading ``a`` (n, n; a matrix, checked here) against the band of ``family``.

        ``fits``: the families already fitted to ``a`` (fitted here when None)."""
        a = check_link_matrix(a)
        if a.shape[0] != self.n_modules:
            raise LinkMatrixError(
                f"the null has {self.n_modules} modules but the reading has {a.shape[0]}: "
                "build the null for the same modules (processors only, or with read-outs)"
            )
        if fits is None:
            fits = fit_all(a, seed=self.seed)
        observed = null_statistics(a, fits, family)
        band = self.band(family)
        mean, sd, zs, outside = {}, {}, {}, []
        for name in NULL_STATISTICS:
            if name not in observed or name not in band:
                observed.pop(name, None)
                continue
            mean[name], sd[name] = band[name]
            spread = max(sd[name], _REL_FLOOR * abs(mean[name]), _ABS_FLOOR)
            zs[name] = float((observed[name] - mean[name]) / spread)
            if abs(zs[name]) > z:
                outside.append(name)
        return NullComparison(self.source, family, observed, mean, sd, zs, outside)


def random_signature_null(
    n_modules: int,
    sig_dim: int,
    eps: float,
    truncation: float | None = None,
    *,
    n_draws: int = NULL_DRAWS,
    seed: int = 0,
) -> PriorNull:
    """The null of a circuit without a model: ``n_draws`` sets of ``n_modules`` N(0, 1)
    signatures of width ``sig_dim`` (how an untrained unconditional NAC draws them), each read
    through the kernel P = exp(-(1 - cos) / ``eps``) (0 beyond ``truncation``).

    The same arguments return the same object (cached), so its fits are computed once.

    Parameters
    ----------
    n_modules, sig_dim
        The circuits' modules and signature width.
    eps, truncation
        The kernel's width and cut-off.
    n_draws
        Null draws.
    seed
        Seed of the signatures.
    """
    if n_modules < 3 or sig_dim < 1 or n_draws < 2:
        raise ValueError(
            f"a random-signature null needs n_modules >= 3, sig_dim >= 1 and n_draws >= 2; "
            f"got {n_modules}, {sig_dim}, {n_draws}"
        )
    return _random_signature_null(
        int(n_modules), int(sig_dim), float(eps), truncation, int(n_draws), int(seed)
    )


@lru_cache(maxsize=16)
def _random_signature_null(
    n_modules: int, sig_dim: int, eps: float, truncation: float | None, n_draws: int, seed: int
) -> PriorNull:
    rng = np.random.default_rng([seed, n_modules, sig_dim])
    draws = [
        link_probabilities(rng.standard_normal((n_modules, sig_dim)), eps, truncation)
        for _ in range(n_draws)
    ]
    cut = "" if truncation is None else f", truncation {truncation:g}"
    source = f"random signatures (d_sig {sig_dim}, eps {eps:g}{cut}), {n_draws} draws"
    return PriorNull(draws, source, seed=seed)
