"""The circuit that decides one answer: the top links and reads, in the order of their
attribution, that keep ``share`` of the answer on their own.

For one example, its elements are every link of the NAC (processor pairs and the links into
the read-outs, ``circuitlab.circuit.circuit_links``) and every read (processor u reading input
token j; padding tokens are no elements), ranked by a score (by default ``RANKING``:
``circuitlab.refined_attribution.refined_estimates`` with its top 32 cut exactly and neither
the reads' midpoint passes nor the disputed cuts; on 96 examples a store its decisive circuits
keep a median of 19 elements on the pair world where the plain gradient's keep 336 (NLVR 2 and
2), and the full refined estimates', which rank every element closer to the exact cuts, 20.5
(NLVR 2) for ~40 ms more an example, which the app's draws under load cannot spare:
``bench/app_load.py``). Keeping the top ``k`` and
cutting every other one gives, as in ``circuitlab.faithfulness``,

    f(k) = (m(C_k) - m(empty)) / (m(full) - m(empty))

with ``m`` the measure of the model's own answer (p(answer) or the margin). The decisive
circuit is C_k at a ``k`` where f crosses ``share`` (f(k) >= ``share`` > f(k - 1)), searched on
a geometric grid of ``k`` and refined between the last grid point below ``share`` and the first
at or above it (f need not rise monotonically: an earlier crossing between two grid points can
be missed). When the model gives
the same answer with every element cut, nothing in its circuit decides that answer and the
decisive circuit is empty (``answers_without_circuit``): the share of a small change in
confidence is not what a researcher asks a circuit for (an NLVR answer that stands with every
link and read cut, at p 0.96 against 1.00, would otherwise keep nearly every element).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from circuitlab.attribution import (
    _check_measure,
    _measure,
    _Runner,
    circuit_links,
    link_effect_estimates,
)
from circuitlab.errors import InputError
from circuitlab.faithfulness import _element_cut, _elements
from circuitlab.interventions import eval_mode
from circuitlab.model import NAC
from circuitlab.read_attribution import read_effect_estimates
from circuitlab.refined_attribution import refined_estimates
from circuitlab.task import Batch

__all__ = ["DEFAULT_SHARE", "RANKING", "DecisiveCircuit", "decisive_circuit"]

DEFAULT_SHARE = 0.8  # of the answer's measure the decisive circuit keeps on its own
GRID_POINTS = 32  # values of k run per search round (one batched model run each)
# refined_estimates' options the decisive circuit ranks by (see the module's docstring)
RANKING = {"read_passes": 0, "exact_disagree": 0}


@dataclass(frozen=True)
class DecisiveCircuit:
    """One example's decisive circuit.

    ``links`` (L, 2) every link, ``kept_links`` bool (L,) those in the circuit; ``reads`` bool
    (processors, tokens) the reads that exist, ``kept_reads`` bool (processors, tokens) those in
    the circuit; ``link_scores`` (L,) and ``read_scores`` (processors, tokens) the ranking (NaN
    where a read does not exist); ``answer`` the model's answer with its whole circuit; ``full``
    and ``empty`` its measure with every element and with none; ``kept`` the measure with the
    decisive circuit alone; ``share`` the share asked for; ``answers_without_circuit``
    whether the answer is the same with every element cut (then nothing is kept).

    Parameters
    ----------
    links, kept_links, reads, kept_reads, link_scores, read_scores, answer, full, empty, kept
        As above.
    share, answers_without_circuit
        As above.
    """

    links: np.ndarray
    kept_links: np.ndarray
    reads: np.ndarray
    kept_reads: np.ndarray
    link_scores: np.ndarray
    read_scores: np.ndarray
    answer: int
    full: float
    empty: float
    kept: float
    share: float
    answers_without_circuit: bool

    @property
    def f(self) -> float:
        """The share of the answer the decisive circuit keeps on its own (1 when the model
        answers without its circuit)."""
        if self.answers_without_circuit:
            return 1.0
        return (self.kept - self.empty) / (self.full - self.empty)

    @property
    def hidden_links(self) -> int:
        """Links left out of the decisive circuit."""
        return int((~self.kept_links).sum())

    @property
    def hidden_reads(self) -> int:
        """Reads left out of the decisive circuit."""
        return int((self.reads & ~self.kept_reads).sum())

    def modules(self) -> np.ndarray:
        """The modules the decisive circuit touches, sorted: its links' ends and the processors
        of its reads."""
        ends = self.links[self.kept_links].ravel()
        readers = np.flatnonzero(self.kept_reads.any(1))
        return np.unique(np.concatenate([ends, readers])).astype(int)


@torch.no_grad()
def decisive_circuit(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    link_scores: np.ndarray | None = None,
    read_scores: np.ndarray | None = None,
    share: float = DEFAULT_SHARE,
    measure: str = "p_answer",
) -> DecisiveCircuit:
    """The decisive circuit of the one example in ``batch``.

    Parameters
    ----------
    model, batch
        A NAC and one example.
    signatures, codes
        (1, U, d) the example's circuit (None: the model's own).
    link_scores, read_scores
        (1, L) each link's and (1, processors, tokens) each read's score, higher kept first,
        NaN last (None: ``refined_estimates`` with ``RANKING``; one of them None: the
        first-order estimate of that kind; give the exact effects to rank by them).
    share
        The share of the answer's measure, in (0, 1], the circuit keeps on its own.
    measure
        "p_answer" or "margin".

    Raises
    ------
    InputError
        A batch of other than one example, a share outside (0, 1] or scores of another shape.
    """
    _check_measure(measure)
    if len(batch) != 1:
        raise InputError("batch", f"one example, got {len(batch)}: index the batch first")
    if not 0 < share <= 1:
        raise InputError("share", f"a share in (0, 1], got {share}")
    links = circuit_links(model.config)
    circuits = {"signatures": signatures, "codes": codes}
    if link_scores is None and read_scores is None:
        link_scores, read_scores = refined_estimates(model, batch, **circuits, **RANKING)
    if link_scores is None:
        link_scores = link_effect_estimates(model, batch, **circuits, links=links)[1]
    if read_scores is None:
        read_scores = read_effect_estimates(model, batch, **circuits)[1]
    try:
        scores, exists, read_shape = _elements(model, batch, link_scores, read_scores, len(links))
    except ValueError as err:
        raise InputError("link_scores/read_scores", str(err)) from None
    # best first; an element scored NaN (an exact effect not run) after every scored one, and
    # the reads that do not exist (padding) after all
    key = np.where(np.isnan(scores[0]), np.finfo(float).max, -scores[0])
    order = np.argsort(np.where(exists[0], key, np.inf), kind="stable")
    n_elements, n_links = int(exists[0].sum()), len(links)
    with eval_mode(model):
        runner = _Runner.of(model, batch, signatures, codes)
        full_logits = runner.logits(torch.zeros(1, dtype=torch.long, device=runner.device))
        answer = full_logits.argmax(-1)
        full = float(_measure(full_logits, answer, measure)[0])
        top_k_logits = _top_k_logits(runner, exists, order, links, read_shape)
        measures = functools.partial(_top_k_measures, top_k_logits, answer, measure)
        empty, stands = _empty_circuit(top_k_logits, answer, measure)
        k, kept = (0, empty) if stands else _first_k(measures, n_elements, empty, full, share)
    chosen = np.zeros(exists.shape[1], dtype=bool)
    chosen[order[:k]] = True
    return DecisiveCircuit(
        links=links,
        kept_links=chosen[:n_links],
        reads=exists[0, n_links:].reshape(read_shape),
        kept_reads=chosen[n_links:].reshape(read_shape),
        link_scores=np.asarray(scores[0, :n_links], dtype=float),
        read_scores=np.where(exists[0, n_links:], scores[0, n_links:], np.nan).reshape(read_shape),
        answer=int(answer[0]),
        full=full,
        empty=empty,
        kept=kept,
        share=share,
        answers_without_circuit=stands,
    )


def _top_k_logits(
    runner: _Runner,
    exists: np.ndarray,
    order: np.ndarray,
    links: np.ndarray,
    read_shape: tuple[int, int],
) -> Callable[[np.ndarray], torch.Tensor]:
    """A function of ``ks`` (K,) -> the logits (K, n_classes) of the one example with the top k
    elements of ``order`` kept and every other existing one (``exists`` (1, elements): links,
    then reads flattened) cut, one batched run."""
    n_modules = runner.model.config.n_modules

    def top_k_logits(ks: np.ndarray) -> torch.Tensor:
        cut = np.repeat(exists, len(ks), axis=0)
        for row, k in enumerate(ks):
            cut[row, order[:k]] = False

        def edits(part: slice) -> dict[str, torch.Tensor]:
            return _element_cut(cut[part], links, n_modules, read_shape)

        return runner.rows_logits(np.zeros(len(ks), dtype=int), edits)

    return top_k_logits


def _top_k_measures(
    top_k_logits: Callable[[np.ndarray], torch.Tensor],
    answer: torch.Tensor,
    measure: str,
    ks: np.ndarray,
) -> np.ndarray:
    """The measure (K,) of the answer with the top k of ``ks`` (K,) kept, one batched run."""
    return _measure(top_k_logits(ks), answer.expand(len(ks)), measure).cpu().numpy()


def _empty_circuit(
    top_k_logits: Callable[[np.ndarray], torch.Tensor], answer: torch.Tensor, measure: str
) -> tuple[float, bool]:
    """The measure with every element cut, and whether the answer stands so: one run."""
    logits = top_k_logits(np.array([0]))
    return float(_measure(logits, answer, measure)[0]), bool(logits.argmax(-1)[0] == answer[0])


def _first_k(
    measures: Callable[[np.ndarray], np.ndarray], n: int, empty: float, full: float, share: float
) -> tuple[int, float]:
    """The first k in 0..n where the measure with the top k kept reaches ``share`` of the way
    from ``empty`` to ``full`` (0 when the answer needs no element), and that measure:
    ``measures`` (an array of k -> the measures) on a geometric grid, then refined between the
    last grid point below and the first at or above. (With more than two answers, the answer can
    fall from first place while its measure rises: then the empty circuit is returned.)"""
    if empty >= full:
        return 0, empty
    goal = empty + share * (full - empty)
    below, above, at_above = 0, n, full
    grid = np.unique(np.round(np.geomspace(1, n, GRID_POINTS)).astype(int)) if n else []
    while above - below > 1:
        values = measures(np.asarray(grid))
        reached = np.flatnonzero(values >= goal)
        if len(reached):
            first = reached[0]
            above, at_above = int(grid[first]), float(values[first])
            below = int(grid[first - 1]) if first else below
        else:
            below = int(grid[-1])
        grid = np.unique(np.linspace(below + 1, above - 1, GRID_POINTS).round().astype(int))
        grid = grid[(grid > below) & (grid < above)]
        if not len(grid):
            break
    return above, at_above
