"""The task interface the trainer and the exporter rely on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import pandas as pd
import torch


@dataclass
class Batch:
    """inputs (B, N, input_dim); labels (B,); conditioning (B, T) token ids or None."""

    inputs: torch.Tensor
    labels: torch.Tensor
    conditioning: torch.Tensor | None = None
    conditioning_mask: torch.Tensor | None = None

    def rows(self, index: slice) -> Batch:
        """The examples at ``index`` (a slice along the batch dimension)."""

        def take(t: torch.Tensor | None) -> torch.Tensor | None:
            return None if t is None else t[index]

        return Batch(
            take(self.inputs),
            take(self.labels),
            take(self.conditioning),
            take(self.conditioning_mask),
        )

    def to(self, device: torch.device) -> Batch:
        def move(t: torch.Tensor | None) -> torch.Tensor | None:
            return None if t is None else t.to(device)

        return Batch(
            move(self.inputs),
            move(self.labels),
            move(self.conditioning),
            move(self.conditioning_mask),
        )


class Task(Protocol):
    name: str
    n_classes: int
    input_dim: int
    conditional: bool
    cond_vocab: int | None

    def sample(self, batch_size: int, seed: int) -> Batch:
        """A batch that depends only on ``seed``."""
        ...

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """Distinct conditioning inputs (in a Batch) and one descriptive row per input."""
        ...
