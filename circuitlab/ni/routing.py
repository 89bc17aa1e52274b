"""Neural Interpreters' routing: which function handles which token.

Every token x_i gets a type t_i = MLP(LN(x_i)); every function u has a signature s_u. The
compatibility of token i with function u is the kernel of circuitlab's signature graph
(``circuitlab.nn.kernel``) between two different sets, functions and tokens:

    C~_ui = exp(-(1 - cos(s_u, t_i)) / sigma),  0 where the distance 1 - cos exceeds tau,
    C_ui  = C~_ui / (eps + sum_u C~_ui)          (normalised over functions).

Choices, after the authors' code (neural_interpreters/core/kernels.py):
- the truncation keeps d <= tau (the paper's equation 3 prints the condition the other way);
- a cut link is 0 in the forward pass but passes the gradient of the untruncated kernel
  (straight through), so a type beyond the truncation can still be pulled back within it;
- the distance is divided by sigma before the cut, so sigma's gradient stays finite;
- sigma is learnable, started at 1 (kept positive as exp(log sigma)).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from circuitlab.nn.kernel import cosine_distance

__all__ = ["RoutingKernel", "TypeInference", "compatibility", "normalise_over_functions"]


class TypeInference(nn.Module):
    """t = MLP(LN(x)): tokens (..., dim) -> types (..., type_dim); ``depth`` linear layers
    with GELU between them (the authors' presets: depth 2, type_dim 24).

    Parameters
    ----------
    dim
        Width of the tokens.
    type_dim, depth
        As above.
    """

    def __init__(self, dim: int, type_dim: int, depth: int = 2) -> None:
        super().__init__()
        if depth < 1:
            raise ValueError(f"type inference depth must be >= 1, got {depth}")
        layers: list[nn.Module] = [nn.LayerNorm(dim)]
        for _ in range(depth - 1):
            layers += [nn.Linear(dim, dim), nn.GELU()]
        layers.append(nn.Linear(dim, type_dim))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def compatibility(
    signatures: torch.Tensor,
    types: torch.Tensor,
    sigma: float | torch.Tensor = 1.0,
    truncation: float | None = None,
) -> torch.Tensor:
    """The truncated kernel C~: signatures (U, d_type), types (B, V, d_type) -> (B, U, V).
    Cut entries are 0 but carry the untruncated kernel's gradient.

    Parameters
    ----------
    signatures, types
        As above.
    sigma
        The kernel's width.
    truncation
        Distance beyond which an entry is cut (None: none is).
    """
    distance = cosine_distance(signatures, types)  # (B, U, V)
    kernel = torch.exp(-distance / sigma)
    if truncation is None:
        return kernel
    kept = kernel.masked_fill(distance > truncation, 0.0)
    return kernel + (kept - kernel).detach()


def normalise_over_functions(kernel: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """C = C~ / (eps + sum_u C~): (B, U, V) -> (B, U, V); a token no function accepts gets 0.

    Parameters
    ----------
    kernel
        C~ (B, U, V).
    eps
        As above.
    """
    return kernel / (eps + kernel.sum(dim=1, keepdim=True))


class RoutingKernel(nn.Module):
    """Signatures (U, d_type) and types (B, V, d_type) -> routing C (B, U, V).
    ``token_mask`` (B, V), True for real tokens: padding is routed nowhere.

    Parameters
    ----------
    sigma, learn_sigma
        The kernel's width, and whether it is trained.
    truncation
        Distance beyond which a token is cut from a function (None: none is).
    eps
        eps of the normalisation over functions.
    """

    def __init__(
        self,
        *,
        sigma: float = 1.0,
        learn_sigma: bool = True,
        truncation: float | None = None,
        eps: float = 1e-6,
    ) -> None:
        super().__init__()
        if sigma <= 0:
            raise ValueError(f"sigma must be positive, got {sigma}")
        if truncation is not None and not 0 < truncation <= 2:
            raise ValueError(f"truncation is a cosine distance in (0, 2], got {truncation}")
        self.truncation = truncation
        self.eps = eps
        log_sigma = torch.tensor(math.log(sigma))
        if learn_sigma:
            self.log_sigma = nn.Parameter(log_sigma)
        else:
            self.register_buffer("log_sigma", log_sigma)

    @property
    def sigma(self) -> torch.Tensor:
        return self.log_sigma.exp()

    def forward(
        self,
        signatures: torch.Tensor,
        types: torch.Tensor,
        token_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        kernel = compatibility(signatures, types, self.sigma, self.truncation)
        if token_mask is not None:
            kernel = kernel * token_mask[:, None, :].to(kernel.dtype)
        return normalise_over_functions(kernel, self.eps)
