"""Interventions on a conditional NAC's circuits: does the circuit decide the answer?

Run the executor with a circuit other than the generated one and read the logits:

- ``run_with_circuit(model, batch, signatures=..., codes=...)``: signatures and/or codes given
  (from other inputs, a stored ``Circuit``, a mean circuit); what is not given is generated
  from the batch's own conditioning as usual;
- ``LinkEdit``: cut chosen links (K_ij = 0 exactly), force links on (K_ij = 1), knock out
  modules (a knocked-out processor sends nothing; a knocked-out read-out leaves the vote);
  ``LinkEdit.all_ones()`` is the all-ones kernel of Perceiver IO.

``causality_report`` puts the measures of "What a circuit must show" (docs/architecture.md)
side by side for one batch: accuracy with the model's own circuits, with signatures swapped
between examples of different sentences (codes kept), with codes swapped (signatures kept), with
an all-ones kernel; and the shape of the graphs (``graph_shape``): the fraction of processor
links with P > 0.5, its spread over sentences, and the participation ratio and first principal
component's share of the stack of P. ``minimal_pair_shifts`` asks whether the circuit encodes a
sentence's logic: how far P moves when the wording changes against when the logic does.
``read_in_weights`` says what each processor reads: its read-in attention over the input
tokens, under the same choice of circuit and edit.

Everything runs in eval mode (the kernel is P itself, unless the model's ``kernel.evaluation`` says
otherwise) and under ``torch.no_grad``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from circuitlab.checks import whole_number
from circuitlab.circuit import Circuit
from circuitlab.edits import CircuitEdit
from circuitlab.model import NAC
from circuitlab.task import Batch
from circuitlab.tensor_checks import as_circuit_tensor, check_finite

__all__ = [
    "LinkEdit",
    "accuracy",
    "causality_report",
    "circuit_tensors",
    "eval_mode",
    "generated_circuits",
    "graph_shape",
    "knockout_accuracies",
    "link_probabilities",
    "minimal_pair_shifts",
    "off_diagonal",
    "read_in_weights",
    "run_with_circuit",
    "sentence_link_probabilities",
    "swap_partners",
]

LINK_THRESHOLD = 0.5  # a link "is there" when P exceeds this


@dataclass(frozen=True)
class LinkEdit:
    """Edits of a circuit's links, over all U modules (processors first).

    ``cut`` / ``force``: bool (U, U) or (B, U, U), receiver by sender, True where the link from
    sender j into receiver i is cut (K_ij = 0) or forced on (K_ij = 1). Only links into
    processors from processors (every propagation round) and into read-outs from processors (the
    read-out) exist in a NAC; other entries are ignored. A cut wins over a force.
    ``knocked_out``: module indices; a knocked-out processor sends nothing to any module, a
    knocked-out read-out is left out of the output vote.

    Parameters
    ----------
    cut, force, knocked_out
        As above.
    """

    cut: torch.Tensor | None = None
    force: torch.Tensor | None = None
    knocked_out: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        # a numpy or nested-list mask is taken as a bool tensor; anything else is refused here,
        # not deep inside the model
        for name in ("cut", "force"):
            value = getattr(self, name)
            if value is None:
                continue
            try:
                if isinstance(value, torch.Tensor):  # kept on its device (a CUDA mask stays)
                    mask = value.to(torch.bool)
                else:
                    mask = torch.as_tensor(np.asarray(value, dtype=bool))
            except (TypeError, ValueError) as err:
                raise ValueError(
                    f"LinkEdit.{name} must be a bool mask (U, U) or (B, U, U), got {value!r:.80}"
                ) from err
            if mask.dim() not in (2, 3):
                raise ValueError(
                    f"LinkEdit.{name} must be (U, U) or (B, U, U), got shape {tuple(mask.shape)}"
                )
            object.__setattr__(self, name, mask)  # frozen: normalised once, here
        modules = tuple(whole_number("LinkEdit.knocked_out", m) for m in self.knocked_out)
        object.__setattr__(self, "knocked_out", modules)

    @classmethod
    def of(cls, edit: CircuitEdit, n_modules: int) -> LinkEdit:
        """The mask form of ``edit`` for a circuit of ``n_modules`` modules: each of its links
        in both directions (P is symmetric)."""

        def both_ways(links: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
            return [(i, j) for i, j in links] + [(j, i) for i, j in links]

        cut = cls.cut_links(n_modules, both_ways(edit.cut)).cut if edit.cut else None
        force = cls.force_links(n_modules, both_ways(edit.forced)).force if edit.forced else None
        return cls(cut=cut, force=force, knocked_out=edit.knocked_out)

    @classmethod
    def all_ones(cls, n_modules: int) -> LinkEdit:
        """Every link forced on: the all-ones kernel of Perceiver IO."""
        return cls(force=torch.ones(n_modules, n_modules, dtype=torch.bool))

    @classmethod
    def cut_links(cls, n_modules: int, links: Sequence[tuple[int, int]]) -> LinkEdit:
        """Cut the given (receiver, sender) links."""
        return cls(cut=_link_mask(n_modules, links))

    @classmethod
    def force_links(cls, n_modules: int, links: Sequence[tuple[int, int]]) -> LinkEdit:
        """Force the given (receiver, sender) links on."""
        return cls(force=_link_mask(n_modules, links))

    def tensors(
        self, model: NAC
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, torch.Tensor | None]:
        """(cut (B or 1, U, U), force (B or 1, U, U), silenced read-outs (R,)) for
        ``NAC.execute``, on the model's device; None where nothing is edited."""
        c = model.config
        u_all, u = c.n_modules, c.n_processors
        device = next(model.parameters()).device
        for name, value in (("cut", self.cut), ("force", self.force)):
            if value is not None and tuple(value.shape[-2:]) != (u_all, u_all):
                raise ValueError(
                    f"LinkEdit.{name} must be ({u_all}, {u_all}) or (B, {u_all}, {u_all}) for "
                    f"this model's {u_all} modules, got {tuple(value.shape)}"
                )
        bad = [m for m in self.knocked_out if not 0 <= m < u_all]
        if bad:
            raise ValueError(f"knocked_out modules {bad} are not in [0, {u_all - 1}]")
        cut = None if self.cut is None else _batched(self.cut.to(device, torch.bool))
        force = None if self.force is None else _batched(self.force.to(device, torch.bool))
        senders = [m for m in self.knocked_out if m < u]
        if senders:
            silent = torch.zeros(1, u_all, u_all, dtype=torch.bool, device=device)
            silent[..., senders] = True
            cut = silent if cut is None else cut | silent
        readouts = [m - u for m in self.knocked_out if m >= u]
        silenced = None
        if readouts:
            silenced = torch.zeros(c.n_readouts, dtype=torch.bool, device=device)
            silenced[readouts] = True
        return cut, force, silenced


def _link_mask(n_modules: int, links: Sequence[tuple[int, int]]) -> torch.Tensor:
    mask = torch.zeros(n_modules, n_modules, dtype=torch.bool)
    for receiver, sender in links:
        if not (0 <= receiver < n_modules and 0 <= sender < n_modules):
            raise ValueError(f"link ({receiver}, {sender}) is not among {n_modules} modules")
        mask[receiver, sender] = True
    return mask


def _batched(mask: torch.Tensor) -> torch.Tensor:
    return mask if mask.dim() == 3 else mask.unsqueeze(0)


def circuit_tensors(
    circuits: Sequence[Circuit], with_codes: bool = True
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Signatures (N, U, sig_dim) and codes (N, U, code_dim) (None without codes, or when
    ``with_codes`` is False) of stored circuits, for ``run_with_circuit``.

    Parameters
    ----------
    circuits
        Stored circuits of one model.
    with_codes
        Return their codes too.
    """
    if not circuits:
        raise ValueError("no circuits given")
    signatures = torch.from_numpy(np.stack([c.signatures for c in circuits])).float()
    if not with_codes:
        return signatures, None
    if any(c.codes is None for c in circuits):
        return signatures, None
    return signatures, torch.from_numpy(np.stack([c.codes for c in circuits])).float()


@torch.no_grad()
def generated_circuits(
    model: NAC, batch: Batch, chunk: int = 256
) -> tuple[torch.Tensor, torch.Tensor]:
    """Signatures (B, U, sig_dim) and codes (B, U, code_dim) the model generates for the batch's
    conditioning (on the model's device).

    Parameters
    ----------
    model
        A conditional NAC.
    batch
        The examples.
    chunk
        Examples per forward pass.
    """
    device = next(model.parameters()).device
    parts = []
    for start in range(0, len(batch), chunk):
        rows = batch.rows(slice(start, start + chunk)).to(device)
        signatures, codes = _generate(model, rows)
        parts.append((signatures.expand(len(rows), -1, -1), codes.expand(len(rows), -1, -1)))
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


def _generate(model: NAC, rows: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    """The model's own circuit for ``rows``: (B, ...) from their conditioning, or the
    unconditional model's one circuit, (1, ...)."""
    if model.config.conditional:
        return model.generate(rows.conditioning, rows.conditioning_mask)
    return model.generate()


@contextmanager
def eval_mode(model: torch.nn.Module) -> Iterator[None]:
    """``model`` in eval mode inside, its mode restored after. A model already in eval mode (the
    app's, always) is left alone: ``eval()`` walks every submodule (~0.7 ms for a pair-world
    NAC, twice a run), and threads sharing the model never see its mode flip.

    Parameters
    ----------
    model
        Any torch module.
    """
    was_training = model.training
    if was_training:
        model.eval()
    try:
        yield
    finally:
        if was_training:
            model.train()


@torch.no_grad()
def run_with_circuit(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    edit: LinkEdit | CircuitEdit | None = None,
    chunk: int = 256,
    read_in_record: list[torch.Tensor] | None = None,
) -> torch.Tensor:
    """Logits (B, n_classes) of ``model`` on ``batch`` with the given circuit, in eval mode.

    ``signatures`` (B or 1, U, sig_dim) and ``codes`` (B or 1, U, code_dim): used instead of
    the generated ones (a (1, ...) circuit is used for every example, e.g. a mean circuit);
    None: generated from the batch's conditioning. ``edit``: links cut, forced or knocked out
    (a ``CircuitEdit``, or its mask form ``LinkEdit``).
    ``read_in_record``: a list each chunk's read-ins append their attention to (see
    ``NAC.execute``); the run's own, so concurrent runs of one model never mix records.

    Parameters
    ----------
    model
        A NAC.
    batch
        The examples.
    signatures, codes, edit, read_in_record
        As above.
    chunk
        Examples per forward pass.
    """
    device = next(model.parameters()).device
    c = model.config
    shape = {"batch": len(batch), "n_modules": c.n_modules}
    if signatures is not None:
        signatures = as_circuit_tensor("signatures", signatures, **shape, width=c.sig_dim)
    if codes is not None:
        codes = as_circuit_tensor("codes", codes, **shape, width=c.code_dim)
    check_finite("batch.inputs", batch.inputs)
    if isinstance(edit, CircuitEdit):
        edit = LinkEdit.of(edit, model.config.n_modules)
    cut, force, silenced = (edit or LinkEdit()).tensors(model)
    for name, mask in (("cut", cut), ("force", force)):
        if mask is not None and mask.shape[0] not in (1, len(batch)):
            raise ValueError(
                f"LinkEdit.{name} holds {mask.shape[0]} masks for a batch of {len(batch)}: give "
                "one (U, U) mask for every example, or one per example"
            )
    parts = []
    with eval_mode(model):
        for start in range(0, len(batch), chunk):
            rows = slice(start, start + chunk)
            part = batch.rows(rows).to(device)
            own_sigs = own_codes = None
            if signatures is None or codes is None:
                own_sigs, own_codes = _generate(model, part)
            sigs = own_sigs if signatures is None else _rows(signatures, rows).to(device)
            cods = own_codes if codes is None else _rows(codes, rows).to(device)
            parts.append(
                model.execute(
                    part.inputs,
                    sigs,
                    cods,
                    input_mask=part.input_mask,
                    cut=None if cut is None else _rows(cut, rows),
                    force=None if force is None else _rows(force, rows),
                    silenced_readouts=silenced,
                    read_in_record=read_in_record,
                )
                .float()
                .cpu()
            )
    return torch.cat(parts)


def read_in_weights(
    model: NAC,
    batch: Batch,
    *,
    signatures: torch.Tensor | None = None,
    codes: torch.Tensor | None = None,
    edit: LinkEdit | CircuitEdit | None = None,
) -> torch.Tensor:
    """What each processor reads: its read-in attention over the batch's input tokens, (R, B,
    n_processors, N) for the R read-ins (1, or 1 + depth with ``read_in_every_round``); N the
    input tokens (+1, last, with ``null_token``). Each row sums to 1; padding tokens get 0. The
    circuit and edit are chosen as in ``run_with_circuit``. The recording is this call's own
    (``read_in_record``): nothing is set on the model, so it is safe beside other runs.

    Parameters
    ----------
    model
        A NAC.
    batch
        The examples.
    signatures, codes
        (B or 1, U, d) the circuits to run (None: the model's own, as ``run_with_circuit``).
    edit
        As ``run_with_circuit`` takes it.
    """
    log: list[torch.Tensor] = []
    run_with_circuit(
        model,
        batch,
        signatures=signatures,
        codes=codes,
        edit=edit,
        chunk=max(1, len(batch)),
        read_in_record=log,
    )
    return torch.stack([weights.cpu() for weights in log])


def _rows(tensor: torch.Tensor, rows: slice) -> torch.Tensor:
    """Rows of a per-example tensor, or the tensor itself when it holds one row for all."""
    return tensor if tensor.shape[0] == 1 else tensor[rows]


def swap_partners(groups: Sequence[object], seed: int = 0) -> np.ndarray:
    """A permutation ``partner`` with groups[partner[i]] != groups[i] for every i: example i
    takes the circuit of an example with another sentence. Raises when one group holds more than
    half the examples (no such permutation exists).

    Parameters
    ----------
    groups
        Each example's group (its sentence).
    seed
        Seed of the permutation.
    """
    keys = np.asarray(group_codes(groups))
    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=int)
    largest = np.bincount(keys).max()
    if 2 * largest > n:
        raise ValueError(
            f"one sentence holds {largest} of {n} examples: more than half, so not every "
            "example can take another sentence's circuit"
        )
    rng = np.random.default_rng(seed)
    # sort by group, then pair each position with the one half the list away: a group holding
    # at most half the examples never meets itself; the shuffles make the pairs random
    order = rng.permutation(n)
    order = order[np.argsort(keys[order], kind="stable")]
    partner = np.empty(n, dtype=int)
    partner[order] = order[(np.arange(n) + n // 2) % n] if n > 1 else order
    return partner


def group_codes(values: Sequence[object]) -> np.ndarray:
    """Integer codes 0..K-1 of hashable values, in order of first appearance."""
    index: dict[object, int] = {}
    return np.array([index.setdefault(v, len(index)) for v in values], dtype=int)


def accuracy(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """The share of examples whose largest logit is their label.

    Parameters
    ----------
    logits
        (B, n_classes).
    labels
        (B,) class indices.
    """
    return float((logits.argmax(-1) == labels.cpu()).float().mean())


@torch.no_grad()
def link_probabilities(model: NAC, signatures: torch.Tensor) -> np.ndarray:
    """P among the processors, (N, u, u) float64, for signatures (N, U, sig_dim).

    Parameters
    ----------
    model
        A NAC (its kernel's eps and truncation).
    signatures
        As above.
    """
    u = model.config.n_processors
    p = model.link_probabilities(signatures[:, :u].to(next(model.parameters()).device))
    return p.double().cpu().numpy()


def off_diagonal(p: np.ndarray) -> np.ndarray:
    """The links that can carry information: (N, u, u) -> (N, u (u - 1)); P_ii is always 1.

    Parameters
    ----------
    p
        (N, u, u) link probabilities.
    """
    return p[:, ~np.eye(p.shape[1], dtype=bool)]


def graph_shape(p: np.ndarray, threshold: float = LINK_THRESHOLD) -> dict[str, float]:
    """How full and how varied a stack of graphs is. ``p``: (N, u, u) link probabilities.

    density: mean over graphs of the fraction of off-diagonal links with P > threshold;
    density_std: its standard deviation over graphs; mean_p: the mean off-diagonal P;
    participation_ratio: (sum l)^2 / sum l^2 over the eigenvalues l of the covariance of the
    graphs' off-diagonal entries (the effective number of dimensions the graphs vary in);
    pc1_share: the largest eigenvalue's share of the variance; pc1_mean_p_corr: the absolute
    correlation, over graphs, of their scores on that first component with their mean P (near 1
    when the main way the graphs differ is how full they are; 0 when undefined).

    Parameters
    ----------
    p
        As above.
    threshold
        P above which a link counts as present.
    """
    n = p.shape[0]
    flat = off_diagonal(p)
    present = (flat > threshold).mean(axis=1)
    centred = flat - flat.mean(axis=0)
    # eigenvalues of the covariance from the singular values of the centred stack
    if n > 1:
        left, singular, _ = np.linalg.svd(centred, full_matrices=False)
    else:
        left, singular = np.zeros((n, 1)), np.zeros(1)
    eig = singular**2
    total = eig.sum()
    return {
        "density": float(present.mean()),
        "density_std": float(present.std()),
        "mean_p": float(flat.mean()),
        "participation_ratio": float(total**2 / (eig**2).sum()) if total > 0 else 0.0,
        "pc1_share": float(eig.max() / total) if total > 0 else 0.0,
        "pc1_mean_p_corr": _abs_correlation(left[:, 0], flat.mean(axis=1)),
    }


def _abs_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """|Pearson correlation| of two (N,) vectors; 0 where either is constant (to rounding)."""
    if min(np.ptp(a), np.ptp(b)) < 1e-12:
        return 0.0
    return float(abs(np.corrcoef(a, b)[0, 1]))


def causality_report(
    model: NAC, batch: Batch, sentences: Sequence[str], seed: int = 0
) -> dict[str, float]:
    """The measures of a circuit that decides the answer, on one batch of a conditional model.

    ``sentences``: the conditioning text of each example (swaps pair different sentences).
    Keys: accuracy, signature_swap, code_swap, all_ones (accuracies), the drops
    (accuracy - each), and ``graph_shape`` of the distinct sentences' circuits.

    Parameters
    ----------
    model
        A conditional NAC.
    batch
        The examples.
    sentences
        As above.
    seed
        Seed of the swaps' partners.
    """
    if not model.config.conditional:
        raise ValueError("an unconditional NAC has one circuit: there is nothing to swap")
    if len(sentences) != len(batch):
        raise ValueError(f"{len(sentences)} sentences for a batch of {len(batch)}")
    signatures, codes = generated_circuits(model, batch)
    partner = torch.from_numpy(swap_partners(sentences, seed))
    labels = batch.labels
    own = accuracy(run_with_circuit(model, batch, signatures=signatures, codes=codes), labels)
    sig_swap = accuracy(
        run_with_circuit(model, batch, signatures=signatures[partner], codes=codes), labels
    )
    code_swap = accuracy(
        run_with_circuit(model, batch, signatures=signatures, codes=codes[partner]), labels
    )
    ones = accuracy(
        run_with_circuit(
            model,
            batch,
            signatures=signatures,
            codes=codes,
            edit=LinkEdit.all_ones(model.config.n_modules),
        ),
        labels,
    )
    first = np.unique(group_codes(sentences), return_index=True)[1]
    shape = graph_shape(link_probabilities(model, signatures[torch.from_numpy(first)]))
    return {
        "examples": len(batch),
        "sentences": len(first),
        "accuracy": own,
        "signature_swap": sig_swap,
        "code_swap": code_swap,
        "all_ones": ones,
        "signature_swap_drop": own - sig_swap,
        "code_swap_drop": own - code_swap,
        "all_ones_drop": own - ones,
        **shape,
    }


def knockout_accuracies(model: NAC, batch: Batch) -> np.ndarray:
    """Accuracy with each module knocked out in turn: (U,), processors first; NaN for a model's
    only read-out (without it nothing answers).

    Parameters
    ----------
    model
        A NAC.
    batch
        The examples.
    """
    signatures, codes = generated_circuits(model, batch)
    c = model.config
    out = np.full(c.n_modules, np.nan)
    for m in range(c.n_modules):
        if m >= c.n_processors and c.n_readouts == 1:
            continue
        edit = LinkEdit(knocked_out=(m,))
        logits = run_with_circuit(model, batch, signatures=signatures, codes=codes, edit=edit)
        out[m] = accuracy(logits, batch.labels)
    return out


Encode = Callable[[list[str]], tuple[torch.Tensor, torch.Tensor]]


@torch.no_grad()
def sentence_link_probabilities(
    model: NAC, encode: Encode, texts: Sequence[str], chunk: int = 256
) -> np.ndarray:
    """P among the processors for each sentence: (N, u, u). ``encode(texts) -> (tokens,
    mask)`` is the task's text encoder (``NLVRWorld.encode_text``).

    Parameters
    ----------
    model
        A conditional NAC.
    encode
        As above.
    texts
        The sentences.
    chunk
        Sentences per forward pass.
    """
    device = next(model.parameters()).device
    out = []
    for start in range(0, len(texts), chunk):
        tokens, mask = encode(list(texts[start : start + chunk]))
        signatures, _ = model.generate(tokens.to(device), mask.to(device))
        out.append(link_probabilities(model, signatures))
    return np.concatenate(out)


def minimal_pair_shifts(model: NAC, encode: Encode, pairs: pd.DataFrame) -> pd.DataFrame:
    """How far the processors' P moves (Frobenius norm) from each sentence to its wording
    variant and to its logic variant. ``pairs``: columns text, wording, logic
    (``circuitlab.worlds.minimal_pairs.minimal_pairs``). Adds wording_shift, logic_shift and
    logic_moves_more.

    Parameters
    ----------
    model
        A conditional NAC.
    encode
        The task's text encoder, ``texts -> (tokens, mask)``.
    pairs
        As above.
    """
    n = len(pairs)
    p = sentence_link_probabilities(
        model, encode, [*pairs["text"], *pairs["wording"], *pairs["logic"]]
    )
    base, wording, logic = p[:n], p[n : 2 * n], p[2 * n :]
    out = pairs.copy()
    out["wording_shift"] = np.linalg.norm((wording - base).reshape(n, -1), axis=1)
    out["logic_shift"] = np.linalg.norm((logic - base).reshape(n, -1), axis=1)
    out["logic_moves_more"] = out["logic_shift"] > out["wording_shift"]
    return out
