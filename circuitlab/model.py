"""NAC: the Neural Attentive Circuit, its Perceiver IO special case, circuits and module dropping.

Forward pass, for inputs (B, ...) and optional conditioning:
1. the generator gives each module a signature and a code (once, or once per input);
2. modules start from theta_0 = MLP(code);
3. read-in: processors attend to the input tokens (ReadIn; with ``read_in.input_layers`` the tokens
   first attend to each other), then a ModFFN;
4. ``depth`` rounds of SKMDPA among processors, each followed by a ModFFN (and, with
   ``read_in.every_round``, by another read-in);
5. read-out modules attend to the processors (SKMDPA), then a ModFFN and a ModFC head that emits
   logits and a confidence; the output is the confidence-weighted sum of the read-outs' logits.
"""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import torch
from torch import nn

from circuitlab.circuit import PROCESSOR, READOUT, Circuit
from circuitlab.config import NACConfig
from circuitlab.errors import InputError
from circuitlab.nn.blocks import TokenEncoder
from circuitlab.nn.generators import (
    ConditionalGenerator,
    UnconditionalGenerator,
    content_tokens,
)
from circuitlab.nn.kernel import SignatureKernel, cosine_distance
from circuitlab.nn.modfc import ModFC, ModFFN
from circuitlab.nn.readin import ReadIn
from circuitlab.nn.skmdpa import SKMDPA
from circuitlab.nn.token_dropout import drop_tokens
from circuitlab.nn.token_noise import add_token_noise
from circuitlab.nn.tokenizers import ByteTokenizer, FeatureTokenizer, PatchTokenizer
from circuitlab.prior_loss import GraphPriorRegularizer
from circuitlab.tensor_checks import check_finite, check_token_ids, worth_checking

__all__ = ["NAC", "link_density", "signature_repulsion"]


def _tokenizer(config: NACConfig) -> nn.Module:
    width = config.token_width
    if config.read_in.tokenizer == "features":
        return FeatureTokenizer(config.input_dim, width, config.read_in.max_tokens)
    if config.read_in.tokenizer == "patches":
        return PatchTokenizer(
            config.input_dim, width, config.read_in.patch_size, config.read_in.max_tokens
        )
    return ByteTokenizer(width, config.read_in.max_tokens or 1024)


def _init_linear(module: nn.Module) -> None:
    # torch's default Linear init shrinks the variance threefold per layer; over the read-in ->
    # propagate -> read-out chain the input-dependent part of the signal all but vanishes next to
    # the input-independent initial states, and training stalls at chance. Xavier keeps it.
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


def _attention(config: NACConfig, kernel: SignatureKernel, self_attention: bool) -> SKMDPA:
    c = config
    return SKMDPA(
        c.dim,
        c.code_dim,
        heads=c.heads,
        head_dim=c.head_dim,
        conditioned=c.modfc,
        kernel=kernel,
        self_attention=self_attention,
    )


def _read_in(config: NACConfig) -> ReadIn:
    c = config
    return ReadIn(
        c.dim,
        c.token_width,
        c.code_dim,
        heads=c.heads,
        head_dim=c.head_dim,
        conditioned=c.modfc,
        null_token=c.read_in.null_token,
        code_queries=c.generator.code_queries,
        weights=c.read_in.weights,
    )


def _ffn(config: NACConfig) -> ModFFN:
    c = config
    return ModFFN(
        c.dim, c.code_dim, mult=c.ffn_mult, activation=c.ffn_activation, conditioned=c.modfc
    )


def _regularizer(config: NACConfig) -> GraphPriorRegularizer | None:
    """The structure regulariser over the processors, or None when no prior is set."""
    c = config
    if c.prior is None:
        return None
    return GraphPriorRegularizer(
        c.prior,
        c.n_processors,
        weight=c.prior_weight,
        loss=c.prior_fit.loss,
        rematch_every=c.prior_fit.rematch_every,
        **c.prior_params,
    )


def link_density(p: torch.Tensor) -> torch.Tensor:
    """Mean off-diagonal entry of link probabilities (..., U, U) -> (...,); the diagonal is 1
    for every signature and says nothing.

    Parameters
    ----------
    p
        (..., u, u) link probabilities.
    """
    u = p.shape[-1]
    if u < 2:
        return p.new_zeros(p.shape[:-2])
    return (p.sum((-1, -2)) - p.diagonal(dim1=-2, dim2=-1).sum(-1)) / (u * (u - 1))


def signature_repulsion(signatures: torch.Tensor, hinge: float) -> torch.Tensor:
    """Mean over distinct pairs (and the batch) of relu(hinge - cosine distance) for signatures
    (..., U, sig_dim): zero once every pair is at least ``hinge`` apart; its gradient pushes
    closer pairs apart.

    Parameters
    ----------
    signatures, hinge
        As above.
    """
    u = signatures.shape[-2]
    if u < 2:
        return signatures.new_zeros(())
    distance = cosine_distance(signatures, signatures)
    pairs = torch.triu(torch.ones(u, u, dtype=torch.bool, device=signatures.device), diagonal=1)
    return (hinge - distance[..., pairs]).clamp(min=0).mean()


def _link_blocks(
    edits: dict[str, torch.Tensor | None], u: int, record: dict[str, list] | None
) -> tuple[dict, dict]:
    """The link edits (B or 1, U, U) split into the block among the ``u`` processors and the
    block into the read-outs, each with its list of ``record`` (``NAC.execute``'s
    ``link_record``) when there is one."""
    among = {k: None if v is None else v[:, :u, :u] for k, v in edits.items()}
    into_readouts = {k: None if v is None else v[:, u:, :u] for k, v in edits.items()}
    if record is not None:
        among["record"] = record.setdefault("among", [])
        into_readouts["record"] = record.setdefault("into_readouts", [])
    return among, into_readouts


class _Propagator(nn.Module):
    """One round: SKMDPA among processors, then a ModFFN; both pre-LN residual."""

    def __init__(self, config: NACConfig, kernel: SignatureKernel) -> None:
        super().__init__()
        self.attn = _attention(config, kernel, self_attention=True)
        self.ffn = _ffn(config)

    def forward(
        self,
        x: torch.Tensor,
        codes: torch.Tensor,
        sigs: torch.Tensor,
        cut: torch.Tensor | None = None,
        force: torch.Tensor | None = None,
        log_gate: torch.Tensor | None = None,
        record: list | None = None,
    ) -> torch.Tensor:
        edits = {"cut": cut, "force": force, "log_gate": log_gate, "record": record}
        x = x + self.attn(x, codes, sigs, x, codes, sigs, **edits)
        return x + self.ffn(x, codes)


class NAC(nn.Module):
    """Neural Attentive Circuit. ``NAC(NACConfig(...))``; see ``NACConfig`` for the options.

    Parameters
    ----------
    config
        The architecture (``NACConfig``).
    """

    def __init__(self, config: NACConfig) -> None:
        super().__init__()
        self.config = c = config
        self.tokenizer = _tokenizer(c)
        self.token_encoder = (
            TokenEncoder(c.token_width, c.heads, c.read_in.input_layers)
            if c.read_in.input_layers
            else None
        )
        if c.conditional:
            self.cond_embedding = (
                nn.Embedding(c.generator.cond_vocab, c.generator.cond_dim)
                if c.generator.cond_vocab
                else None
            )
            self.generator = ConditionalGenerator(
                c.n_modules,
                c.generator.cond_dim,
                c.sig_dim,
                c.code_dim,
                dim=c.generator.dim,
                heads=c.generator.heads,
                sentence_codes=c.generator.sentence_codes,
                split=c.generator.split_conditioning,
                signatures_from_skeleton=c.generator.signature_tokens == "skeleton",
                pool_signatures=c.generator.signature_pooling,
                signature_layers=c.generator.signature_layers,
            )
        else:
            self.generator = UnconditionalGenerator(c.n_modules, c.sig_dim, c.code_dim)
        if c.graph != "learned":
            # frozen: random signatures that never train; dense (Perceiver IO): no kernel at all
            self.generator.signature_parameters().requires_grad_(False)
        self.kernel = SignatureKernel(
            eps=c.kernel.eps,
            learn_eps=c.kernel.learn_eps,
            truncation=c.kernel.truncation,
            truncation_gradient=c.kernel.truncation_gradient,
            tau=c.kernel.tau,
            eval_mode=c.kernel.evaluation,
            dense=c.graph == "dense",
            sample=c.kernel.sample,
        )
        self.initial_state = nn.Sequential(
            nn.Linear(c.code_dim, c.dim), nn.GELU(), nn.Linear(c.dim, c.dim)
        )
        self.read_in = _read_in(c)
        self.read_in_ffn = _ffn(c)
        self.rereads = (
            nn.ModuleList(_read_in(c) for _ in range(c.depth)) if c.read_in.every_round else None
        )
        self.propagators = nn.ModuleList(_Propagator(c, self.kernel) for _ in range(c.depth))
        self.read_out = _attention(c, self.kernel, self_attention=False)
        self.read_out_ffn = _ffn(c)
        self.head_norm = nn.LayerNorm(c.dim)
        self.head = ModFC(c.dim, c.n_classes + 1, c.code_dim, conditioned=c.modfc)
        self.regularizer = _regularizer(c)
        self.apply(_init_linear)

    # ------------------------------------------------------------------------ circuits
    def generate(
        self,
        conditioning: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Signatures (B or 1, U, sig_dim) and codes (B or 1, U, code_dim); processors first.

        ``conditioning``: (B, T, cond_dim) floats, or (B, T) token ids when ``cond_vocab`` is set.
        """
        c = self.config
        if not c.conditional:
            if conditioning is not None:
                raise InputError("conditioning", "this NAC is unconditional; call it without one")
            return self.generator()
        if conditioning is None:
            raise InputError("conditioning", "this NAC is conditional; pass conditioning tokens")
        if self.cond_embedding is not None:
            if conditioning.dtype.is_floating_point or conditioning.dim() != 2:
                raise InputError(
                    "conditioning",
                    f"must be integer token ids (B, T) as cond_vocab is set, got "
                    f"{conditioning.dtype} of shape {tuple(conditioning.shape)}",
                )
            if worth_checking(conditioning, self.training):
                check_token_ids("conditioning", conditioning, c.generator.cond_vocab)
            conditioning = self.cond_embedding(conditioning)
        elif conditioning.dim() != 3 or conditioning.shape[-1] != c.generator.cond_dim:
            raise InputError(
                "conditioning",
                f"must be (B, T, {c.generator.cond_dim}) vectors (generator.cond_dim "
                f"{c.generator.cond_dim}), got "
                f"{conditioning.dtype} of shape {tuple(conditioning.shape)}",
            )
        elif worth_checking(conditioning, self.training):
            check_finite("conditioning", conditioning)
        return self.generator(conditioning, conditioning_mask)

    def module_codes(self) -> torch.Tensor:
        """Each module's own code, (1, U, code_dim), the same for every input: with
        ``code_scope="read_in"`` the code every layer but the read-in's queries and keys uses;
        with ``code_dropout`` the code a dropped example gets."""
        own = getattr(self.generator, "base", self.generator)  # conditional: the base codes
        return own.codes.unsqueeze(0)

    def link_probabilities(self, signatures: torch.Tensor) -> torch.Tensor:
        """P among all modules for signatures (..., U, sig_dim) -> (..., U, U)."""
        return self.kernel.log_probability(signatures, signatures).exp()

    def structure_loss(self, signatures: torch.Tensor) -> torch.Tensor:
        """The graph-prior regulariser on the processors' P, the density pull and the
        signature repulsion (0 when none is set). ``signatures`` (B or 1, U, sig_dim)."""
        c = self.config
        processors = signatures[..., : c.n_processors, :]
        loss = signatures.new_zeros(())
        if c.penalties.signature_repulsion > 0:
            loss = loss + c.penalties.signature_repulsion * signature_repulsion(
                processors, c.penalties.repulsion_hinge
            )
        if self.regularizer is None and c.penalties.density_target is None:
            return loss
        p = self.link_probabilities(processors)
        if self.regularizer is not None:
            loss = loss + self.regularizer(p)
        if c.penalties.density_target is not None:
            each = link_density(p)  # (B,) or (1,)
            density = each.mean() if c.penalties.density_scope == "batch" else each
            loss = (
                loss
                + c.penalties.density_weight * ((density - c.penalties.density_target) ** 2).mean()
            )
            if c.penalties.density_band is not None:
                excess = (
                    (each - c.penalties.density_target).abs() - c.penalties.density_band
                ).clamp(min=0)
                loss = loss + c.penalties.density_weight * (excess**2).mean()
        return loss

    def logic_contrast_loss(self, tokens: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """The logic contrast (``NACConfig.penalties.logic_contrast_weight``) of C sentence
        triples given as conditioning (3 C, T, ...) and mask (3 C, T): the C sentences, their
        noun swaps, then their logic changes, with the noun invariance
        (``noun_invariance_weight``) on the same triples. 0 at weight 0."""
        c = self.config
        if c.penalties.logic_contrast_weight == 0:
            return tokens.new_zeros((), dtype=torch.float32)
        if tokens.dtype.is_floating_point:
            tokens = tokens.float()
        signatures, _ = self.generate(tokens, mask)
        p = self.link_probabilities(signatures[:, : c.n_processors])  # (3 C, u, u)
        base, noun, logic = p.view(3, -1, *p.shape[1:]).unbind(0)
        noun_shift = (noun - base).flatten(1).norm(dim=1)
        logic_shift = (logic - base).flatten(1).norm(dim=1)
        ratio = torch.log(logic_shift + 1e-6) - torch.log(noun_shift + 1e-6)
        hinge = (math.log1p(c.penalties.logic_contrast_margin) - ratio).clamp(min=0)
        loss = c.penalties.logic_contrast_weight * hinge.mean()
        if c.penalties.noun_invariance_weight > 0:
            loss = loss + c.penalties.noun_invariance_weight * (noun_shift / c.n_processors).mean()
        return loss

    def _to_circuits(self, signatures: torch.Tensor, codes: torch.Tensor) -> list[Circuit]:
        roles = np.array(
            [PROCESSOR] * self.config.n_processors + [READOUT] * self.config.n_readouts
        )
        eps = float(self.kernel.eps)
        sigs, cods = signatures.detach().float().cpu().numpy(), codes.detach().float().cpu().numpy()
        return [
            Circuit(s, roles, c, eps=eps, truncation=self.config.kernel.truncation)
            for s, c in zip(sigs, cods, strict=True)
        ]

    @torch.no_grad()
    def circuit(self) -> Circuit:
        """The one circuit of an unconditional NAC."""
        if self.config.conditional:
            raise ValueError(
                "a conditional NAC has one circuit per input: use circuits(conditioning)"
            )
        return self._to_circuits(*self.generate())[0]

    @torch.no_grad()
    def circuits(
        self, conditioning: torch.Tensor, conditioning_mask: torch.Tensor | None = None
    ) -> list[Circuit]:
        """One circuit per conditioning sequence of a conditional NAC."""
        return self._to_circuits(*self.generate(conditioning, conditioning_mask))

    # ------------------------------------------------------------------------ forward
    def forward(
        self,
        inputs: torch.Tensor,
        conditioning: torch.Tensor | None = None,
        *,
        input_mask: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
        return_circuit: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Logits (B, n_classes); with ``return_circuit`` also the signatures and codes used.
        In training, ``token_dropout`` hides a share of the conditioning tokens from the generator,
        ``token_noise`` jitters their vectors and ``code_dropout`` gives a share of the examples
        the modules' own codes."""
        if self.training and self.config.generator.token_dropout > 0 and conditioning is not None:
            conditioning_mask = self._drop_tokens(conditioning, conditioning_mask)
        if self.training and self.config.generator.token_noise > 0 and conditioning is not None:
            conditioning = self._jitter_tokens(conditioning, conditioning_mask)
        signatures, codes = self.generate(conditioning, conditioning_mask)
        if self.training and self.config.generator.code_dropout > 0:
            dropped = torch.rand(codes.shape[0], 1, 1, device=codes.device)
            codes = torch.where(
                dropped < self.config.generator.code_dropout, self.module_codes(), codes
            )
        result = self.execute(inputs, signatures, codes, input_mask=input_mask)
        if return_circuit:
            return result, signatures, codes
        return result

    def _drop_tokens(self, conditioning: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """The conditioning mask (B, T) with a share ``token_dropout`` of its tokens hidden; with
        ``split_conditioning`` the skeleton and the content each keep at least one token."""
        if mask is None:
            mask = torch.ones(conditioning.shape[:2], dtype=torch.bool, device=conditioning.device)
        split = self.config.generator.split_conditioning and conditioning.dtype.is_floating_point
        parts = content_tokens(conditioning) if split else None
        return drop_tokens(mask, self.config.generator.token_dropout, parts)

    def _jitter_tokens(self, conditioning: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """The conditioning (B, T, cond_dim) with ``token_noise`` on its real tokens' vectors (a
        split sentence's skeleton/content flag kept)."""
        if not conditioning.dtype.is_floating_point:
            raise ValueError(
                "token_noise needs conditioning vectors, got token ids "
                f"({conditioning.dtype}); use a text encoder that writes vectors (e.g. minilm) "
                "or set token_noise: 0"
            )
        keep_last = self.config.generator.split_conditioning
        return add_token_noise(conditioning, mask, self.config.generator.token_noise, keep_last)

    def execute(
        self,
        inputs: torch.Tensor,
        signatures: torch.Tensor,
        codes: torch.Tensor,
        *,
        input_mask: torch.Tensor | None = None,
        cut: torch.Tensor | None = None,
        force: torch.Tensor | None = None,
        silenced_readouts: torch.Tensor | None = None,
        read_in_record: list[torch.Tensor] | None = None,
        log_gate: torch.Tensor | None = None,
        read_cut: torch.Tensor | None = None,
        read_log_gate: torch.Tensor | None = None,
        link_record: dict[str, list] | None = None,
        read_record: list | None = None,
        read_scale: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The executor run with a given circuit: logits (B, n_classes).

        ``inputs`` (B, N, ...); ``signatures`` (B or 1, U, sig_dim), ``codes`` (B or 1, U,
        code_dim), processors first. Link edits (``circuitlab.interventions`` builds them):
        ``cut`` / ``force`` bool (B or 1, U, U), receiver by sender over all modules, True where
        the link is cut (K = 0) or forced on (K = 1); the processor-to-processor block acts in
        every propagation round, the processor-to-read-out block in the read-out.
        ``silenced_readouts`` bool (n_readouts,): read-outs left out of the output vote.
        ``log_gate`` float (B or 1, U, U): added to log K on the same links (K_ij scaled by
        exp(log_gate_ij)); at zeros it changes nothing and its gradient is the output's
        sensitivity to each link (``circuitlab.attribution``'s first-order estimate).
        With ``code_scope="read_in"`` the processors' ``codes`` condition only the read-in's
        queries and keys; every other layer uses ``module_codes()``.
        Edits of the *reads* (processor u reading input token j; ``circuitlab.nn.readin``),
        (B or 1, n_processors, N) over the input's tokens, in every read-in: ``read_cut`` bool,
        True where the read is cut; ``read_log_gate`` float, added to the read's score (at
        zeros nothing changes; its gradient is the output's sensitivity to each read);
        ``read_scale`` float in (0, 1], the read's weight scaled by it (``ReadIn``).
        Records, each this call's alone, read-ins' in the order they run: ``read_in_record``
        (list) each read-in's attention, (B, n_processors, N) averaged over heads;
        ``read_record`` (list) each read-in's (gate, weights) (``ReadIn``); ``link_record``
        (dict) each link attention's ``SKMDPA`` record, "among" the rounds', "into_readouts"
        the read-out's.
        """
        tokens = self.tokenizer(inputs)
        if self.token_encoder is not None:
            tokens = self.token_encoder(tokens, input_mask)
        batch = tokens.shape[0]
        u = self.config.n_processors
        query_codes = None
        if self.config.generator.code_scope == "read_in":
            query_codes = codes[:, :u]
            codes = self.module_codes()
        states = self.initial_state(codes).expand(batch, -1, -1)
        proc, out = states[:, :u], states[:, u:]
        proc_codes, out_codes = codes[:, :u], codes[:, u:]
        proc_sigs, out_sigs = signatures[:, :u], signatures[:, u:]
        edits = {"cut": cut, "force": force, "log_gate": log_gate}
        among, into_readouts = _link_blocks(edits, u, link_record)
        record = read_in_record
        reads = {"read_cut": read_cut, "read_log_gate": read_log_gate}
        reads |= {"read_record": read_record, "read_scale": read_scale}
        proc = proc + self.read_in(
            proc, proc_codes, tokens, input_mask, query_codes, record, **reads
        )
        proc = proc + self.read_in_ffn(proc, proc_codes)
        for round_, propagator in enumerate(self.propagators):
            proc = propagator(proc, proc_codes, proc_sigs, **among)
            if self.rereads is not None:
                proc = proc + self.rereads[round_](
                    proc, proc_codes, tokens, input_mask, query_codes, record, **reads
                )
        out = out + self.read_out(
            out, out_codes, out_sigs, proc, proc_codes, proc_sigs, **into_readouts
        )
        out = out + self.read_out_ffn(out, out_codes)

        emitted = self.head(self.head_norm(out), out_codes)  # (B, R, n_classes + 1)
        return _vote(emitted, silenced_readouts)

    # ------------------------------------------------------------------------ module dropping
    @torch.no_grad()
    def connectivity(
        self,
        conditioning: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Row sums of P among processors, (n_processors,); averaged over conditioning inputs."""
        signatures, _ = self.generate(conditioning, conditioning_mask)
        p = self.link_probabilities(signatures[:, : self.config.n_processors])
        return p.sum(-1).mean(0)

    @torch.no_grad()
    def readout_reach(
        self,
        conditioning: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """How much the read-outs listen to each processor: the sum over read-out modules of
        P(read-out, processor), (n_processors,); averaged over conditioning inputs."""
        signatures, _ = self.generate(conditioning, conditioning_mask)
        u = self.config.n_processors
        p = self.link_probabilities(signatures)
        return p[:, u:, :u].sum(1).mean(0)

    def drop_modules(
        self,
        n: int,
        order: str = "connectivity",
        *,
        conditioning: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
        seed: int = 0,
    ) -> NAC:
        """A copy with ``n`` fewer processor modules; this model is left unchanged.

        ``order="connectivity"`` drops the least connected first (row sums of P among the
        processors; a conditional NAC needs ``conditioning`` to measure them, averaged over its
        inputs); ``"readout"`` drops first the processors the read-outs listen to least
        (``readout_reach``); ``"random"`` drops a seeded random subset. The copy's tensors are
        sliced, so dropped modules cost nothing. A conditional generator's self-attention then
        sees fewer queries, so the kept modules' signatures may shift slightly. The copy's
        graph-prior regulariser is rebuilt for its processors; where the prior's parameters do
        not fit them (more blocks than processors left), the copy carries no prior
        (``config.prior`` None).
        """
        u = self.config.n_processors
        if not 0 <= n < u:
            raise ValueError(f"n must be in [0, {u - 1}] for a NAC with {u} processors, got {n}")
        ranks = {"connectivity": self.connectivity, "readout": self.readout_reach}
        if order in ranks:
            if self.config.conditional and conditioning is None:
                raise ValueError(f"a conditional NAC needs conditioning inputs to rank {order}")
            ranking = ranks[order](conditioning, conditioning_mask).argsort(descending=True)
        elif order == "random":
            ranking = torch.randperm(u, generator=torch.Generator().manual_seed(seed))
        else:
            raise ValueError(f"order must be 'connectivity', 'readout' or 'random', got {order!r}")
        kept = ranking[: u - n].sort().values.cpu()
        index = torch.cat([kept, torch.arange(u, self.config.n_modules)])
        dropped = copy.deepcopy(self)
        dropped.generator.select_modules(index)
        dropped.config = dataclasses.replace(self.config, n_processors=u - n)
        try:
            dropped.regularizer = _regularizer(dropped.config)
        except ValueError:  # e.g. planted_partition with n_blocks > the processors left
            no_seeding = dataclasses.replace(dropped.config.prior_fit, seed_steps=0)
            dropped.config = dataclasses.replace(
                dropped.config, prior=None, prior_params={}, prior_fit=no_seeding
            )
            dropped.regularizer = None
        return dropped

    def n_parameters(self, trainable_only: bool = True) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad or not trainable_only)


def _vote(emitted: torch.Tensor, silenced_readouts: torch.Tensor | None) -> torch.Tensor:
    """The read-outs' answers (B, R, n_classes + 1: logits, then confidence) into logits
    (B, n_classes), each read-out weighed by the softmax of its confidence; silenced read-outs
    (bool (R,)) left out."""
    logits, confidence = emitted[..., :-1], emitted[..., -1]
    if silenced_readouts is not None:
        if bool(silenced_readouts.all()):
            raise ValueError("every read-out is silenced: nothing is left to answer")
        confidence = confidence.masked_fill(silenced_readouts, float("-inf"))
    weights = confidence.softmax(dim=-1).unsqueeze(-1)
    return (weights * logits).sum(dim=1)
