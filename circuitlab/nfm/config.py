"""NFMConfig: every architectural choice of a CNN-MLP with (or without) Neural Function Modules."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from circuitlab.config_fields import check_fields, from_dict

__all__ = ["NFMConfig"]


@dataclass
class NFMConfig:
    """A CNN-MLP for visual question answering (Santoro et al. 2017's baseline) and its NFM
    version (Lamb et al. 2021).

    Images (B, in_channels, image_size, image_size) go through len(``channels``) convolutions
    (3x3, stride 2, ReLU, batch norm); the last map, flattened and joined by the question
    vector (B, question_dim), goes through two ReLU layers of ``hidden`` units to
    ``n_answers`` logits. With ``nfm``, a first pass of its own convolutions only writes keys
    and values (1x1 convolutions, ``heads`` x ``key_dim`` and ``heads`` x ``value_dim``) at
    every layer; in the second pass, which gives the answer, every layer writes and then reads
    from all written layers (top-down included) and a null slot, attention sparsified to its
    ``top_k`` largest weights (None: dense), and adds what it read through
    conv3x3 -> BN -> ReLU -> conv3x3 scaled by gamma, a learned scalar that starts at 0.
    Without ``nfm`` the model is the second pass alone: the CNN-MLP baseline.

    Ablations (all off by default, the paper's model): ``null_slot`` False drops the null slot
    (every read sums to 1 over written layers); ``top_down`` False lets the second pass's layer
    l read only first-pass layers 1..l (no deeper ones: the "two passes without top-down reads"
    control, the same compute); ``attending_layers`` names which of the second pass's layers
    read, numbered from 1 as the slots are (None: all; the others only write).

    Parameters
    ----------
    image_size, in_channels
        The images' side and channels.
    question_dim
        Width of the question vectors.
    n_answers
        Answers, the logits' width.
    channels
        Output channels of each convolution.
    hidden
        Units of the two ReLU layers before the logits.
    nfm
        The NFM version (two passes); False: the CNN-MLP baseline.
    heads, key_dim, value_dim
        Attention heads of the reads, and the widths of each head's keys and values.
    top_k
        Weights a read keeps (None: dense).
    null_slot, top_down, attending_layers
        The ablations, as above.
    """

    image_size: int = 32
    in_channels: int = 3
    question_dim: int = 12
    n_answers: int = 10
    channels: list[int] = field(default_factory=lambda: [24, 24, 24, 24])
    hidden: int = 256
    nfm: bool = True
    heads: int = 4
    key_dim: int = 16
    value_dim: int = 16
    top_k: int | None = 3
    null_slot: bool = True
    top_down: bool = True
    attending_layers: list[int] | None = None

    def __post_init__(self) -> None:
        check_fields(self)
        for name in ("image_size", "in_channels", "question_dim", "n_answers", "hidden"):
            if getattr(self, name) < 1:
                raise ValueError(f"NFMConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not self.channels or min(self.channels) < 1:
            raise ValueError(f"NFMConfig.channels must be positive widths, got {self.channels}")
        if self.image_size % 2 ** len(self.channels):
            raise ValueError(
                f"NFMConfig.image_size ({self.image_size}) must be divisible by 2 ** "
                f"{len(self.channels)}: every layer halves it"
            )
        for name in ("heads", "key_dim", "value_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"NFMConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"NFMConfig.top_k must be None or >= 1, got {self.top_k}")
        if self.attending_layers is not None:
            self.attending_layers = sorted({int(layer) for layer in self.attending_layers})
            layers = range(1, len(self.channels) + 1)
            if not self.attending_layers or not set(self.attending_layers) <= set(layers):
                raise ValueError(
                    f"NFMConfig.attending_layers must name layers among {list(layers)} (or be "
                    f"None: all), got {self.attending_layers}"
                )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NFMConfig:
        return from_dict(cls, values)
