"""Faithfulness of a ranking of links, as a curve over edge budgets (MIB's circuit metrics).

Keep the ``k`` best-ranked links of each example's circuit, cut every other one, and ask how
much of the answer's measure comes back:

    f(k) = (m(C_k) - m(empty)) / (m(full) - m(empty))

with ``m`` the measure averaged over the examples (p(answer) or the margin, as in
``circuitlab.attribution``; the answer is the model's own with its full circuit), ``C_k`` the
circuit of the top-k links, ``empty`` every link cut and ``full`` none. Budgets are shares of
the circuit's links (0 to 1). Two areas summarise a curve: CPR, the area under f (higher: the
ranking finds what carries the answer sooner), and CMD, the area under |1 - f| (lower: the kept
circuit behaves more like the whole one). A ranking means something only against rankings that
know nothing: the same curve for ``random_rankings`` seeded random orders is the band.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

# the attribution module's runner: the same batching and eval mode as the effects it ranks by
from circuitlab.attribution import (
    _check_measure,
    _eval_mode,
    _measure,
    _Runner,
    circuit_links,
    link_masks,
)
from circuitlab.model import NAC
from circuitlab.tasks.base import Batch

__all__ = ["BUDGETS", "FaithfulnessCurve", "area", "faithfulness_curve"]

# shares of the links kept: MIB's grid with 0 in front
BUDGETS = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def area(budgets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Trapezoid area over ``budgets`` (K,) in [0, 1] of ``values`` (..., K): (...,)."""
    budgets, values = np.asarray(budgets, dtype=float), np.asarray(values, dtype=float)
    widths = np.diff(budgets)
    return ((values[..., 1:] + values[..., :-1]) / 2 * widths).sum(-1)


@dataclass(frozen=True)
class FaithfulnessCurve:
    """f(k) of one ranking and of the random rankings beside it.

    ``budgets`` (K,) shares of the links kept; ``f`` (K,); ``random_f`` (R, K); ``full`` and
    ``empty`` the mean measure with every link and with none; ``links`` how many links a
    circuit has (a budget keeps ``round(share * links)`` of them)."""

    budgets: np.ndarray
    f: np.ndarray
    random_f: np.ndarray
    full: float
    empty: float
    links: int

    @property
    def cpr(self) -> float:
        """Area under f: higher is more faithful."""
        return float(area(self.budgets, self.f))

    @property
    def cmd(self) -> float:
        """Area under |1 - f|: lower is more faithful."""
        return float(area(self.budgets, np.abs(1 - self.f)))

    @property
    def random_cpr(self) -> np.ndarray:
        """CPR of each random ranking, (R,)."""
        return area(self.budgets, self.random_f)

    @property
    def random_cmd(self) -> np.ndarray:
        """CMD of each random ranking, (R,)."""
        return area(self.budgets, np.abs(1 - self.random_f))

    def cpr_above(self) -> float:
        """Share of the random rankings whose CPR is below this ranking's."""
        return float((self.random_cpr < self.cpr).mean())

    def cmd_below(self) -> float:
        """Share of the random rankings whose CMD is above this ranking's."""
        return float((self.random_cmd > self.cmd).mean())


def _kept(budgets: np.ndarray, n_links: int) -> np.ndarray:
    """Links kept at each budget, (K,) ints in [0, n_links]."""
    return np.clip(np.round(np.asarray(budgets) * n_links).astype(int), 0, n_links)


@torch.no_grad()
def faithfulness_curve(
    model: NAC,
    batch: Batch,
    scores: np.ndarray,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    links: np.ndarray | None = None,
    budgets: tuple[float, ...] | np.ndarray = BUDGETS,
    random_rankings: int = 20,
    seed: int = 0,
    measure: str = "p_answer",
) -> FaithfulnessCurve:
    """f(k) of the ranking given by ``scores`` (B, L) (higher: kept first; e.g. the effects of
    ``circuitlab.attribution.link_effects`` or their estimate) over ``links`` (L, 2) (default:
    every link of the NAC), and of ``random_rankings`` seeded random orders of the same links.

    ``signatures`` / ``codes`` (B or 1, U, d): the circuits to rank in (default: the model's
    own). ``budgets``: shares of the L links kept, increasing, from 0 to 1. Raises
    ``ValueError`` for a budget grid that does not run from 0 to 1 or scores of another shape.
    """
    _check_measure(measure)
    links = circuit_links(model.config) if links is None else np.asarray(links, dtype=int)
    budgets = np.asarray(budgets, dtype=float)
    scores = np.asarray(scores, dtype=float)
    if budgets[0] != 0 or budgets[-1] != 1 or np.any(np.diff(budgets) <= 0):
        raise ValueError(f"budgets must increase from 0 to 1, got {budgets.tolist()}")
    if scores.shape != (len(batch), len(links)):
        raise ValueError(
            f"scores must be (examples, links) = ({len(batch)}, {len(links)}), got {scores.shape}"
        )
    if random_rankings < 1:
        raise ValueError(f"random_rankings must be >= 1, got {random_rankings}")
    n, n_links = len(batch), len(links)
    kept = _kept(budgets, n_links)
    rng = np.random.default_rng(seed)
    orders = [np.argsort(-scores, axis=1, kind="stable")]
    orders += [np.argsort(rng.random((n, n_links)), axis=1) for _ in range(random_rankings)]
    u_all = model.config.n_modules
    with _eval_mode(model):
        runner = _Runner.of(model, batch, signatures, codes)
        examples = torch.arange(n, device=runner.device)
        full_logits = runner.logits(examples)
        answer = full_logits.argmax(-1)
        full = float(_measure(full_logits, answer, measure).mean())
        every = link_masks(u_all, links).any(0)  # every link cut
        empty_logits = runner.logits(examples, cut=every.expand(n, -1, -1).to(runner.device))
        empty = float(_measure(empty_logits, answer, measure).mean())
        curves = np.zeros((len(orders), len(budgets)))
        for r, order in enumerate(orders):
            for b, count in enumerate(kept):
                if count == 0:
                    curves[r, b] = empty
                    continue
                if count == n_links:
                    curves[r, b] = full
                    continue
                masks = _cut_all_but(order[:, :count], links, u_all)
                rows = np.arange(n)
                curves[r, b] = runner.measure_rows(rows, masks, rows, answer, measure).mean()
    span = full - empty
    f = (curves - empty) / span if span != 0 else np.full_like(curves, np.nan)
    return FaithfulnessCurve(budgets, f[0], f[1:], full, empty, n_links)


def _cut_all_but(kept: np.ndarray, links: np.ndarray, n_modules: int) -> torch.Tensor:
    """Bool (B, U, U): every link of ``links`` cut except each example's ``kept`` (B, k) rows."""
    n = len(kept)
    masks = torch.zeros(n, n_modules, n_modules, dtype=torch.bool)
    masks[:, links[:, 0], links[:, 1]] = True
    masks[:, links[:, 1], links[:, 0]] = True
    rows = np.repeat(np.arange(n), kept.shape[1])
    pairs = links[kept.reshape(-1)]
    masks[rows, pairs[:, 0], pairs[:, 1]] = False
    masks[rows, pairs[:, 1], pairs[:, 0]] = False
    return masks
