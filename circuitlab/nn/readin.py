"""Read-in: processor modules attend to the input tokens, keys and values conditioned on the
receiving module's own code.

The naive computation materialises k_uj = ModFC(x_j; c_u) for every module u and token j, a
(B, U, N, H*dh) tensor. Because ModFC is linear in the modulated input,

    q_u . (W (x_j * m_u) + b) = ((W^T q_u) * m_u) . x_j + q_u . b,

so the scores cost U*N*d_in per head and hold only (B, H, U, N); the q_u . b term is constant
along j and cancels in the softmax, so the key projection has no bias. Values likewise:
sum_j a_uj (W (x_j * m'_u) + b) = W ((sum_j a_uj x_j) * m'_u) + b, since the attention weights
sum to one. This keeps NACs linear in the number of input tokens. Without code conditioning
(Perceiver IO) keys and values are the same for every module: the tokens are projected once.

With ``null_token`` a learned token joins every input (after the LayerNorm, never masked). A
softmax over the tokens alone returns an average and forgets how many tokens matched; with the
null token beside them, the weight a module puts on the tokens its query matches grows with how
many there are, and nothing matching reads as "nothing": counts and existence become readable.

With ``weights="sigmoid"`` each token's weight is sigmoid(score + offset_h) on its own, with a
learned offset per head: the weights no longer sum to one, so a module reads the sum over the
tokens it matches, which grows linearly with how many there are (counts can be compared by
subtraction). The value bias then enters once per unit of weight: sum_j a_uj b.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from circuitlab.config_groups import READ_IN_WEIGHTS
from circuitlab.nn.modfc import ModFC

__all__ = ["ReadIn"]


class ReadIn(nn.Module):
    """Cross-attention from modules (B, U, dim) to input tokens (B, N, input_dim).

    ``codes`` (B or 1, U, code_dim); ``input_mask`` (B, N) with True for real tokens.
    ``query_codes`` (B or 1, U, code_dim), optional: codes for the query and key side alone
    (what each module looks for), ``codes`` then condition the values and the exit; with
    ``code_queries`` the query codes also add a linear term ``W query_codes`` to the queries.
    Returns the update for the modules, (B, U, dim).

    Parameters
    ----------
    dim
        Width of the modules' states.
    input_dim
        Width of the input tokens.
    code_dim
        Width of the codes.
    heads, head_dim
        Attention heads and each one's width.
    conditioned
        The projections are ModFC layers conditioned on the codes; False: plain ones.
    null_token
        A learned token beside the input's, which a module may read instead of any of them.
    code_queries
        As above.
    weights
        "softmax" (a module reads an average of the tokens) or "sigmoid" (each token weighed on
        its own, so a module reads a sum).
    """

    def __init__(
        self,
        dim: int,
        input_dim: int,
        code_dim: int,
        *,
        heads: int = 4,
        head_dim: int = 32,
        conditioned: bool = True,
        null_token: bool = False,
        code_queries: bool = False,
        weights: str = "softmax",
    ) -> None:
        super().__init__()
        if weights not in READ_IN_WEIGHTS:
            raise ValueError(f"read-in weights must be one of {READ_IN_WEIGHTS}, got {weights!r}")
        self.heads = heads
        self.head_dim = head_dim
        inner = heads * head_dim
        self.norm_modules = nn.LayerNorm(dim)
        self.norm_inputs = nn.LayerNorm(input_dim)
        self.to_q = ModFC(dim, inner, code_dim, conditioned=conditioned)
        # no key bias: q_u . b is constant along the tokens and cancels in the softmax
        self.to_k = ModFC(input_dim, inner, code_dim, conditioned=conditioned, bias=False)
        self.to_v = ModFC(input_dim, inner, code_dim, conditioned=conditioned)
        self.to_out = ModFC(inner, dim, code_dim, conditioned=conditioned)
        self.null = nn.Parameter(torch.zeros(input_dim)) if null_token else None
        # query codes add W c to the query: modulation alone moves it by about alpha (0.1)
        self.code_to_query = nn.Linear(code_dim, inner, bias=False) if code_queries else None
        # sigmoid weights: a learned offset per head, so a head can start from reading little
        self.offset = nn.Parameter(torch.zeros(heads)) if weights == "sigmoid" else None

    def forward(
        self,
        states: torch.Tensor,
        codes: torch.Tensor,
        inputs: torch.Tensor,
        input_mask: torch.Tensor | None = None,
        query_codes: torch.Tensor | None = None,
        record: list[torch.Tensor] | None = None,
        read_cut: torch.Tensor | None = None,
        read_log_gate: torch.Tensor | None = None,
        read_record: list[tuple[torch.Tensor, torch.Tensor]] | None = None,
        read_scale: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``record``: a list this call appends its attention weights to, averaged over heads,
        (B, U, N [+1: the null token, last]); nothing is kept on the module, so concurrent
        calls never see each other's records. ``read_record``: a list this call appends (gate,
        weights) to, as ``SKMDPA``'s ``record``: a zero gate (B, H, U, N [+1]) of its own added
        to the scores (its gradient is the output's sensitivity to each head's read) and the
        weights (B, H, U, N [+1]), detached (``circuitlab.read_attribution``'s
        softmax-corrected estimate).

        Edits of the *reads* (module u reading token j), both (B or 1, U, N) over the input's
        tokens (the null token is never edited): ``read_cut`` bool, True where the read is cut
        (its weight 0; a module with every token cut reads nothing, its value is the bias);
        ``read_log_gate`` float, added to the read's score (its weight scaled by exp(gate) before
        the softmax normalises); at zeros it changes nothing and its gradient is the output's
        sensitivity to each read; ``read_scale`` float in (0, 1], the read's weight scaled by it
        (before the softmax normalises; after the sigmoid), the path from the intact read (1) to
        the cut one (0) along which ``circuitlab.refined_attribution`` takes gradients."""
        batch, n_modules, _ = states.shape
        if query_codes is None:
            query_codes = codes
        h, dh = self.heads, self.head_dim
        x = self.norm_inputs(inputs)  # (B, N, d_in)
        if self.null is not None:
            x = torch.cat([x, self.null.expand(batch, 1, -1)], dim=1)
            if input_mask is not None:
                input_mask = torch.cat([input_mask, input_mask.new_ones(batch, 1)], dim=1)
            read_cut, read_log_gate = _with_null_column(read_cut), _with_null_column(read_log_gate)
            read_scale = _with_null_column(read_scale, intact=1.0)
        reads = _Reads(read_cut, read_log_gate, read_record, read_scale)
        # 1/sqrt(dh) on the queries, the smallest tensor the scores are made from
        q = self.to_q(self.norm_modules(states), query_codes)
        if self.code_to_query is not None:
            q = q + self.code_to_query(query_codes)
        q = q.view(batch, n_modules, h, dh) * dh**-0.5

        if self.to_k.conditioned:
            values = self._attend_per_module_keys(
                q, query_codes, codes, x, input_mask, record, reads
            )
        else:
            values = self._attend_shared_keys(q, x, input_mask, record, reads)
        return self.to_out(values.reshape(batch, n_modules, h * dh), codes)

    def _weights(
        self, scores: torch.Tensor, input_mask: torch.Tensor | None, reads: _Reads | None = None
    ) -> torch.Tensor:
        """Weights of the tokens (last axis) from scores (B, H, U, N): a softmax over them, or
        each token's sigmoid; padding and cut reads get weight 0."""
        if reads is not None and reads.log_gate is not None:
            scores = scores + reads.log_gate.unsqueeze(1)
        scale = None if reads is None or reads.scale is None else reads.scale.unsqueeze(1)
        if scale is not None and self.offset is None:
            scores = scores + scale.log()
        gate = None
        if reads is not None and reads.record is not None:
            gate = torch.zeros_like(scores, requires_grad=True)
            scores = scores + gate
        if input_mask is not None:
            scores = scores.masked_fill(~input_mask[:, None, None, :], float("-inf"))
        cut = reads is not None and reads.cut is not None
        if cut:
            scores = scores.masked_fill(reads.cut.unsqueeze(1), float("-inf"))
        if self.offset is None:
            weights = scores.softmax(dim=-1)
            # a module whose every token is cut reads nothing (a softmax of -inf alone is NaN)
            weights = torch.nan_to_num(weights, nan=0.0) if cut else weights
        else:
            weights = (scores + self.offset.view(1, -1, 1, 1)).sigmoid()
            weights = weights if scale is None else weights * scale
        if gate is not None:
            reads.record.append((gate, weights.detach()))
        return weights

    def _attend_per_module_keys(
        self,
        q: torch.Tensor,
        key_codes: torch.Tensor,
        value_codes: torch.Tensor,
        x: torch.Tensor,
        input_mask: torch.Tensor | None,
        record: list[torch.Tensor] | None = None,
        reads: _Reads | None = None,
    ) -> torch.Tensor:
        """Code-conditioned keys and values, factorised as in the module docstring.

        q (B, U, H, dh) already scaled, x (B, N, d_in), codes (B or 1, U, code_dim) -> values
        (B, U, H, dh). Worked in
        (B, H, U, .) layout with plain matmuls: the scores and the pooling are then one bmm
        each over (B, H*U, .) rows, with no copy of x (einsum permuted its operands).
        """
        batch, n_modules, h, dh = q.shape
        d_in = x.shape[-1]
        w_k = self.to_k.linear.weight.view(h, dh, d_in)
        # W^T q, modulated by the receiving module's key mask: (B, H, U, d_in)
        probe = (q.transpose(1, 2) @ w_k) * self.to_k.modulation(key_codes).unsqueeze(1)
        scores = probe.view(batch, h * n_modules, d_in) @ x.transpose(1, 2)  # (B, H*U, N)
        attn = self._weights(scores.view(batch, h, n_modules, -1), input_mask, reads)
        _record(record, attn)

        pooled = attn.view(batch, h * n_modules, -1) @ x  # (B, H*U, d_in)
        modulation = self.to_v.modulation(value_codes).unsqueeze(1)
        pooled = pooled.view(batch, h, n_modules, d_in) * modulation
        w_v = self.to_v.linear.weight.view(h, dh, d_in)
        values = (pooled @ w_v.transpose(1, 2)).transpose(1, 2)  # (B, U, H, dh)
        bias = self.to_v.linear.bias.view(h, dh)
        if self.offset is None:
            return values + bias  # softmax weights sum to one
        return values + attn.sum(-1).transpose(1, 2).unsqueeze(-1) * bias

    def _attend_shared_keys(
        self,
        q: torch.Tensor,
        x: torch.Tensor,
        input_mask: torch.Tensor | None,
        record: list[torch.Tensor] | None = None,
        reads: _Reads | None = None,
    ) -> torch.Tensor:
        """Unconditioned (Perceiver IO): keys and values are the same for every module, so the
        tokens are projected once, (B, N, H, dh), and the scores cost dh rather than d_in per
        module and token. q (B, U, H, dh), x (B, N, d_in) -> values (B, U, H, dh)."""
        batch, n = x.shape[:2]
        k = self.to_k.linear(x).view(batch, n, self.heads, self.head_dim).transpose(1, 2)
        v = self.to_v.linear(x).view(batch, n, self.heads, self.head_dim).transpose(1, 2)
        # heads before modules, (B, H, U, N): the layout bmm gives, so nothing is copied
        attn = self._weights(q.transpose(1, 2) @ k.transpose(-1, -2), input_mask, reads)
        _record(record, attn)
        return (attn @ v).transpose(1, 2)


@dataclass(frozen=True)
class _Reads:
    """Edits of the reads for one call: ``cut`` bool, ``log_gate`` and ``scale`` float, (B or 1,
    U, N); ``record``, the list ``forward``'s ``read_record`` names."""

    cut: torch.Tensor | None = None
    log_gate: torch.Tensor | None = None
    record: list | None = None
    scale: torch.Tensor | None = None


def _with_null_column(edit: torch.Tensor | None, intact: float = 0.0) -> torch.Tensor | None:
    """A read edit (B or 1, U, N) with the null token's column (never edited: ``intact``, the
    edit's value that changes nothing) appended."""
    if edit is None:
        return None
    return torch.cat([edit, edit.new_full((*edit.shape[:-1], 1), intact)], dim=-1)


def _record(record: list[torch.Tensor] | None, attn: torch.Tensor) -> None:
    """Append attention (B, H, U, N) to ``record`` as (B, U, N), averaged over heads."""
    if record is not None:
        record.append(attn.detach().mean(1))
