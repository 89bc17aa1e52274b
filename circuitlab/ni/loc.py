"""Lines of code (LOCs): the layers every Neural Interpreter function runs, one set of weights
shared by all functions and modulated by each function's code (ModLin: circuitlab's ModFC with
``residual=False``).

For function u with routing C (B, U, V) over the tokens:

    ModAttn: w_uij = softmax_j(q_ui . k_uj / sqrt(d)) C_ui C_uj / sum_j(...)   (renormalised),
    LOC:     a_ui = x_i + C_ui ModAttn(LN x)_ui;   y_ui = a_ui + C_ui ModMLP(LN a_ui).

On rows with C_ui > 0 the renormalised product equals a softmax with log C_uj added to the
logits, the additive log-kernel bias SKMDPA uses; it is computed here in the product form (no
log of a cut link), with C_ui left out since it cancels; rows with C_ui = 0 are gated to zero
by the LOC anyway. Every ModLin folds its code mask into a per-function weight
(``ModFC.per_module``), so the first LOC of an iteration reads the tokens (B, V, d) once; the
per-function states (B, U, V, d) that follow are what NI computes: every function transforms
every token, weighted by C.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from circuitlab.nn.modfc import ModFC

__all__ = ["LineOfCode", "ModAttention", "ModMLP"]

_TINY = 1e-12


class ModAttention(nn.Module):
    """Self-attention among the tokens, one per function: h (B, V, d) shared or (B, U, V, d);
    codes (U, code_dim); routing (B, U, V) -> (B, U, V, d).

    Parameters
    ----------
    dim
        Width of the tokens.
    code_dim
        Width of the functions' codes.
    heads, head_dim
        Attention heads and each one's width.
    """

    def __init__(self, dim: int, code_dim: int, *, heads: int, head_dim: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        inner = heads * head_dim
        self.to_q = ModFC(dim, inner, code_dim, residual=False, bias=False)
        self.to_k = ModFC(dim, inner, code_dim, residual=False, bias=False)
        self.to_v = ModFC(dim, inner, code_dim, residual=False)
        self.to_out = ModFC(inner, dim, code_dim, residual=False)

    def weights(self, h: torch.Tensor, codes: torch.Tensor, routing: torch.Tensor) -> torch.Tensor:
        """Attention weights (B, U, H, V_receiver, V_sender)."""
        q = self._heads(self.to_q.per_module(h, codes)) * self.head_dim**-0.5
        k = self._heads(self.to_k.per_module(h, codes))
        dot = (q @ k.transpose(-1, -2)).softmax(dim=-1)  # (B, U, H, V, V)
        weighted = dot * routing[:, :, None, None, :]
        return weighted / weighted.sum(dim=-1, keepdim=True).clamp_min(_TINY)

    def forward(self, h: torch.Tensor, codes: torch.Tensor, routing: torch.Tensor) -> torch.Tensor:
        v = self._heads(self.to_v.per_module(h, codes))
        attended = self.weights(h, codes, routing) @ v  # (B, U, H, V, dh)
        b, u, _, n, _ = attended.shape
        attended = attended.transpose(2, 3).reshape(b, u, n, self.heads * self.head_dim)
        return self.to_out.per_module(attended, codes)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, u, n, _ = x.shape
        return x.view(b, u, n, self.heads, self.head_dim).transpose(2, 3)  # (B, U, H, V, dh)


class ModMLP(nn.Module):
    """ModLin -> GELU -> ModLin per function: (B, U, V, d), codes (U, code_dim) -> same.

    Parameters
    ----------
    dim
        Width of the tokens.
    code_dim
        Width of the functions' codes.
    mult
        Hidden width as a multiple of ``dim``.
    """

    def __init__(self, dim: int, code_dim: int, *, mult: int = 2) -> None:
        super().__init__()
        self.fc_in = ModFC(dim, dim * mult, code_dim, residual=False)
        self.fc_out = ModFC(dim * mult, dim, code_dim, residual=False)

    def forward(self, x: torch.Tensor, codes: torch.Tensor) -> torch.Tensor:
        return self.fc_out.per_module(F.gelu(self.fc_in.per_module(x, codes)), codes)


class LineOfCode(nn.Module):
    """One LOC: x (B, V, d) at a function iteration's start (shared by all functions) or
    (B, U, V, d) after another LOC; codes (U, code_dim); routing C (B, U, V) -> (B, U, V, d).

    Parameters
    ----------
    dim
        Width of the tokens.
    code_dim
        Width of the functions' codes.
    heads, head_dim
        Attention heads and each one's width.
    mlp_mult
        Hidden width of the MLP, as a multiple of ``dim``.
    """

    def __init__(
        self, dim: int, code_dim: int, *, heads: int, head_dim: int, mlp_mult: int = 2
    ) -> None:
        super().__init__()
        self.norm_attention = nn.LayerNorm(dim)
        self.attention = ModAttention(dim, code_dim, heads=heads, head_dim=head_dim)
        self.norm_mlp = nn.LayerNorm(dim)
        self.mlp = ModMLP(dim, code_dim, mult=mlp_mult)

    def forward(self, x: torch.Tensor, codes: torch.Tensor, routing: torch.Tensor) -> torch.Tensor:
        gate = routing.unsqueeze(-1)  # (B, U, V, 1)
        per_function = x.unsqueeze(1) if x.dim() == 3 else x
        a = per_function + gate * self.attention(self.norm_attention(x), codes, routing)
        return a + gate * self.mlp(self.norm_mlp(a), codes)
