"""Which reads decide an answer: processor u reading input token j, cut (its attention weight 0
in every read-in) or estimated to first order.

The counterpart of ``circuitlab.attribution``'s links for what each processor reads: the same
answer (the model's own with its circuit), measure (p(answer) or the margin) and sign (an
effect is the measure before minus after; positive where the read supported the answer).
Reads of padding tokens do not exist: their effects are NaN.

- ``read_effects``: every read cut in turn, exactly, one model run per (example, read),
  batched;
- ``read_effect_estimates``: the first-order estimate of the same numbers from one backward
  pass: the gradient of the measure with respect to a gate on each read's weight (its log
  added to the read's score), as the links' estimate is gradient x kernel.
"""

from __future__ import annotations

import numpy as np
import torch

from circuitlab.attribution import (
    Baseline,
    _baseline,
    _check_measure,
    _per_link,
    _Runner,
    circuit_links,
)
from circuitlab.interventions import eval_mode
from circuitlab.model import NAC
from circuitlab.task import Batch

__all__ = ["link_and_read_estimates", "read_effect_estimates", "read_effects", "real_reads"]


def real_reads(model: NAC, batch: Batch) -> np.ndarray:
    """Bool (B, processors, tokens): the reads that exist, each processor's of each real token
    (padding excluded).

    Parameters
    ----------
    model, batch
        A NAC and the examples.
    """
    with torch.no_grad():
        tokens = model.tokenizer(batch.inputs[:1]).shape[1]
    real = np.ones((len(batch), tokens), dtype=bool)
    if batch.input_mask is not None:
        real = batch.input_mask.cpu().numpy().astype(bool)
    return np.repeat(real[:, None, :], model.config.n_processors, axis=1)


@torch.no_grad()
def read_effects(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    which: np.ndarray | None = None,
    measure: str = "p_answer",
) -> tuple[Baseline, np.ndarray]:
    """The exact effect of cutting each read: (baseline, effects (B, processors, tokens)),
    effect = measure with the model's circuit minus measure with that one read cut (in every
    read-in). ``signatures``/``codes`` (B or 1, U, d): the circuits (default: the model's own);
    ``which`` bool (B, processors, tokens): only these reads are run (default: every real
    one), the others are NaN.

    Parameters
    ----------
    model, batch
        A NAC and the examples.
    signatures, codes, which
        As above.
    measure
        "p_answer" or "margin".
    """
    _check_measure(measure)
    real = real_reads(model, batch)
    which = real if which is None else np.asarray(which, dtype=bool) & real
    if which.shape != real.shape:
        raise ValueError(f"which must be bool {real.shape} for this batch, got {which.shape}")
    with eval_mode(model):
        runner = _Runner.of(model, batch, signatures, codes)
        answer, value = _baseline(runner, measure)
        examples, modules, tokens = np.nonzero(which)

        def one_read_cut(part: slice) -> dict[str, torch.Tensor]:
            rows = len(examples[part])
            cut = torch.zeros(rows, *real.shape[1:], dtype=torch.bool)
            cut[torch.arange(rows), modules[part], tokens[part]] = True
            return {"read_cut": cut}

        after = runner.measure_rows(examples, one_read_cut, answer, measure)
    effects = np.full(real.shape, np.nan)
    values = value.cpu().numpy()
    effects[examples, modules, tokens] = values[examples] - after
    return Baseline(answer.cpu().numpy(), values), effects


def read_effect_estimates(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    measure: str = "p_answer",
    softmax: bool = False,
) -> tuple[Baseline, np.ndarray]:
    """The first-order estimate of ``read_effects`` (same shapes): d(measure)/d(gate) on each
    read, from one backward pass per ROWS_PER_RUN examples; NaN for padding. Cutting a read
    takes the multiplier exp(gate) on its weight from 1 to 0; linear in it, the measure falls
    by that derivative. With ``softmax``, each read-in row's normalisation is taken exactly
    (each head's and read-in's gradient divided by 1 - w, w the read's weight there), as
    ``link_effect_estimates`` does for the links.

    Parameters
    ----------
    model, batch
        A NAC and the examples.
    signatures, codes
        (B or 1, U, d) the circuits (None: the model's own).
    measure
        "p_answer" or "margin".
    softmax
        Take each read-in row's normalisation exactly (above).
    """
    _check_measure(measure)
    real = real_reads(model, batch)
    with eval_mode(model):
        runner = _Runner.of(model, batch, signatures, codes)
        if softmax:
            baseline, _, grad = runner.softmax_gradients(measure)
        else:
            baseline, grad = runner.gate_gradients(measure, real.shape[1:], "read_log_gate")
    return baseline, _real_only(grad, real)


def _real_only(grad: np.ndarray, real: np.ndarray) -> np.ndarray:
    """The reads' gradients as floats, NaN where ``real`` says no read exists (padding)."""
    estimates = grad.astype(float)
    estimates[~real] = np.nan
    return estimates


def link_and_read_estimates(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    links: np.ndarray | None = None,
    measure: str = "p_answer",
    softmax: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """``link_effect_estimates`` (B, L) and ``read_effect_estimates`` (B, processors, tokens)
    from one backward pass per ROWS_PER_RUN examples instead of one each (both gates at zero
    change nothing, so each gradient is the one its own pass finds): what the decisive circuit
    ranks by, a third of its time on the 2-core machine.

    Parameters
    ----------
    model, batch
        A NAC and the examples.
    signatures, codes
        (B or 1, U, d) the circuits (None: the model's own).
    links
        (L, 2) the links (default ``circuit_links``).
    measure
        "p_answer" or "margin".
    softmax
        Take each attention row's normalisation exactly (``link_effect_estimates``).
    """
    _check_measure(measure)
    links = circuit_links(model.config) if links is None else np.asarray(links, dtype=int)
    real = real_reads(model, batch)
    u_all = model.config.n_modules
    with eval_mode(model):
        runner = _Runner.of(model, batch, signatures, codes)
        if softmax:
            _, link_grad, read_grad = runner.softmax_gradients(measure)
            return _per_link(link_grad, links), _real_only(read_grad, real)
        shapes = {"log_gate": (u_all, u_all), "read_log_gate": real.shape[1:]}
        _, grads = runner.gates_gradients(measure, shapes)
    return _per_link(grads["log_gate"], links), _real_only(grads["read_log_gate"], real)
