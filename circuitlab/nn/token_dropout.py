"""Word dropout for a conditional NAC's conditioning: hide a share of each sentence's tokens.

In training, each real token of the conditioning is hidden from the generator (dropped from
its mask) with probability p, so a circuit must be generated from whatever words remain and no
one token can carry it alone. Tokens come in parts (one part, or the skeleton and content of a
split encoding): a part left with no token in some row gets that row's part back whole, since
the generator's attention over an empty part has nothing to read.
"""

from __future__ import annotations

import torch

__all__ = ["drop_tokens"]


def drop_tokens(mask: torch.Tensor, p: float, parts: torch.Tensor | None = None) -> torch.Tensor:
    """The mask (B, T) with each True entry set False with probability ``p``.

    ``parts`` (B, T) bool, optional: True for the tokens of the second part (e.g. content),
    False for the first; a row whose part would lose every token keeps that part's mask as is.

    Parameters
    ----------
    mask
        (B, T) True for real tokens.
    p
        The probability of dropping each.
    parts
        As above.
    """
    kept = mask & (torch.rand(mask.shape, device=mask.device) >= p)
    for inside in (torch.ones_like(mask),) if parts is None else (~parts, parts):
        emptied = ~(kept & inside).any(dim=1, keepdim=True)
        kept = torch.where(emptied & inside, mask, kept)
    return kept
