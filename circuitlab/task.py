"""The task interface the trainer and the exporter rely on."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import pandas as pd
import torch

from circuitlab.data.text import TextEncoder

__all__ = [
    "Batch",
    "HeldOutSentenceCircuits",
    "Task",
    "check_inputs",
    "check_share",
    "hide_text_inputs",
    "objects_and_text_batch",
    "sample_rows",
    "trim_text",
]


@dataclass
class Batch:
    """inputs (B, N, input_dim); labels (B,); input_mask (B, N), True for real tokens, or None;
    conditioning (B, T) token ids or (B, T, cond_dim) vectors, or None; conditioning_mask (B, T);
    index (B,): each example's row in a finite training set (tasks with ``n_train``), or None;
    contrast (3 C, T', ...) and contrast_mask (3 C, T'): conditioning of C training sentences,
    their noun swaps and their logic changes, for ``NAC.logic_contrast_loss`` (or None).

    Parameters
    ----------
    inputs, labels, conditioning, conditioning_mask, input_mask, index, contrast, contrast_mask
        As above.
    """

    inputs: torch.Tensor
    labels: torch.Tensor
    conditioning: torch.Tensor | None = None
    conditioning_mask: torch.Tensor | None = None
    input_mask: torch.Tensor | None = None
    index: torch.Tensor | None = None
    contrast: torch.Tensor | None = None
    contrast_mask: torch.Tensor | None = None

    def _map(self, fn: Callable[[torch.Tensor], torch.Tensor], every: bool = True) -> Batch:
        """``fn`` on every tensor field (``every``) or on the per-example ones only."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return Batch(
            **{
                k: v if v is None or (not every and k in _NOT_PER_EXAMPLE) else fn(v)
                for k, v in values.items()
            }
        )

    def rows(self, index: slice) -> Batch:
        """The examples at ``index`` (a slice along the batch dimension); the contrast
        sentences, not one per example, are kept whole."""
        return self._map(lambda t: t[index], every=False)

    def to(self, device: torch.device) -> Batch:
        return self._map(lambda t: t.to(device))

    def __len__(self) -> int:
        return self.inputs.shape[0]


_NOT_PER_EXAMPLE = ("contrast", "contrast_mask")  # Batch fields whose rows are not examples


def sample_rows(inputs: torch.Tensor, labels: torch.Tensor, batch_size: int, seed: int) -> Batch:
    """``batch_size`` distinct examples of a finite training set (all of them if fewer), drawn
    from ``seed``, with their rows in ``Batch.index``.

    Parameters
    ----------
    inputs, labels
        The training set.
    batch_size, seed
        As above.
    """
    index = torch.randperm(len(inputs), generator=torch.Generator().manual_seed(seed))
    index = index[:batch_size]
    return Batch(inputs[index], labels[index], index=index)


class Task(Protocol):
    name: str
    n_classes: int
    input_dim: int
    conditional: bool
    cond_vocab: int | None  # conditioning given as token ids from this vocabulary
    cond_dim: int | None  # conditioning given as vectors of this width

    def sample(self, batch_size: int, seed: int) -> Batch:
        """A batch that depends only on ``seed``."""
        ...

    def validation(self, batch_size: int, seed: int) -> Batch:
        """Held-out examples for the validation metric (may be ``sample`` with another seed)."""
        ...

    # Optional: ``out_of_distribution(batch_size, seed) -> Batch``, a held-out split drawn
    # differently from training (toy-sets: larger scenes; nlvr: crowded boxes), for the
    # ablation benches.

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """Distinct conditioning inputs (in a Batch) and one descriptive row per input."""
        ...


def objects_and_text_batch(
    inputs: str,
    conditional: bool,
    objects: torch.Tensor,
    object_mask: torch.Tensor,
    text: torch.Tensor,
    text_mask: torch.Tensor,
    labels: torch.Tensor,
) -> Batch:
    """A batch of scenes (object tokens (B, N, F), mask (B, N)) and sentences (text vectors
    (B, T, D) or ids (B, T), mask (B, T)), as a model reads them:

    - conditional (``inputs="scene"``): objects as inputs, the sentence as conditioning;
    - ``inputs="scene"``, unconditional: the objects alone;
    - ``inputs="joint"``: one set of tokens [object features | text vector | is-text flag],
      objects first (Perceiver IO and other unconditional baselines); conditional, the
      sentence is also the conditioning (the executor reads it beside the circuit it made).

    Parameters
    ----------
    inputs, conditional
        What the model reads, as below.
    objects, object_mask
        Object tokens (B, N, F) and their mask.
    text, text_mask
        Sentences (B, T, D) or ids (B, T) and their mask.
    labels
        (B,) labels.
    """
    conditioning = (text, text_mask) if conditional else ()
    if inputs == "scene":
        return Batch(objects, labels, *conditioning, input_mask=object_mask)
    b, n, f = objects.shape
    t, d = text.shape[1], text.shape[2]
    joint = torch.zeros(b, n + t, f + d + 1)
    joint[:, :n, :f] = objects
    joint[:, n:, f:-1] = text
    joint[:, n:, -1] = 1.0
    joint_mask = torch.cat([object_mask, text_mask], dim=1)
    return Batch(joint, labels, *conditioning, input_mask=joint_mask)


def hide_text_inputs(batch: Batch, rows: torch.Tensor) -> Batch:
    """``batch`` (joint inputs: last feature 1 on sentence tokens) with the sentence's input
    tokens masked out in the examples where ``rows`` (B,) bool is True; objects and
    conditioning unchanged.

    Parameters
    ----------
    batch, rows
        As above.
    """
    is_text = batch.inputs[..., -1] == 1
    keep = batch.input_mask & ~(is_text & rows[:, None])
    return dataclasses.replace(batch, input_mask=keep)


INPUTS = ("scene", "joint", "text")


def check_share(name: str, value: float) -> None:
    """Refuse a task option ``name`` that is a share of examples but lies outside [0, 1].

    Parameters
    ----------
    name
        The option's name.
    value
        Its value.
    """
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")


def check_inputs(inputs: str, conditional: bool, scene_word: str = "scene") -> None:
    """Refuse an ``inputs`` mode a reasoning task does not have, or one a conditional model
    cannot read (it takes the sentence through its generator and the ``scene_word`` as input,
    with ``"joint"`` the sentence's tokens as input too).

    Parameters
    ----------
    inputs, conditional, scene_word
        As above.
    """
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {inputs!r}")
    if conditional and inputs == "text":
        raise ValueError(
            f"a conditional model reads the sentence through its circuit generator and the "
            f"{scene_word} as input: use inputs='scene' or 'joint', not 'text' "
            f"(or --unconditional)"
        )


def trim_text(text: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Encoded sentences (B, T[, D]) and mask (B, T) cut after the last real token of any row,
    vectors as float32 (pools keep them as float16). The mask need not be a prefix (a split
    sentence has padding between its two parts).

    Parameters
    ----------
    text, mask
        As above.
    """
    real = mask.any(0).nonzero()
    length = int(real.max()) + 1 if len(real) else 0
    text, mask = text[:, :length], mask[:, :length]
    return (text.float() if text.dtype.is_floating_point else text), mask


def sentence_circuit_inputs(
    texts: Sequence[str],
    categories: Sequence[Iterable[str]],
    dataset: str,
    input_dim: int,
    encode: Callable[[list[str]], tuple[torch.Tensor, torch.Tensor]],
) -> tuple[Batch, pd.DataFrame]:
    """A reasoning task's ``circuit_inputs``: the sentences encoded as conditioning (inputs are
    placeholders) and one row per sentence: text, label (""), split and dataset (``dataset``),
    categories (sorted)."""
    tokens, mask = encode(list(texts))
    frame = pd.DataFrame(
        {
            "text": list(texts),
            "label": "",
            "split": dataset,
            "dataset": dataset,
            "categories": [sorted(c) for c in categories],
        }
    )
    n = len(frame)
    return Batch(torch.zeros(n, 1, input_dim), torch.zeros(n), tokens, mask), frame


class HeldOutSentenceCircuits:
    """``encode_text`` and ``circuit_inputs`` for a task whose circuits are the generator's for
    its held-out sentences. The task has ``encoder`` (a text encoder), ``conditional``,
    ``val_pool`` (sentences with ``text`` and ``categories``), ``input_dim`` and
    ``circuit_dataset``, the name its circuits' rows carry in the ``dataset`` column."""

    circuit_dataset: str
    encoder: TextEncoder
    conditional: bool
    val_pool: Sequence  # of sentences: .text, .categories
    input_dim: int

    def encode_text(self, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Conditioning for the circuit generator: the encoder's tokens (B, T[, D]) and mask
        (B, T)."""
        return self.encoder.encode(sentences)

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """The first ``n`` held-out sentences (n <= val_pool_size) with their categories
        (``seed`` is unused: the pool is already drawn)."""
        if not self.conditional:
            raise ValueError("an unconditional model has a single circuit; nothing to enumerate")
        pool = self.val_pool[:n]
        return sentence_circuit_inputs(
            [s.text for s in pool],
            [s.categories for s in pool],
            self.circuit_dataset,
            self.input_dim,
            self.encode_text,
        )
