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

__all__ = ["LayerReader", "LayerWriter", "SPARSE_EPS", "sparse_top_k", "to_reader_size"]

SPARSE_EPS = 1e-7  # added to the threshold: a weight equal to the (k+1)-th is cut


def sparse_top_k(weights: torch.Tensor, k: int | None) -> torch.Tensor:
    """Keep each row's ``k`` largest weights (last axis): subtract the (k+1)-th largest (plus
    SPARSE_EPS), clamp at 0, renormalise to sum 1. Rows of at most ``k`` entries, and k None,
    pass unchanged; so does a row whose largest weight ties with its (k+1)-th (identical keys,
    as a plain background writes), which the subtraction would empty entirely.

    Parameters
    ----------
    weights
        (..., n) attention weights, rows summing to 1.
    k
        As above.
    """
    n = weights.shape[-1]
    if k is None or n <= k:
        return weights
    threshold = weights.topk(k + 1, dim=-1).values[..., -1:] + SPARSE_EPS
    kept = (weights - threshold).clamp(min=0)
    total = kept.sum(-1, keepdim=True)
    return torch.where(total > 0, kept / total.clamp(min=torch.finfo(kept.dtype).tiny), weights)


def to_reader_size(written: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """A written map (B, D, h', w') as keys of a reader at ``size`` (h, w): (B, n, D, h, w),
    n = 1 for a map no larger than the reader (upsampled, nearest), (h' / h)^2 for a larger one
    (SpaceToDepth: window position p of reader position (i, j) is entry p). The explicit form
    of what ``LayerReader.read`` computes on views; the tests hold read to it.

    Parameters
    ----------
    written
        (B, D, h', w') a written map.
    size
        The reader's (h, w).
    """
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
    (B, C, h, w) -> ((B, heads * key_dim, h, w), (B, heads * value_dim, h, w)).

    Parameters
    ----------
    channels
        The layer's output channels.
    heads, key_dim, value_dim
        Attention heads, and each head's key and value widths.
    """

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
    positions and heads). out is conv3x3 -> BN -> ReLU -> conv3x3; gamma starts at 0. Without
    ``null_slot`` the weights are over the written layers alone (the last column is 0).

    Parameters
    ----------
    channels
        The layer's output channels.
    heads, key_dim, value_dim
        Attention heads, and each head's key and value widths.
    top_k
        Weights a read keeps (``sparse_top_k``; None: dense).
    null_slot
        A learned null slot beside the written layers.
    """

    def __init__(
        self,
        channels: int,
        heads: int,
        key_dim: int,
        value_dim: int,
        top_k: int | None,
        null_slot: bool = True,
    ) -> None:
        super().__init__(channels, heads, key_dim, value_dim)
        self.top_k = top_k
        self.null_slot = null_slot
        self.query = nn.Conv2d(channels, heads * key_dim, 1)
        self.out = nn.Sequential(
            nn.Conv2d(heads * value_dim, channels, 3, padding=1),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
        )
        self.gamma = nn.Parameter(torch.zeros(()))

    def read(
        self, x: torch.Tensor, written: list[tuple[torch.Tensor, torch.Tensor]]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Attend from ``x``'s positions over ``written`` and the null slot. Equal to attention
        over the keys ``to_reader_size`` makes, computed per written layer on views of its maps
        (an upsampled map's keys are never copied out)."""
        b, _, h, w = x.shape
        query = _per_head(self.query(x), self.heads) / math.sqrt(self.key_dim)
        keys = [_per_head(key_map, self.heads) for key_map, _ in written]
        logits = [_slot_logits(query, key) for key in keys]
        counts = [part.shape[-1] for part in logits] + [1]
        null = query.new_zeros(b, self.heads, h * w, 1)  # the null slot's logit: a zero key
        if self.null_slot:
            weights = sparse_top_k(torch.cat([*logits, null], -1).softmax(-1), self.top_k)
        else:  # the same columns, the null slot's weight 0
            weights = sparse_top_k(torch.cat(logits, -1).softmax(-1), self.top_k)
            weights = torch.cat([weights, null], -1)
        parts = weights.split(counts, dim=-1)
        read = sum(
            _slot_read(part, _per_head(value_map, self.heads), (h, w))
            for part, (_, value_map) in zip(parts, written, strict=False)
        )  # (B, heads, h, w, d_value); the null slot's value is zero: it adds nothing
        read = read.permute(0, 1, 4, 2, 3).reshape(b, self.heads * self.value_dim, h, w)
        per_layer = torch.stack([part.sum(-1) for part in parts], -1)  # (B, heads, hw, slots)
        return x + self.gamma * self.out(read), per_layer.mean((1, 2))


def _per_head(maps: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, heads * d, h, w) -> (B, heads, h, w, d), contiguous (products reduce over d)."""
    b, hd, h, w = maps.shape
    return maps.view(b, heads, hd // heads, h, w).permute(0, 1, 3, 4, 2).contiguous()


def _slot_logits(query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
    """q.k of a reader's queries (B, heads, h, w, d) with one written layer's keys
    (B, heads, h', w', d): (B, heads, h w, n), n = 1 for h' <= h, (h' / h)^2 for h' > h."""
    b, heads, h, w, d = query.shape
    hk, wk = key.shape[2:4]
    if hk <= h:  # nearest upsampling: reader row i*s + a reads key row i
        s = h // hk
        q = query.view(b, heads, hk, s, wk, s, d)
        logits = (q * key.view(b, heads, hk, 1, wk, 1, d)).sum(-1)
        return logits.reshape(b, heads, h * w, 1)
    block = hk // h  # SpaceToDepth: window position (a, c) of reader (i, j) is key row i*b + a
    k = key.view(b, heads, h, block, w, block, d)
    logits = (query.view(b, heads, h, 1, w, 1, d) * k).sum(-1)  # (B, heads, h, b, w, b)
    return logits.permute(0, 1, 2, 4, 3, 5).reshape(b, heads, h * w, block * block)


def _slot_read(weights: torch.Tensor, value: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """sum over one written layer's keys of weight x value: weights (B, heads, h w, n), values
    (B, heads, h', w', d) -> (B, heads, h, w, d)."""
    b, heads, hv, wv, d = value.shape
    h, w = size
    if hv <= h:
        s = h // hv
        wgt = weights.view(b, heads, hv, s, wv, s, 1)
        return (wgt * value.view(b, heads, hv, 1, wv, 1, d)).reshape(b, heads, h, w, d)
    block = hv // h
    windows = value.view(b, heads, h, block, w, block, d).permute(0, 1, 2, 4, 3, 5, 6)
    windows = windows.reshape(b, heads, h, w, block * block, d)
    return (weights.view(b, heads, h, w, 1, block * block) @ windows).squeeze(-2)
