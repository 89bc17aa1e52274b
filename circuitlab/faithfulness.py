"""Faithfulness of a ranking of links (and reads), as a curve over budgets (MIB's circuit metrics).

Keep the ``k`` best-ranked elements of each example's circuit (its links and, when ranked too,
each processor's reads of the input's tokens), cut every other one, and ask how much of the
answer's measure comes back:

    f(k) = (m(C_k) - m(empty)) / (m(full) - m(empty))

with ``m`` the measure averaged over the examples (p(answer) or the margin, as in
``circuitlab.attribution``; the answer is the model's own with its full circuit), ``C_k`` the
circuit of the top-k elements, ``empty`` every element cut and ``full`` none. Budgets are shares
of each example's elements (0 to 1). Two areas summarise a curve: CPR, the area under f (higher: the
ranking finds what carries the answer sooner), and CMD, the area under |1 - f| (lower: the kept
circuit behaves more like the whole one). A ranking means something only against rankings that
know nothing: the same curve for ``random_rankings`` seeded random orders is the band.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from circuitlab.attribution import (
    ROWS_PER_RUN,
    _check_measure,
    _measure,
    _Runner,
    circuit_links,
)

# the attribution module's runner: the same batching and eval mode as the effects it ranks by
from circuitlab.interventions import eval_mode
from circuitlab.model import NAC
from circuitlab.read_attribution import real_reads
from circuitlab.task import Batch

__all__ = ["BUDGETS", "FaithfulnessCurve", "area", "faithfulness_curve"]

# shares of the links kept: MIB's grid with 0 in front
BUDGETS = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def area(budgets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Trapezoid area over ``budgets`` (K,) in [0, 1] of ``values`` (..., K): (...,).

    Parameters
    ----------
    budgets
        The budgets, increasing.
    values
        (..., len(budgets)) the curve's values.
    """
    budgets, values = np.asarray(budgets, dtype=float), np.asarray(values, dtype=float)
    widths = np.diff(budgets)
    return ((values[..., 1:] + values[..., :-1]) / 2 * widths).sum(-1)


@dataclass(frozen=True)
class FaithfulnessCurve:
    """f(k) of one ranking and of the random rankings beside it.

    ``budgets`` (K,) shares of the elements kept; ``f`` (K,); ``random_f`` (R, K); ``full`` and
    ``empty`` the mean measure with every element and with none; ``links`` the links a circuit
    has, ``reads`` the mean number of reads ranked with them (0: links alone); a budget keeps
    ``round(share * elements)`` of each example's elements.

    Parameters
    ----------
    budgets, f, random_f, full, empty, links, reads
        As above.
    """

    budgets: np.ndarray
    f: np.ndarray
    random_f: np.ndarray
    full: float
    empty: float
    links: int
    reads: float = 0.0

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


@torch.no_grad()
def faithfulness_curve(
    model: NAC,
    batch: Batch,
    scores: np.ndarray,
    *,
    read_scores: np.ndarray | None = None,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    links: np.ndarray | None = None,
    budgets: tuple[float, ...] | np.ndarray = BUDGETS,
    random_rankings: int = 20,
    seed: int = 0,
    measure: str = "p_answer",
) -> FaithfulnessCurve:
    """f(k) of the ranking given by ``scores`` and of ``random_rankings`` seeded random orders
    of the same elements.

    Parameters
    ----------
    model, batch
        A NAC and the examples.
    scores
        (B, L) each link's score, higher kept first (``circuitlab.attribution.link_effects``
        or its estimate, say).
    read_scores
        (B, processors, tokens) each read's score, ranked among the links
        (``circuitlab.read_attribution.read_effects``; padding reads are no elements); None:
        the links alone.
    signatures, codes
        (B or 1, U, d) the circuits to rank in (None: the model's own).
    links
        (L, 2) the links ``scores`` is over (default: every link of the NAC).
    budgets
        Shares of the elements kept, increasing from 0 to 1.
    random_rankings, seed
        The random orders of the band, and their seed.
    measure
        "p_answer" or "margin".

    Raises
    ------
    ValueError
        A budget grid that does not run from 0 to 1, scores of another shape, or fewer than
        one random ranking.
    """
    _check_measure(measure)
    links = circuit_links(model.config) if links is None else np.asarray(links, dtype=int)
    budgets = _checked_grid(budgets, random_rankings)
    elements, exists, read_shape = _elements(model, batch, scores, read_scores, len(links))
    n, n_links = len(batch), len(links)
    rng = np.random.default_rng(seed)
    keys = [np.where(exists, -elements, np.inf)]  # sorted first: kept first; absent last
    keys += [np.where(exists, rng.random(exists.shape), np.inf) for _ in range(random_rankings)]
    with eval_mode(model):
        runner = _Runner.of(model, batch, signatures, codes)
        examples = torch.arange(n, device=runner.device)
        full_logits = runner.logits(examples)
        answer = full_logits.argmax(-1)
        full = float(_measure(full_logits, answer, measure).mean())
        mean_measures = _mean_measures(runner, answer, measure, links, read_shape)
        empty = float(mean_measures([exists])[0])
        curves = _curves(keys, budgets, exists, (empty, full), mean_measures)
    span = full - empty
    f = (curves - empty) / span if span != 0 else np.full_like(curves, np.nan)
    reads = float(exists[:, n_links:].sum(1).mean()) if read_shape is not None else 0.0
    return FaithfulnessCurve(budgets, f[0], f[1:], full, empty, n_links, reads)


def _mean_measures(
    runner: _Runner,
    answer: torch.Tensor,
    measure: str,
    links: np.ndarray,
    read_shape: tuple[int, int] | None,
) -> Callable[[list[np.ndarray]], np.ndarray]:
    """A function of ``cuts`` (each (B, elements): each example's links, then reads, cut) ->
    the mean measure under each, (len(cuts),): their rows run together."""
    n, u_all = len(runner.batch), runner.model.config.n_modules

    def mean_measures(cuts: list[np.ndarray]) -> np.ndarray:
        stacked = np.concatenate(cuts)

        def edits(part: slice) -> dict[str, torch.Tensor]:
            return _element_cut(stacked[part], links, u_all, read_shape)

        examples = np.tile(np.arange(n), len(cuts))
        values = runner.measure_rows(examples, edits, answer, measure)
        return values.reshape(len(cuts), n).mean(1)

    return mean_measures


def _checked_grid(budgets: tuple[float, ...] | np.ndarray, random_rankings: int) -> np.ndarray:
    """``budgets`` as floats; ValueError unless they increase from 0 to 1 and there is at
    least one random ranking."""
    budgets = np.asarray(budgets, dtype=float)
    if budgets[0] != 0 or budgets[-1] != 1 or np.any(np.diff(budgets) <= 0):
        raise ValueError(f"budgets must increase from 0 to 1, got {budgets.tolist()}")
    if random_rankings < 1:
        raise ValueError(f"random_rankings must be >= 1, got {random_rankings}")
    return budgets


def _curves(
    keys: list[np.ndarray],
    budgets: np.ndarray,
    exists: np.ndarray,
    ends: tuple[float, float],
    mean_measures: Callable[[list[np.ndarray]], np.ndarray],
) -> np.ndarray:
    """(rankings, budgets) the mean measure with each ranking's top share kept: the elements
    of each example sorted by ``keys`` (first kept first), all others cut; ``ends`` the
    measures with every element cut and with none. The (ranking, budget) cells are run about
    ROWS_PER_RUN rows at a time: one example's curve and its band in one or two runs."""
    empty, full = ends
    counts = exists.sum(1)
    curves = np.zeros((len(keys), len(budgets)))
    curves[:, budgets == 0], curves[:, budgets == 1] = empty, full
    ranks = []
    for key in keys:
        rank = np.empty_like(key, dtype=np.int64)
        np.put_along_axis(
            rank, np.argsort(key, axis=1, kind="stable"), np.arange(key.shape[1])[None], 1
        )
        ranks.append(rank)
    cells = [
        (r, b) for r in range(len(keys)) for b in np.flatnonzero((budgets > 0) & (budgets < 1))
    ]
    per_run = max(1, ROWS_PER_RUN // len(exists))
    for start in range(0, len(cells), per_run):
        group = cells[start : start + per_run]
        kept = [np.round(budgets[b] * counts).astype(int) for _, b in group]
        cuts = [exists & (ranks[r] >= k[:, None]) for (r, _), k in zip(group, kept, strict=True)]
        for (r, b), value in zip(group, mean_measures(cuts), strict=True):
            curves[r, b] = value
    return curves


def _elements(
    model: NAC, batch: Batch, scores: np.ndarray, read_scores: np.ndarray | None, n_links: int
) -> tuple[np.ndarray, np.ndarray, tuple[int, int] | None]:
    """Each example's element scores (B, E) (links, then reads flattened), which elements
    exist (B, E) (padding reads do not) and the reads' (processors, tokens) shape or None."""
    scores = np.asarray(scores, dtype=float)
    if scores.shape != (len(batch), n_links):
        raise ValueError(
            f"scores must be (examples, links) = ({len(batch)}, {n_links}), got {scores.shape}"
        )
    if read_scores is None:
        return scores, np.ones(scores.shape, dtype=bool), None
    real = real_reads(model, batch)
    read_scores = np.asarray(read_scores, dtype=float)
    if read_scores.shape != real.shape:
        raise ValueError(
            f"read_scores must be (examples, processors, tokens) = {real.shape}, "
            f"got {read_scores.shape}"
        )
    flat = np.where(real, read_scores, 0.0).reshape(len(batch), -1)
    exists = np.concatenate([np.ones(scores.shape, dtype=bool), real.reshape(len(batch), -1)], 1)
    return np.concatenate([scores, flat], 1), exists, real.shape[1:]


def _element_cut(
    cut: np.ndarray, links: np.ndarray, n_modules: int, read_shape: tuple[int, int] | None
) -> dict[str, torch.Tensor]:
    """``logits``'s edits from ``cut`` (N, elements): each row's links of ``links`` cut, and
    its reads (the elements after the links, (processors, tokens) each) when ``read_shape``."""
    edit = {"cut": _link_cut(cut[:, : len(links)], links, n_modules)}
    if read_shape is not None:
        reads = cut[:, len(links) :].reshape(len(cut), *read_shape)
        edit["read_cut"] = torch.from_numpy(reads)
    return edit


def _link_cut(cut: np.ndarray, links: np.ndarray, n_modules: int) -> torch.Tensor:
    """Bool (B, U, U) masks from ``cut`` (B, L): each example's links of ``links`` cut."""
    masks = torch.zeros(len(cut), n_modules, n_modules, dtype=torch.bool)
    rows, which = np.nonzero(cut)
    masks[rows, links[which, 0], links[which, 1]] = True
    masks[rows, links[which, 1], links[which, 0]] = True
    return masks
