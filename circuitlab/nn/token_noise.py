"""Token noise for a conditional NAC's conditioning: jitter each sentence token's vector.

In training, every real token of the conditioning moves by Gaussian noise of expected length
about ``length`` (per-feature sd ``length / sqrt(dim)``), so the generator must draw nearby
circuits for nearby token vectors, and a phrasing it never read (whose tokens lie near the
grammar's) is more likely to get the circuit of its neighbours. The split encoding's last
feature (the skeleton/content flag, ``SplitEncoder``) is left as it is. The pair world's
``noun_noise`` (``circuitlab.worlds.tasks.pairs``) puts the same ``gaussian_jitter`` on the objects'
noun vectors.
"""

from __future__ import annotations

import torch

__all__ = ["add_token_noise", "gaussian_jitter"]


def gaussian_jitter(
    vectors: torch.Tensor,
    mask: torch.Tensor | None,
    length: float,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Vectors (..., D) plus Gaussian noise of expected length about ``length`` (per-feature sd
    ``length / sqrt(D)``) where ``mask`` (...) is True (everywhere when None), drawn from
    ``generator`` (the global generator when None).

    Parameters
    ----------
    vectors, mask, length, generator
        As above.
    """
    if generator is None:
        # randn_like, not randn(shape): torch.compile traces symbolic shapes through it
        noise = torch.randn_like(vectors)
    else:
        noise = torch.randn(
            vectors.shape, generator=generator, dtype=vectors.dtype, device=vectors.device
        )
    noise = noise * (length / vectors.shape[-1] ** 0.5)
    if mask is not None:
        noise = noise * mask.unsqueeze(-1)
    return vectors + noise


def add_token_noise(
    tokens: torch.Tensor, mask: torch.Tensor | None, length: float, keep_last: bool
) -> torch.Tensor:
    """Tokens (B, T, D) with Gaussian noise of expected length about ``length`` on each real
    token (mask (B, T) True; all when None); with ``keep_last`` the last feature is untouched
    and the noise lives in the other D - 1.

    Parameters
    ----------
    tokens, mask, length, keep_last
        As above.
    """
    if not keep_last:
        return gaussian_jitter(tokens, mask, length)
    return torch.cat([gaussian_jitter(tokens[..., :-1], mask, length), tokens[..., -1:]], dim=-1)
