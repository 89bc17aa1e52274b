"""Plain transformer pieces shared by the circuit generator and the input-token encoder."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["TokenEncoder", "TransformerBlock", "mlp"]


def mlp(dim_in: int, dim_hidden: int, dim_out: int) -> nn.Sequential:
    """Linear -> GELU -> Linear.

    Parameters
    ----------
    dim_in, dim_hidden, dim_out
        The widths.
    """
    return nn.Sequential(nn.Linear(dim_in, dim_hidden), nn.GELU(), nn.Linear(dim_hidden, dim_out))


class TransformerBlock(nn.Module):
    """Pre-LN attention followed by a pre-LN FFN, both residual. ``cross``: the block attends to
    a context (and normalises it with its own LayerNorm); otherwise to its own input.

    ``x`` (B, N, dim); ``context`` (B, T, dim) when ``cross``; ``pad_mask`` (B, T or N), True
    where a key is padding. Returns (B, N, dim).

    Parameters
    ----------
    dim
        Width of the tokens.
    heads
        Attention heads.
    cross
        As above.
    """

    def __init__(self, dim: int, heads: int, *, cross: bool) -> None:
        super().__init__()
        self.norm_q = nn.LayerNorm(dim)
        self.norm_kv = nn.LayerNorm(dim) if cross else None
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm_ffn = nn.LayerNorm(dim)
        self.ffn = mlp(dim, 2 * dim, dim)

    def forward(
        self,
        x: torch.Tensor,
        context: torch.Tensor | None = None,
        pad_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        q = self.norm_q(x)
        kv = q if self.norm_kv is None else self.norm_kv(context)
        x = x + self.attn(q, kv, kv, key_padding_mask=pad_mask, need_weights=False)[0]
        return x + self.ffn(self.norm_ffn(x))


class TokenEncoder(nn.Module):
    """``layers`` self-attention blocks over a set of input tokens, before the read-in.

    The read-in pools the tokens into each module with one softmax, so a module sees sums of
    tokens and never a pair: "a circle above a square" needs each token to know its neighbours
    first. tokens (B, N, dim), mask (B, N) True for real tokens -> (B, N, dim); padding tokens
    are never attended to, so they do not change the real ones.

    Parameters
    ----------
    dim
        Width of the tokens.
    heads
        Attention heads.
    layers
        Self-attention blocks.
    """

    def __init__(self, dim: int, heads: int, layers: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            TransformerBlock(dim, heads, cross=False) for _ in range(layers)
        )

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        pad = None if mask is None else ~mask
        for block in self.blocks:
            tokens = block(tokens, pad_mask=pad)
        return tokens
