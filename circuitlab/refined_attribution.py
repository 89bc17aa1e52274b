"""Every link and read of each example, ranked like the exact cuts at a fraction of their cost.

1. The first-order estimates with every attention row's normalisation taken exactly
   (``link_and_read_estimates(softmax=True)``): one backward pass.
2. The reads' midpoint estimates: cutting a read scales its weight from 1 to 0, and the effect
   is the integral of the measure's derivative along that path; the derivative at the path's
   middle (the read's weight halved) is that integral for any quadratic and far closer than
   the derivative at the intact end for the reads the first order gets wrong (a read is cut in
   every read-in at once, and the first-order sum misses how the read-ins interact). Each of
   ``read_passes`` backward passes an example halves one read of every processor (processors'
   reads interact least across processors), a different one each pass, so fifteen passes take
   every read of an example with up to fifteen tokens at least once.
3. Exact cuts: each example's ``exact_top`` elements of largest first-order effect (left out
   of the halved reads: they move everything they touch), then ``exact_disagree`` more where
   the two estimates rank an element furthest apart (most of the rank error left is a small
   effect whose sign the first order has wrong).

The first order alone misjudges the few elements whose cut moves the answer far (a read-out
link that carries the answer: p from 0.999 to 0.002, estimated at 0.002), which are the ones a
ranking's top needs, and the sign of many small ones, which a rank correlation over every
element counts as much. ``bench/attribution.py`` measures each step against the exact cuts of
every element (Spearman, the same strongest element, the time for 256 examples).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from circuitlab.attribution import (
    ROWS_PER_RUN,
    _check_measure,
    _measure,
    _per_link,
    _Runner,
    circuit_links,
)
from circuitlab.faithfulness import _element_cut, _elements
from circuitlab.interventions import eval_mode
from circuitlab.model import NAC
from circuitlab.read_attribution import _real_only, real_reads
from circuitlab.task import Batch

__all__ = ["EXACT_DISAGREE", "EXACT_TOP", "READ_PASSES", "refined_estimates"]

EXACT_TOP = 32  # elements per example of largest first-order effect, cut exactly
EXACT_DISAGREE = 40  # elements per example the two estimates rank furthest apart, cut exactly
READ_PASSES = 15  # backward passes per example, one read of every processor halved in each
HALF = 0.5  # the midpoint of a read's path from intact (1) to cut (0)


@torch.no_grad()
def refined_estimates(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    links: np.ndarray | None = None,
    measure: str = "p_answer",
    exact_top: int = EXACT_TOP,
    exact_disagree: int = EXACT_DISAGREE,
    read_passes: int = READ_PASSES,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Each link's and read's effect (see the module's docstring): links (B, L) and reads (B,
    processors, tokens), NaN for padding reads; the same sign and units as ``link_effects``.

    Parameters
    ----------
    model
        A NAC.
    batch
        The examples.
    signatures, codes
        (B or 1, U, d) the circuits to run (None: the model's own, as ``run_with_circuit``).
    links
        (L, 2) the links (default ``circuit_links``).
    measure
        "p_answer" or "margin".
    exact_top, exact_disagree
        Elements per example cut exactly, by first-order size and by disagreement (0, 0: the
        estimates alone).
    read_passes
        Midpoint passes over the reads per example (0: the first-order reads).
    seed
        Which read each pass halves (the order is random, fixed by the seed).
    """
    _check_measure(measure)
    for name, value in (("exact_top", exact_top), ("exact_disagree", exact_disagree)):
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    if read_passes < 0:
        raise ValueError(f"read_passes must be >= 0, got {read_passes}")
    links = circuit_links(model.config) if links is None else np.asarray(links, dtype=int)
    real = real_reads(model, batch)
    with eval_mode(model):
        # one runner and one pass for the first-order estimates and the answer every later
        # pass and cut is measured against: the baseline is the same forward run
        runner = _Runner.of(model, batch, signatures, codes)
        baseline, link_grad, read_grad = runner.softmax_gradients(measure)
        first_order = _per_link(link_grad, links), _real_only(read_grad, real)
        first, exists, read_shape = _elements(model, batch, *first_order, len(links))
        top = _strongest(first, exists, exact_top)
        answer = torch.from_numpy(baseline.answer).to(runner.device)
        scores = first.copy()
        if read_passes:
            excluded = np.zeros(first.shape, dtype=bool)
            excluded[np.arange(len(batch))[:, None], top] = True
            excluded = excluded[:, len(links) :].reshape(real.shape)
            midpoint = _midpoint_reads(runner, real & ~excluded, read_passes, answer, measure, seed)
            flat = midpoint.reshape(len(batch), -1)
            sampled = ~np.isnan(flat)
            scores[:, len(links) :][sampled] = flat[sampled]
        chosen = np.concatenate([top, _disagreeing(first, scores, exists, top, exact_disagree)], 1)
        rows, columns, edits = _element_cut_runs(
            exists, chosen, links, model.config.n_modules, read_shape
        )
        if len(rows):
            after = runner.measure_rows(rows, edits, answer, measure)
            scores[rows, columns] = baseline.value[rows] - after
    reads = scores[:, len(links) :].reshape(len(batch), *read_shape)
    reads[~real] = np.nan
    return scores[:, : len(links)], reads


def _element_cut_runs(
    exists: np.ndarray,
    chosen: np.ndarray,
    links: np.ndarray,
    n_modules: int,
    read_shape: tuple[int, int] | None,
) -> tuple[np.ndarray, np.ndarray, Callable[[slice], dict[str, torch.Tensor]]]:
    """One run per chosen element (``chosen`` (B, k) indices, those that exist): the rows'
    examples, the elements' columns and ``measure_rows``'s edits cutting each alone."""
    rows = np.repeat(np.arange(len(exists)), chosen.shape[1])
    columns = chosen.ravel()
    keep = exists[rows, columns]
    rows, columns = rows[keep], columns[keep]
    cut = np.zeros((len(rows), exists.shape[1]), dtype=bool)
    cut[np.arange(len(rows)), columns] = True
    return rows, columns, lambda part: _element_cut(cut[part], links, n_modules, read_shape)


def _strongest(scores: np.ndarray, exists: np.ndarray, k: int) -> np.ndarray:
    """(B, min(k, E)) each example's elements of largest |score| (existing ones first)."""
    strength = np.where(exists, np.abs(scores), -np.inf)
    return np.argsort(-strength, axis=1, kind="stable")[:, :k]


def _ranks(scores: np.ndarray, exists: np.ndarray) -> np.ndarray:
    """(B, E) each element's rank among its example's existing elements (missing ones last)."""
    order = np.argsort(np.where(exists, scores, np.inf), axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(scores.shape[1])[None, :], axis=1)
    return ranks


def _disagreeing(
    first: np.ndarray, refined: np.ndarray, exists: np.ndarray, taken: np.ndarray, k: int
) -> np.ndarray:
    """(B, k) each example's elements, beside ``taken`` (B, t), that ``first`` and ``refined``
    (B, E) rank furthest apart; ties by first-order size (with no refinement: the next
    strongest)."""
    if k == 0:
        return np.zeros((len(first), 0), dtype=int)
    apart = np.abs(_ranks(refined, exists) - _ranks(first, exists)).astype(float)
    size = np.abs(first) / (np.abs(np.where(exists, first, 0)).max(1, keepdims=True) + 1e-300)
    key = np.where(exists, apart + 0.5 * size, -np.inf)
    key[np.arange(len(first))[:, None], taken] = -np.inf
    return np.argsort(-key, axis=1, kind="stable")[:, :k]


def _midpoint_reads(
    runner: _Runner,
    allowed: np.ndarray,
    passes: int,
    answer: torch.Tensor,
    measure: str,
    seed: int,
) -> np.ndarray:
    """(B, processors, tokens) each allowed read's effect by the midpoint rule, the mean of the
    measure's derivative with respect to the read's weight scale over the passes that halved it
    (NaN where none did). Pass k of an example halves, for every processor, the k-th of its
    allowed reads in a random order (cycling when it has fewer than ``passes``)."""
    n, processors, tokens = allowed.shape
    keys = np.where(allowed, np.random.default_rng(seed).random(allowed.shape), np.inf)
    order = np.argsort(keys, axis=-1)  # each processor's allowed tokens first, shuffled
    counts = allowed.sum(-1)  # (B, processors)
    rows = np.repeat(np.arange(n), passes)
    slot = np.tile(np.arange(passes), n)[:, None] % np.maximum(counts[rows], 1)
    token = np.take_along_axis(order[rows], slot[..., None], axis=-1)[..., 0]
    halved = np.zeros((len(rows), processors, tokens), dtype=bool)
    row_index, processor = np.nonzero(counts[rows] > 0)
    halved[row_index, processor, token[row_index, processor]] = True
    derivative = np.zeros(halved.shape)
    for start in range(0, len(rows), ROWS_PER_RUN):
        part = slice(start, start + ROWS_PER_RUN)
        examples = torch.from_numpy(rows[part]).to(runner.device)
        scale = torch.where(torch.from_numpy(halved[part]), HALF, 1.0).to(runner.device)
        scale.requires_grad_(True)
        with torch.enable_grad():
            value = _measure(runner.logits(examples, read_scale=scale), answer[examples], measure)
            (grad,) = torch.autograd.grad(value.sum(), [scale])
        derivative[part] = grad.cpu().numpy()
    # the rows are each example's passes in turn: sum over the passes that halved each read
    per_pass = (n, passes, processors, tokens)
    sums = np.where(halved, derivative, 0.0).reshape(per_pass).sum(1)
    taken = halved.reshape(per_pass).sum(1)
    return np.where(taken > 0, sums / np.maximum(taken, 1), np.nan)
