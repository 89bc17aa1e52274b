"""nlvr2: NLVR2 on frozen CLIP features (``circuitlab nlvr2 features`` computes them).

The executor reads both images' patch tokens, each with a left/right flag, (B, 2P, D + 2); the
circuit generator of a conditional NAC reads the sentence's CLIP text tokens (B, T, D). An
unconditional model (``conditional=False``) reads image and text tokens as one set, with a third
flag for text. Sentences are split ``val_fraction`` to validation, by sentence, so validation
sentences are never trained on.
"""

from __future__ import annotations

import hashlib
import random

import pandas as pd
import torch

from circuitlab.data.clip_features import load_features
from circuitlab.data.text import pad_tokens
from circuitlab.task import Batch

__all__ = ["NLVR2Features"]


def _held_out(sentence: str, fraction: float) -> bool:
    digest = hashlib.sha1(sentence.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little") / 2**32 < fraction


class NLVR2Features:
    """NLVR2 examples on frozen CLIP features (the module docstring says what a batch holds).

    Parameters
    ----------
    features
        The features file ``circuitlab nlvr2 features`` wrote.
    conditional
        The circuit generator reads the sentence; False: image and text tokens as one set.
    val_fraction
        Share of the sentences held out for validation.
    """

    name = "nlvr2"
    n_classes = 2
    cond_vocab = None

    def __init__(
        self, *, features: str, conditional: bool = True, val_fraction: float = 0.1
    ) -> None:
        examples, self.images, self.text, meta = load_features(features)
        self.conditional = conditional
        dim = meta["dim"]
        self.cond_dim = dim if conditional else None
        self.input_dim = dim + (2 if conditional else 3)
        held = examples["sentence"].map(lambda s: _held_out(s, val_fraction))
        self.train_rows = examples[~held].reset_index(drop=True)
        self.val_rows = examples[held].reset_index(drop=True)
        if self.train_rows.empty:
            raise ValueError(f"{features}: every sentence fell in validation; lower val_fraction")
        if self.val_rows.empty:  # tiny caches: validate on training sentences rather than none
            self.val_rows = self.train_rows

    def _batch(self, rows: pd.DataFrame) -> Batch:
        flags = 2 if self.conditional else 3
        inputs = []
        for pair in rows["pair"]:
            left, right = self.images[pair].float()
            side = torch.zeros(left.shape[0] * 2, flags)
            side[: left.shape[0], 0] = 1.0
            side[left.shape[0] :, 1] = 1.0
            inputs.append(torch.cat([torch.cat([left, right]), side], dim=1))
        text, text_mask = pad_tokens([self.text[s] for s in rows["sentence"]], torch.float32)
        labels = torch.tensor(rows["label"].astype(int).to_numpy())
        images, image_mask = pad_tokens(inputs, torch.float32)
        if self.conditional:
            return Batch(images, labels, text, text_mask, input_mask=image_mask)
        text_tokens = torch.cat([text, torch.zeros(*text.shape[:2], flags)], dim=2)
        text_tokens[..., -1] = 1.0
        return Batch(
            torch.cat([images, text_tokens], dim=1),
            labels,
            input_mask=torch.cat([image_mask, text_mask], dim=1),
        )

    def _draw(self, rows: pd.DataFrame, batch_size: int, seed: int) -> Batch:
        rng = random.Random(seed)
        return self._batch(rows.iloc[[rng.randrange(len(rows)) for _ in range(batch_size)]])

    def sample(self, batch_size: int, seed: int) -> Batch:
        return self._draw(self.train_rows, batch_size, seed)

    def validation(self, batch_size: int, seed: int) -> Batch:
        return self._draw(self.val_rows, batch_size, seed)

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """Up to ``n`` distinct sentences of the cache, with their CLIP text tokens."""
        if not self.conditional:
            raise ValueError("an unconditional model has a single circuit; nothing to enumerate")
        sentences = list(
            dict.fromkeys(self.train_rows["sentence"].tolist() + self.val_rows["sentence"].tolist())
        )[:n]
        text, mask = pad_tokens([self.text[s] for s in sentences], torch.float32)
        frame = pd.DataFrame({"text": sentences, "label": "", "split": "nlvr2", "dataset": "nlvr2"})
        empty = torch.zeros(len(sentences), 1, self.input_dim)
        return Batch(empty, torch.zeros(len(sentences), dtype=torch.long), text, mask), frame
