"""Circuit generators: where module signatures and codes come from.

Unconditional: signatures and codes are parameters, one circuit for the whole model.
Conditional: one learned query per module cross-attends to conditioning tokens (e.g. a sentence's
token embeddings), then an FFN, self-attention among the modules, and two FFNs in parallel emit
signatures and codes: one circuit per input. With ``sentence_codes=False`` only the signatures
depend on the input: each module keeps one code (one function) for every input, and what the
input changes is the wiring alone.
"""

from __future__ import annotations

import torch
from torch import nn

from circuitlab.nn.blocks import TokenEncoder, TransformerBlock, mlp

__all__ = ["ConditionalGenerator", "UnconditionalGenerator", "content_tokens", "pooled_parts"]


class UnconditionalGenerator(nn.Module):
    """Signatures (1, U, sig_dim) and codes (1, U, code_dim) held as parameters.

    Parameters
    ----------
    n_modules
        Modules U.
    sig_dim, code_dim
        Widths of the signatures and codes.
    """

    def __init__(self, n_modules: int, sig_dim: int, code_dim: int) -> None:
        super().__init__()
        self.signatures = nn.Parameter(torch.randn(n_modules, sig_dim))
        self.codes = nn.Parameter(torch.randn(n_modules, code_dim))

    def forward(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.signatures.unsqueeze(0), self.codes.unsqueeze(0)

    def signature_parameters(self) -> nn.ParameterList:
        """The parameters that determine signatures (frozen for a fixed or absent graph)."""
        return nn.ParameterList([self.signatures])

    def select_modules(self, index: torch.Tensor) -> None:
        """Keep only the modules at ``index`` (1-D LongTensor), in that order."""
        self.signatures = _select(self.signatures, index)
        self.codes = _select(self.codes, index)


class _QueryReader(nn.Module):
    """One learned query per module reads the tokens a mask lets through: (B, U, dim)."""

    def __init__(self, n_modules: int, dim: int, heads: int) -> None:
        super().__init__()
        self.queries = nn.Parameter(torch.randn(n_modules, dim))
        self.cross = TransformerBlock(dim, heads, cross=True)
        self.self_attn = TransformerBlock(dim, heads, cross=False)
        self.norm_out = nn.LayerNorm(dim)

    def forward(self, context: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.queries.unsqueeze(0).expand(context.shape[0], -1, -1)
        return self.norm_out(self.self_attn(self.cross(x, context, ~mask)))


def content_tokens(tokens: torch.Tensor) -> torch.Tensor:
    """Which tokens (B, T, cond_dim) of a split sentence are content: (B, T) bool, read from the
    flag in the last feature (0: skeleton, 1: content; ``SplitEncoder``).

    Parameters
    ----------
    tokens
        As above.
    """
    return tokens[..., -1] > 0.5


def pooled_parts(
    tokens: torch.Tensor, parts: list[torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """The mean of each part's tokens: tokens (B, T, D) and ``parts``, P masks (B, T) of the
    tokens each part holds, give pooled tokens (B, P, D) and a mask (B, P), True where a part
    holds a token (an empty part's row is zeros).

    Parameters
    ----------
    tokens, parts
        As above.
    """
    weights = torch.stack(parts, dim=1).to(tokens.dtype)  # (B, P, T)
    counts = weights.sum(-1, keepdim=True)
    return (weights @ tokens) / counts.clamp(min=1), counts.squeeze(-1) > 0


def _select(parameter: nn.Parameter, index: torch.Tensor) -> nn.Parameter:
    """Rows ``index`` of ``parameter`` as a new parameter that keeps its requires_grad."""
    return nn.Parameter(parameter.data[index].clone(), requires_grad=parameter.requires_grad)


class ConditionalGenerator(nn.Module):
    """Signatures (B, U, sig_dim) and codes (B, U, code_dim) from conditioning tokens.

    ``tokens`` (B, T, cond_dim); ``mask`` (B, T), True for real tokens. With
    ``sentence_codes=False`` the codes are the per-module base codes, the same for every input
    (expanded to (B, U, code_dim), a view).

    Each module also has a learned base signature and code, to which the two FFNs add the
    input-dependent part. Without them the FFN outputs of different modules start out strongly
    aligned (cosine ~0.5: shared biases, and every query reads the same tokens), the modules are
    near-copies, and training stalls at chance for a long while; with them a conditional NAC
    starts as diverse as an unconditional one.

    With ``split=True`` the tokens' last feature tells two parts apart (0: skeleton, 1:
    content; ``SplitEncoder``): the signatures come from queries that read only the skeleton
    tokens, the codes from a second set of queries that read only the content tokens, so the
    wiring cannot depend on the content. With ``signatures_from_skeleton=False`` the signature
    queries read every token (the codes still only the content).

    With ``pool_signatures=True`` the signature queries read, instead of the tokens, the mean of
    each part's tokens (one token for the skeleton, one for the content; one for the whole
    input when not split). MiniLM is trained so that the mean of its token embeddings lands
    close for paraphrases, so a wiring built from it might carry over to wordings never
    trained on; the codes still read the tokens. (Screened on the shapes world it did not: one
    mean token holds too little of the logic; docs/experiments.md.)

    ``signature_layers`` self-attention blocks run over the tokens the signature queries read
    (only those attend to one another) before they are read; the codes read the tokens as
    projected, so a split generator's codes still see nothing of the skeleton.

    Parameters
    ----------
    n_modules
        Modules U.
    cond_dim
        Width of the conditioning tokens.
    sig_dim, code_dim
        Widths of the signatures and codes.
    dim, heads
        Width and attention heads of the generator's queries over the tokens.
    sentence_codes, split, signatures_from_skeleton, pool_signatures, signature_layers
        As above.
    """

    def __init__(
        self,
        n_modules: int,
        cond_dim: int,
        sig_dim: int,
        code_dim: int,
        *,
        dim: int = 128,
        heads: int = 4,
        sentence_codes: bool = True,
        split: bool = False,
        signatures_from_skeleton: bool = True,
        pool_signatures: bool = False,
        signature_layers: int = 0,
    ) -> None:
        super().__init__()
        if split and not sentence_codes:
            raise ValueError("a split generator makes codes from the content: sentence_codes")
        self.split = split
        self.signatures_from_skeleton = signatures_from_skeleton
        self.pool_signatures = pool_signatures
        self.queries = nn.Parameter(torch.randn(n_modules, dim))
        self.cond_proj = nn.Linear(cond_dim, dim)
        # trainable self-attention over the tokens the signatures read (the codes read them raw)
        self.signature_encoder = (
            TokenEncoder(dim, heads, signature_layers) if signature_layers else None
        )
        self.cross = TransformerBlock(dim, heads, cross=True)
        self.self_attn = TransformerBlock(dim, heads, cross=False)
        self.norm_out = nn.LayerNorm(dim)
        self.to_signatures = mlp(dim, dim, sig_dim)
        self.to_codes = mlp(dim, dim, code_dim) if sentence_codes else None
        self.code_reader = _QueryReader(n_modules, dim, heads) if split else None
        self.base = UnconditionalGenerator(n_modules, sig_dim, code_dim)

    def forward(
        self, tokens: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if mask is None:
            mask = torch.ones(tokens.shape[:2], dtype=torch.bool, device=tokens.device)
        # the projected tokens, read by the signature queries unless pooled and by a split's codes
        needs_context = not self.pool_signatures or self.code_reader is not None
        context = self.cond_proj(tokens) if needs_context else None
        if self.split:
            is_content = content_tokens(tokens)
            skeleton = mask & ~is_content
            parts = [skeleton] if self.signatures_from_skeleton else [skeleton, mask & is_content]
        else:
            parts = [mask]
        if self.pool_signatures:
            pooled, signature_mask = pooled_parts(tokens, parts)
            signature_context = self.cond_proj(pooled)
        else:
            signature_context, signature_mask = context, torch.stack(parts).any(dim=0)
        if self.signature_encoder is not None:
            signature_context = self.signature_encoder(signature_context, signature_mask)
        x = self.queries.unsqueeze(0).expand(tokens.shape[0], -1, -1)
        x = self.cross(x, signature_context, ~signature_mask)
        x = self.norm_out(self.self_attn(x))
        base_signatures, base_codes = self.base()
        signatures = base_signatures + self.to_signatures(x)
        if self.to_codes is None:
            return signatures, base_codes.expand(x.shape[0], -1, -1)
        if self.code_reader is not None:
            x = self.code_reader(context, mask & is_content)
        return signatures, base_codes + self.to_codes(x)

    def signature_parameters(self) -> nn.ParameterList:
        """The parameters that determine signatures (frozen for a fixed or absent graph)."""
        return nn.ParameterList([*self.to_signatures.parameters(), self.base.signatures])

    def select_modules(self, index: torch.Tensor) -> None:
        """Keep only the modules at ``index``; the generator then emits len(index) modules."""
        self.queries = _select(self.queries, index)
        if self.code_reader is not None:
            self.code_reader.queries = _select(self.code_reader.queries, index)
        self.base.select_modules(index)
