"""SKMDPA: stochastic kernel-modulated dot-product attention between modules.

Module i (receiver) attends to module j (sender) with weights

    W_{i<-j} = softmax_j( q_i . k_j / sqrt(d_h) + log K_ij ),

where K is the signature kernel (sampled in training). Queries and the exit projection are
conditioned on the receiver's code, keys and values on the sender's (all through ModFC).
The paper writes the bias as log K_hat with K_hat = K / (delta + sum_j K); the normaliser is
constant along j and cancels inside the softmax, so it is left out.

Interventions (``circuitlab.interventions``) edit the links: ``force`` sets K_ij = 1 (log K 0)
and ``cut`` sets K_ij = 0 exactly (weight 0, unlike the kernel's own LOG_ZERO, which lets a
receiver whose every link is cut fall back to plain attention); a receiver with every link cut
receives nothing: its update is exactly 0.
"""

from __future__ import annotations

import torch
from torch import nn

from circuitlab.nn.kernel import SignatureKernel
from circuitlab.nn.modfc import ModFC

__all__ = ["SKMDPA"]


class SKMDPA(nn.Module):
    """Pre-LayerNorm multi-head attention from receiver modules to sender modules.

    Shapes: receivers (B, Ur, dim), senders (B, Us, dim); codes (B or 1, U*, code_dim);
    signatures (B or 1, U*, sig_dim). Returns the update for the receivers, (B, Ur, dim); the
    residual connection is added by the caller. With ``self_attention=True`` pass the same
    tensors as receivers and senders; they share one LayerNorm.

    Parameters
    ----------
    dim
        Width of the modules' states.
    code_dim
        Width of the codes.
    heads, head_dim
        Attention heads and each one's width.
    conditioned
        The projections are ModFC layers conditioned on the codes; False: plain ones.
    kernel
        The signature kernel added to the attention logits (None: a dense one, Perceiver IO).
    self_attention
        As above.
    """

    def __init__(
        self,
        dim: int,
        code_dim: int,
        *,
        heads: int = 4,
        head_dim: int = 32,
        conditioned: bool = True,
        kernel: SignatureKernel | None = None,
        self_attention: bool = False,
    ) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = head_dim
        inner = heads * head_dim
        self.kernel = kernel if kernel is not None else SignatureKernel()
        self.norm_receivers = nn.LayerNorm(dim)
        self.norm_senders = None if self_attention else nn.LayerNorm(dim)
        self.to_q = ModFC(dim, inner, code_dim, conditioned=conditioned)
        self.to_k = ModFC(dim, inner, code_dim, conditioned=conditioned)
        self.to_v = ModFC(dim, inner, code_dim, conditioned=conditioned)
        self.to_out = ModFC(inner, dim, code_dim, conditioned=conditioned)

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        b, u, _ = x.shape
        return x.view(b, u, self.heads, self.head_dim).transpose(1, 2)  # (B, H, U, dh)

    def forward(
        self,
        receivers: torch.Tensor,
        receiver_codes: torch.Tensor,
        receiver_signatures: torch.Tensor,
        senders: torch.Tensor,
        sender_codes: torch.Tensor,
        sender_signatures: torch.Tensor,
        *,
        cut: torch.Tensor | None = None,
        force: torch.Tensor | None = None,
        log_gate: torch.Tensor | None = None,
        record: list[tuple[torch.Tensor, torch.Tensor]] | None = None,
    ) -> torch.Tensor:
        """``cut``, ``force``: optional link edits, bool (B or 1, Ur, Us), True where the link
        from sender j into receiver i is cut (forced on). ``log_gate``: optional float (B or 1,
        Ur, Us) added to log K, i.e. K_ij scaled by exp(log_gate_ij); zeros change nothing, and
        its gradient there is d(output)/d(log K_ij), what attribution patching reads.
        ``record``: a list this call appends (gate, weights) to, a zero gate (B, H, Ur, Us) of
        its own added to the logits (its gradient is the output's sensitivity to each head's
        link) and the attention weights (B, H, Ur, Us), detached; the recording belongs to the
        call (``circuitlab.attribution``'s softmax-corrected estimate)."""
        batch = receivers.shape[0]
        r = self.norm_receivers(receivers)
        if self.norm_senders is None:
            if senders is not receivers:
                raise ValueError("this SKMDPA does self-attention: pass the same senders")
            s = r
        else:
            s = self.norm_senders(senders)
        # the 1/sqrt(d_h) goes on the queries: a quarter of the logits' size at d_h = 32, U = 128
        q = self._split_heads(self.to_q(r, receiver_codes)) * self.head_dim**-0.5
        k = self._split_heads(self.to_k(s, sender_codes))
        v = self._split_heads(self.to_v(s, sender_codes))
        logits = q @ k.transpose(-1, -2)  # (B, H, Ur, Us)
        log_kernel = self.kernel(receiver_signatures, sender_signatures, batch)
        if force is not None:
            base = logits.new_zeros(()) if log_kernel is None else log_kernel
            log_kernel = torch.where(force, 0.0, base)
        if log_kernel is not None:
            logits = logits + log_kernel.unsqueeze(1)
        if log_gate is not None:
            logits = logits + log_gate.unsqueeze(1)
        if record is not None:
            gate = torch.zeros_like(logits, requires_grad=True)
            logits = logits + gate
        if cut is not None:
            logits = logits.masked_fill(cut.unsqueeze(1), float("-inf"))
        weights = logits.softmax(dim=-1)
        if record is not None:
            record.append((gate, weights.detach()))
        if cut is not None:  # a row with every link cut is NaN after the softmax: it gets nothing
            weights = weights.nan_to_num(0.0)
        attended = weights @ v  # (B, H, Ur, dh)
        attended = attended.transpose(1, 2).reshape(batch, -1, self.heads * self.head_dim)
        update = self.to_out(attended, receiver_codes)
        if cut is not None:
            isolated = cut.all(dim=-1, keepdim=True)  # (B or 1, Ur, 1)
            update = update.masked_fill(isolated, 0.0)
        return update
