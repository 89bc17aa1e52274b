"""Tokenizers: turn raw inputs into a set of tokens (B, N, token_dim) for the read-in."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["ByteTokenizer", "FeatureTokenizer", "PatchTokenizer"]


class FeatureTokenizer(nn.Module):
    """A set of feature vectors (B, N, input_dim) -> (B, N, dim), with an optional learned
    positional embedding over ``max_tokens`` positions (leave it off for true sets).

    Parameters
    ----------
    input_dim
        Features per input vector.
    dim
        Width of the tokens.
    max_tokens
        Positions with a learned embedding (None: none, a set).
    """

    def __init__(self, input_dim: int, dim: int, max_tokens: int | None = None) -> None:
        super().__init__()
        self.proj = nn.Linear(input_dim, dim)
        self.max_tokens = max_tokens
        self.position = nn.Parameter(torch.zeros(max_tokens, dim)) if max_tokens else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        width = self.proj.in_features
        if x.ndim != 3 or x.shape[-1] != width:
            raise ValueError(
                f"inputs must be (batch, tokens, {width}) feature vectors for this model, got "
                f"shape {tuple(x.shape)}"
            )
        tokens = self.proj(x)
        if self.position is not None:
            n = x.shape[1]
            if n > self.max_tokens:
                raise ValueError(f"{n} tokens but max_tokens={self.max_tokens}; raise max_tokens")
            tokens = tokens + self.position[:n]
        return tokens


class PatchTokenizer(nn.Module):
    """Images (B, C, H, W) -> patch tokens (B, (H/p)*(W/p), dim) through a small conv stem,
    with a learned positional embedding when ``max_tokens`` is set.

    Parameters
    ----------
    channels
        The images' channels.
    dim
        Width of the tokens.
    patch_size
        Side p of the square patches, in pixels.
    max_tokens
        Positions with a learned embedding (None: none).
    """

    def __init__(
        self, channels: int, dim: int, patch_size: int = 4, max_tokens: int | None = None
    ) -> None:
        super().__init__()
        hidden = max(dim // 2, 16)
        self.stem = nn.Sequential(
            nn.Conv2d(channels, hidden, kernel_size=3, padding=1),
            nn.GELU(),
            nn.Conv2d(hidden, dim, kernel_size=patch_size, stride=patch_size),
        )
        self.max_tokens = max_tokens
        self.position = nn.Parameter(torch.zeros(max_tokens, dim)) if max_tokens else None

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        channels, patch = self.stem[0].in_channels, self.stem[2].kernel_size[0]
        if images.ndim != 4 or images.shape[1] != channels or min(images.shape[2:]) < patch:
            raise ValueError(
                f"inputs must be (batch, {channels}, height, width) images of at least "
                f"{patch} x {patch} pixels for this model, got shape {tuple(images.shape)}"
            )
        tokens = self.stem(images).flatten(2).transpose(1, 2)
        if self.position is not None:
            if tokens.shape[1] > self.max_tokens:
                raise ValueError(
                    f"{tokens.shape[1]} patches but max_tokens={self.max_tokens}; raise max_tokens"
                )
            tokens = tokens + self.position[: tokens.shape[1]]
        return tokens


class ByteTokenizer(nn.Module):
    """Raw bytes (B, N) integer tensor in [0, 255] -> (B, N, dim), learned positions up to
    ``max_tokens``.

    Parameters
    ----------
    dim
        Width of the tokens.
    max_tokens
        Positions with a learned embedding (the longest input read).
    """

    def __init__(self, dim: int, max_tokens: int = 1024) -> None:
        super().__init__()
        self.embed = nn.Embedding(256, dim)
        self.max_tokens = max_tokens
        self.position = nn.Parameter(torch.zeros(max_tokens, dim))

    def forward(self, data: torch.Tensor) -> torch.Tensor:
        if data.ndim != 2 or data.is_floating_point():
            raise ValueError(
                f"inputs must be (batch, bytes) integers in [0, 255] for this model, got "
                f"shape {tuple(data.shape)} of {data.dtype}"
            )
        n = data.shape[1]
        if n > self.max_tokens:
            raise ValueError(f"{n} bytes but max_tokens={self.max_tokens}; raise max_tokens")
        return self.embed(data.long()) + self.position[:n]

    @staticmethod
    def encode(texts: list[str], max_tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
        """UTF-8 encode and pad: -> bytes (B, N) and mask (B, N), N = longest (<= max_tokens)."""
        raw = [t.encode("utf-8")[:max_tokens] for t in texts]
        n = max((len(r) for r in raw), default=1) or 1
        data = torch.zeros(len(raw), n, dtype=torch.long)
        mask = torch.zeros(len(raw), n, dtype=torch.bool)
        for i, r in enumerate(raw):
            data[i, : len(r)] = torch.tensor(list(r), dtype=torch.long)
            mask[i, : len(r)] = True
        return data, mask
