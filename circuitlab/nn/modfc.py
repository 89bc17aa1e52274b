"""Code-modulated linear layers: ModFC and the ModFFN built from them.

ModFC(x; c) = W (x * (1 + alpha * LayerNorm(W_c c))) + b

The code ``c`` of a module scales every input feature before the shared weight ``W``, so modules
share parameters but compute different functions. ``alpha`` is learnable (initialised to 0.1);
alpha = 0, or ``conditioned=False``, makes the layer a plain ``nn.Linear``.

With ``residual=False`` the layer is Neural Interpreters' ModLin, W (x * LayerNorm(W_c c)) + b:
the code's mask replaces the input scale instead of perturbing it around 1.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["ModFC", "ModFFN"]


class ModFC(nn.Module):
    """Linear layer whose input is modulated by a per-module code.

    Shapes: ``x`` (..., in_features), ``code`` (..., code_dim) broadcastable against ``x``'s
    leading dimensions; returns (..., out_features).

    Parameters
    ----------
    in_features, out_features
        The layer's widths.
    code_dim
        Width of the codes.
    conditioned
        Modulate the input by the code; False: a plain linear layer (Perceiver IO's).
    alpha_init
        The learned scale alpha of the modulation m = 1 + alpha * LN(W_c c) at the start.
    bias
        The linear map has a bias.
    residual
        The mask is 1 + alpha * LN(W_c c); False: LN(W_c c) itself (Neural Interpreters'
        ModLin).
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        code_dim: int,
        *,
        conditioned: bool = True,
        alpha_init: float = 0.1,
        bias: bool = True,
        residual: bool = True,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.conditioned = conditioned
        self.residual = residual
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        if conditioned:
            self.code_proj = nn.Linear(code_dim, in_features, bias=False)
            if residual:
                self.alpha = nn.Parameter(torch.tensor(float(alpha_init)))

    def modulation(self, code: torch.Tensor) -> torch.Tensor | None:
        """The multiplicative mask m = 1 + alpha * LN(W_c c) (``residual=False``: LN(W_c c)):
        (..., in_features), or None."""
        if not self.conditioned:
            return None
        projected = F.layer_norm(self.code_proj(code), (self.in_features,))
        return 1.0 + self.alpha * projected if self.residual else projected

    def per_module(self, x: torch.Tensor, codes: torch.Tensor) -> torch.Tensor:
        """Every module's layer on every token: x (B, V, in) shared by all modules, or
        (B, U, V, in) one per module; codes (U, code_dim) -> (B, U, V, out).

        Each module's mask is folded into its weight once, W_u = W diag(m_u), (U, out, in),
        so the modulated inputs x * m_u (B, U, V, in) are never built.
        """
        weight = self.linear.weight
        mask = self.modulation(codes)
        weight = weight.expand(len(codes), -1, -1) if mask is None else weight * mask[:, None]
        pattern = "bvi,uoi->buvo" if x.dim() == 3 else "buvi,uoi->buvo"
        out = torch.einsum(pattern, x, weight)
        return out if self.linear.bias is None else out + self.linear.bias

    def modulate(self, x: torch.Tensor, code: torch.Tensor) -> torch.Tensor:
        """The modulated input x * m, or x itself when unconditioned: (..., in_features)."""
        mask = self.modulation(code)
        return x if mask is None else x * mask

    def forward(self, x: torch.Tensor, code: torch.Tensor) -> torch.Tensor:
        return self.linear(self.modulate(x, code))


class ModFFN(nn.Module):
    """LayerNorm -> ModFC -> GELU (or GEGLU) -> ModFC, all conditioned on the same code.

    Shapes: ``x`` (B, U, dim), ``code`` (B or 1, U, code_dim) -> (B, U, dim). The residual
    connection is added by the caller.

    Parameters
    ----------
    dim
        Width of the modules' states.
    code_dim
        Width of the codes.
    mult
        Hidden width as a multiple of ``dim``.
    activation
        "gelu" or "geglu".
    conditioned
        The ModFC layers are conditioned on the code (``ModFC``).
    """

    def __init__(
        self,
        dim: int,
        code_dim: int,
        *,
        mult: int = 2,
        activation: str = "gelu",
        conditioned: bool = True,
    ) -> None:
        super().__init__()
        if activation not in ("gelu", "geglu"):
            raise ValueError(f"activation must be 'gelu' or 'geglu', got {activation!r}")
        hidden = dim * mult
        self.activation = activation
        self.norm = nn.LayerNorm(dim)
        width_in = hidden * 2 if activation == "geglu" else hidden
        self.fc_in = ModFC(dim, width_in, code_dim, conditioned=conditioned)
        self.fc_out = ModFC(hidden, dim, code_dim, conditioned=conditioned)

    def forward(self, x: torch.Tensor, code: torch.Tensor) -> torch.Tensor:
        if self.activation == "geglu":
            # two products with the halves of fc_in's weight rather than one product and a
            # chunk: the chunk's backward concatenates the two (B, U, hidden) gradients into a
            # fresh (B, U, 2 hidden) tensor, which cost more than the GEGLU itself on CPU
            modulated = self.fc_in.modulate(self.norm(x), code)
            weight, bias = self.fc_in.linear.weight, self.fc_in.linear.bias
            hidden = weight.shape[0] // 2
            h = F.linear(modulated, weight[:hidden], bias[:hidden])
            gate = F.linear(modulated, weight[hidden:], bias[hidden:])
            h = h * F.gelu(gate)
        else:
            h = F.gelu(self.fc_in(self.norm(x), code))
        return self.fc_out(h, code)
