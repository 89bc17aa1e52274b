"""Token noise for a conditional NAC's conditioning: jitter each sentence token's vector.

In training, every real token of the conditioning moves by Gaussian noise of expected length
about ``length`` (per-feature sd ``length / sqrt(dim)``), so the generator must draw nearby
circuits for nearby token vectors, and a phrasing it never read (whose tokens lie near the
grammar's) is more likely to get the circuit of its neighbours. The split encoding's last
feature (the skeleton/content flag, ``SplitEncoder``) is left as it is. The pair world's
``noun_noise`` does the same for the objects' noun vectors (``circuitlab.tasks.pairs``).
"""

from __future__ import annotations

import torch


def add_token_noise(
    tokens: torch.Tensor, mask: torch.Tensor | None, length: float, keep_last: bool
) -> torch.Tensor:
    """Tokens (B, T, D) with Gaussian noise of expected length about ``length`` on each real
    token (mask (B, T) True; all when None); with ``keep_last`` the last feature is untouched
    and the noise lives in the other D - 1."""
    noised = tokens[..., :-1] if keep_last else tokens
    noise = torch.randn_like(noised) * (length / noised.shape[-1] ** 0.5)
    if mask is not None:
        noise = noise * mask.unsqueeze(-1).to(noise.dtype)
    if keep_last:
        return torch.cat([noised + noise, tokens[..., -1:]], dim=-1)
    return noised + noise
