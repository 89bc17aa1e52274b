"""The read of a Neural Function Module: a layer's queries attend over the keys every written
layer left, brought to the reader's size, plus a null slot; top-k sparse.

Shapes: a written map is (B, heads * d, h', w'); a reader is at (h, w). A smaller map is
upsampled (nearest) to (h, w): one key per reader position. A larger one goes through
SpaceToDepth with block h' / h: every position of a block x block window becomes a separate key
of the reader position it covers. The null slot is a zero key with a zero value: its logit is 0,
so a layer can put its weight there and read nothing.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

SPARSE_EPS = 1e-7  # keeps the renormalisation finite when every weight is cut


def sparse_top_k(weights: torch.Tensor, k: int | None) -> torch.Tensor:
    """Keep each row's ``k`` largest weights (last axis): subtract the (k+1)-th largest (plus
    SPARSE_EPS), clamp at 0, renormalise to sum 1. Rows of at most ``k`` entries, and k None,
    pass unchanged."""
    n = weights.shape[-1]
    if k is None or n <= k:
        return weights
    threshold = weights.topk(k + 1, dim=-1).values[..., -1:] + SPARSE_EPS
    kept = (weights - threshold).clamp(min=0)
    return kept / (kept.sum(-1, keepdim=True) + SPARSE_EPS)


def to_reader_size(written: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """A written map (B, D, h', w') as keys of a reader at ``size`` (h, w): (B, n, D, h, w),
    n = 1 for a map no larger than the reader (upsampled, nearest), (h' / h)^2 for a larger one
    (SpaceToDepth: window position p of reader position (i, j) is entry p)."""
    b, d, hw, ww = written.shape
    h, w = size
    if hw <= h:
        return F.interpolate(written, size=size, mode="nearest").unsqueeze(1)
    if hw % h or ww % w or hw // h != ww // w:
        raise ValueError(f"a written map of {hw}x{ww} cannot be split into {h}x{w} windows")
    block = hw // h
    windows = written.view(b, d, h, block, w, block).permute(0, 3, 5, 1, 2, 4)
    return windows.reshape(b, block * block, d, h, w)


class LayerWriter(nn.Module):
    """What a layer writes: keys and values, 1x1 convolutions of its output map:
    (B, C, h, w) -> ((B, heads * key_dim, h, w), (B, heads * value_dim, h, w))."""

    def __init__(self, channels: int, heads: int, key_dim: int, value_dim: int) -> None:
        super().__init__()
        self.heads, self.key_dim, self.value_dim = heads, key_dim, value_dim
        self.key = nn.Conv2d(channels, heads * key_dim, 1)
        self.value = nn.Conv2d(channels, heads * value_dim, 1)

    def write(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.key(x), self.value(x)


class LayerReader(LayerWriter):
    """A layer's module that writes and reads.

    ``read(x, written)`` attends from x's positions over the ``written`` (keys, values) of
    every layer and returns (x + gamma * out(read), attention (B, len(written) + 1): the weight
    on each written layer, summed over its keys, and on the null slot last, averaged over
    positions and heads). out is conv3x3 -> BN -> ReLU -> conv3x3; gamma starts at 0.
    """

    def __init__(
        self, channels: int, heads: int, key_dim: int, value_dim: int, top_k: int | None
    ) -> None:
        super().__init__(channels, heads, key_dim, value_dim)
        self.top_k = top_k
        self.query = nn.Conv2d(channels, heads * key_dim, 1)
        self.out = nn.Sequential(
            nn.Conv2d(heads * value_dim, channels, 3, padding=1),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
        )
        self.gamma = nn.Parameter(torch.zeros(()))

    def _heads(self, maps: torch.Tensor, d: int) -> torch.Tensor:
        """(B, n, heads * d, h, w) -> (B, h * w, heads, n, d)."""
        b, n, _, h, w = maps.shape
        return maps.view(b, n, self.heads, d, h * w).permute(0, 4, 2, 1, 3)

    def read(
        self, x: torch.Tensor, written: list[tuple[torch.Tensor, torch.Tensor]]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        b, _, h, w = x.shape
        query = self.query(x).view(b, self.heads, self.key_dim, h * w).permute(0, 3, 1, 2)
        keys, values, counts = [], [], []
        for key_map, value_map in written:
            keys.append(self._heads(to_reader_size(key_map, (h, w)), self.key_dim))
            values.append(self._heads(to_reader_size(value_map, (h, w)), self.value_dim))
            counts.append(keys[-1].shape[3])
        keys.append(keys[0].new_zeros(b, h * w, self.heads, 1, self.key_dim))  # the null slot
        values.append(values[0].new_zeros(b, h * w, self.heads, 1, self.value_dim))
        counts.append(1)
        key, value = torch.cat(keys, 3), torch.cat(values, 3)  # (B, hw, heads, n, d)
        logits = torch.einsum("bpha,bphna->bphn", query, key) / math.sqrt(self.key_dim)
        weights = sparse_top_k(logits.softmax(-1), self.top_k)
        read = torch.einsum("bphn,bphna->bpha", weights, value)  # (B, hw, heads, d_value)
        read = read.permute(0, 2, 3, 1).reshape(b, self.heads * self.value_dim, h, w)
        per_layer = torch.stack(
            [part.sum(-1) for part in weights.split(counts, dim=-1)], -1
        )  # (B, hw, heads, layers + 1)
        return x + self.gamma * self.out(read), per_layer.mean((1, 2))
