"""The groups of a NACConfig: how modules read the input (``read_in``), how signatures become
link probabilities (``kernel``), the extra loss terms on the graph (``penalties``), how a
conditional NAC makes one circuit per input (``generator``) and how a graph prior is fitted
(``prior_fit``). Each group checks its own fields; checks that span groups live in NACConfig.

``FLAT_NAMES`` maps every grouped field's earlier top-level name (``eps``, ``generator_dim``,
``read_in_weights``) to its group and name, so configs, checkpoints and stores written with the
flat names still load (``NACConfig.from_dict``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from circuitlab.config_fields import check_fields, check_ranges

__all__ = [
    "EVAL_KERNELS",
    "FLAT_NAMES",
    "GROUPS",
    "GeneratorConfig",
    "KernelConfig",
    "PRIOR_LOSSES",
    "PenaltyConfig",
    "PriorFitConfig",
    "READ_IN_WEIGHTS",
    "ReadInConfig",
    "nest_flat_names",
]

TOKENIZERS = ("features", "patches", "bytes")
READ_IN_WEIGHTS = ("softmax", "sigmoid")
# how the kernel links modules at evaluation (circuitlab/nn/kernel.py)
EVAL_KERNELS = ("none", "threshold", "sample")
DENSITY_SCOPES = ("batch", "circuit")
CODE_SCOPES = ("all", "read_in")
SIGNATURE_TOKENS = ("skeleton", "sentence")
PRIOR_LOSSES = ("matched_mse", "spectral")


def _check_choices(config: Any, **choices: tuple[str, ...]) -> None:
    """``ValueError`` naming the first field whose value is not among its allowed values."""
    for name, allowed in choices.items():
        value = getattr(config, name)
        if value not in allowed:
            raise ValueError(
                f"{type(config).__name__}.{name} must be one of {allowed}, got {value!r}"
            )


def _check_at_least(config: Any, bound: int, *names: str) -> None:
    for name in names:
        if getattr(config, name) < bound:
            raise ValueError(
                f"{type(config).__name__}.{name} must be >= {bound}, got {getattr(config, name)}"
            )


@dataclass
class ReadInConfig:
    """How the input becomes tokens and how the processors read them.

    Parameters
    ----------
    tokenizer
        "features" (a linear map of each input vector), "patches" (images cut into
        patch_size squares) or "bytes" (a byte sequence, embedded).
    max_tokens
        Learned positional embedding over this many positions.
    patch_size
        Side, in pixels, of the square patches an image is cut into (tokenizer "patches").
    token_dim
        Width of the tokens the read-in attends to; None = the NAC's dim. The
        code-conditioned read-in costs token_dim per module, token and head, so narrow
        tokens make a NAC cheaper to read many tokens with (bench/nac_vs_pio.py).
    null_token
        A learned token beside every input's tokens, so that how many tokens a module's
        query matches (none included) survives the softmax (circuitlab/nn/readin.py).
    weights
        How the read-in weighs the input tokens: "softmax" (an average) or "sigmoid" (each
        token on its own, so a module reads a sum that grows with how many tokens it
        matches).
    input_layers
        Self-attention blocks over the input tokens before the read-in (0: none), so that
        each token knows its neighbours and relations between tokens survive the read-in's
        pooling.
    every_round
        After every propagation round the processors read the input again (a read-in of
        their own per round), so what a module looks for next can follow what it was told.
    """

    tokenizer: str = "features"
    max_tokens: int | None = None
    patch_size: int = 4
    token_dim: int | None = None
    null_token: bool = False
    weights: str = "softmax"
    input_layers: int = 0
    every_round: bool = False

    def __post_init__(self) -> None:
        check_fields(self)
        check_ranges(self, max_tokens="positive", patch_size="positive", token_dim="positive")
        _check_choices(self, tokenizer=TOKENIZERS, weights=READ_IN_WEIGHTS)
        _check_at_least(self, 0, "input_layers")


@dataclass
class KernelConfig:
    """SKMDPA's kernel: link probabilities P = exp(-d / eps) from signature distances d.

    Parameters
    ----------
    eps
        The kernel's width: P = exp(-d / eps), so a small eps makes links sparse.
    learn_eps
        Train eps with the signatures (per head of the kernel).
    truncation
        Links with P below this are cut (None: none are).
    truncation_gradient
        Cut links still pass the gradient of their log P (straight through), so signatures
        cut apart can be pulled back together.
    tau
        Temperature of the relaxed-Bernoulli link samples in training.
    evaluation
        How links are used at evaluation: "none" (P weighs every link), "threshold" (P >
        0.5) or "sample" (a Bernoulli draw).
    sample
        False: training uses P itself, as evaluation does, instead of relaxed-Bernoulli
        samples.
    """

    eps: float = 1.0
    learn_eps: bool = False
    truncation: float | None = None
    truncation_gradient: bool = False
    tau: float = 0.5
    evaluation: str = "none"
    sample: bool = True

    def __post_init__(self) -> None:
        check_fields(self)
        check_ranges(self, eps="positive", tau="positive")
        _check_choices(self, evaluation=EVAL_KERNELS)
        if self.truncation_gradient and self.truncation is None:
            raise ValueError("KernelConfig.truncation_gradient needs a truncation to pass through")


@dataclass
class PenaltyConfig:
    """Loss terms on the graph beside the task's (0 or None: off).

    Parameters
    ----------
    density_target
        Mean off-diagonal P among processors pulled towards this value (None: no pull), with
        density_weight * (batch-mean density - target)^2 added to the loss: a kernel with
        small eps can then say no without every link being cut.
    density_weight
        Weight of the density terms (density_target, density_band).
    density_scope
        "batch": the batch-mean density is pulled (sentences may differ in density, which
        then dominates how their graphs differ); "circuit": every circuit's own density is
        pulled, density_weight * mean over the batch of (density - target)^2.
    density_band
        With density_scope "batch": each circuit whose own density strays from the target by
        more than this pays density_weight * (excess)^2 too (mean over the batch), so
        sentences may differ in how full their graphs are, but only so far (None: no bound).
    signature_repulsion
        Hinge repulsion between processor signatures: weight * mean over pairs of
        relu(repulsion_hinge - cosine distance), pushing apart pairs closer than the hinge
        (the authors' code uses hinge 0.4); 0 turns it off.
    repulsion_hinge
        The cosine distance below which two signatures are pushed apart.
    logic_contrast_weight
        Logic contrast (conditional NACs, tasks that give Batch.contrast: the pair world's
        contrast_per_batch): for a training sentence s, its noun swap s_n and a logic change
        s_l, weight * mean relu(log(1 + margin) - log(|P(s_l) - P(s)| / |P(s_n) - P(s)|))
        (Frobenius norms over the processors' P): the logic change should move P (1 +
        margin) times as far.
    logic_contrast_margin
        How much farther, as (1 + margin) times, a logic change must
        move P than a noun swap.
    noun_invariance_weight
        With the logic contrast: weight * mean over its triples of the root-mean-square change
        of a processor link's P under the noun swap, |P(s_n) - P(s)| / u (u processors),
        pulling the noun swap's circuit onto the sentence's, where the contrast's ratio only
        asks the logic change to move P farther; 0 turns it off.
    """

    density_target: float | None = None
    density_weight: float = 1.0
    density_scope: str = "batch"
    density_band: float | None = None
    signature_repulsion: float = 0.0
    repulsion_hinge: float = 0.4
    logic_contrast_weight: float = 0.0
    logic_contrast_margin: float = 0.5
    noun_invariance_weight: float = 0.0

    def __post_init__(self) -> None:
        check_fields(self)
        check_ranges(self, density_weight="non-negative")
        _check_choices(self, density_scope=DENSITY_SCOPES)
        if self.density_target is not None and not 0.0 < self.density_target < 1.0:
            raise ValueError(
                f"PenaltyConfig.density_target must be None or in (0, 1), got {self.density_target}"
            )
        if self.density_band is not None and not (
            self.density_band > 0
            and self.density_target is not None
            and self.density_scope == "batch"
        ):
            raise ValueError(
                f"PenaltyConfig.density_band={self.density_band} bounds how far each circuit's "
                "density strays from density_target under density_scope 'batch': set a "
                "density_target, keep the scope 'batch' and give a band > 0"
            )
        if self.logic_contrast_weight < 0 or self.logic_contrast_margin < 0:
            raise ValueError(
                "PenaltyConfig.logic_contrast_weight and logic_contrast_margin must be >= 0, got "
                f"{self.logic_contrast_weight} and {self.logic_contrast_margin}"
            )
        if self.noun_invariance_weight < 0 or (
            self.noun_invariance_weight > 0 and self.logic_contrast_weight == 0
        ):
            raise ValueError(
                "PenaltyConfig.noun_invariance_weight must be >= 0 and needs the logic contrast "
                f"(its triples): got {self.noun_invariance_weight} with logic_contrast_weight "
                f"{self.logic_contrast_weight}; set logic_contrast_weight > 0 or the weight to 0"
            )
        if self.signature_repulsion < 0 or not 0 < self.repulsion_hinge <= 2:
            raise ValueError(
                "PenaltyConfig.signature_repulsion must be >= 0 and repulsion_hinge in (0, 2] (a "
                f"cosine distance), got {self.signature_repulsion} and {self.repulsion_hinge}"
            )


@dataclass
class GeneratorConfig:
    """A conditional NAC's circuit generator: one circuit (signatures, codes) per input's
    conditioning tokens. Read only when ``NACConfig.conditional``.

    Parameters
    ----------
    cond_dim
        Width of conditioning tokens (or of their embedding if cond_vocab).
    cond_vocab
        Conditioning given as token ids when set.
    dim
        Width of the generator's transformer over the conditioning tokens.
    heads
        Attention heads of the generator's transformer.
    sentence_codes
        False: the generator emits signatures only and codes stay per-module parameters, so
        a conditional NAC's input reaches the executor through the wiring alone.
    code_scope
        Where a circuit's codes act: "all" (every ModFC and the initial states, as in the
        paper) or "read_in" (only what each processor looks for: the read-in's queries and
        keys); elsewhere each module then keeps one code, its generator's base code, for
        every input.
    code_queries
        With code_scope "read_in": the codes also add a linear term to each processor's
        read-in query, so what it looks for can follow the input fully (ModFC's modulation
        alone moves a query by about alpha, 0.1 at the start).
    code_dropout
        In training, each example's generated codes are replaced by the modules' own codes
        with this probability: on those examples only the wiring carries the input, so it
        must.
    token_dropout
        In training, each conditioning token is hidden from the generator with this
        probability (word dropout; circuitlab.nn.token_dropout), so no one word carries a
        circuit alone.
    token_noise
        In training, each conditioning token's vector moves by Gaussian noise of about this
        expected length (circuitlab.nn.token_noise; MiniLM's token vectors are about 8
        long), so nearby wordings get nearby circuits.
    split_conditioning
        Conditioning in two parts told apart by its last feature (0: skeleton, 1: content),
        as the "minilm-split" text encoder writes it: signatures (the wiring) are generated
        from the skeleton tokens alone and codes from the content tokens alone (needs
        sentence_codes).
    signature_tokens
        With split_conditioning, what the signatures are generated from: "skeleton" (the
        wiring cannot depend on the content words) or "sentence" (skeleton and content
        tokens, so the wiring sees every word while the codes still see only the content).
    signature_pooling
        The signature queries read the mean of each part's tokens (of the whole input when
        not split) instead of the tokens: MiniLM's mean-pooled embeddings are trained to
        land close for paraphrases, so wiring built from them may carry over to wordings
        never trained on (screened: worse on the shapes world, NLVR test -5.8 points at
        16,000 steps).
    signature_layers
        Trainable self-attention blocks over the tokens the signatures read, before they are
        read (the frozen encoder's tokens adapted to the wiring; the codes still read them
        as they are; screened with 2 on the shapes world: NLVR test -1.7 points at 16,000
        steps, docs/results.md).
    """

    cond_dim: int = 64
    cond_vocab: int | None = None
    dim: int = 128
    heads: int = 4
    sentence_codes: bool = True
    code_scope: str = "all"
    code_queries: bool = False
    code_dropout: float = 0.0
    token_dropout: float = 0.0
    token_noise: float = 0.0
    split_conditioning: bool = False
    signature_tokens: str = "skeleton"
    signature_pooling: bool = False
    signature_layers: int = 0

    def __post_init__(self) -> None:
        check_fields(self)
        check_ranges(self, cond_dim="positive", dim="positive", heads="positive")
        _check_choices(self, code_scope=CODE_SCOPES, signature_tokens=SIGNATURE_TOKENS)
        _check_at_least(self, 0, "signature_layers")
        for name in ("code_dropout", "token_dropout"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(
                    f"GeneratorConfig.{name} must be in [0, 1), got {getattr(self, name)}"
                )
        if self.token_noise < 0:
            raise ValueError(f"GeneratorConfig.token_noise must be >= 0, got {self.token_noise}")
        if self.code_queries and self.code_scope != "read_in":
            raise ValueError("GeneratorConfig.code_queries needs code_scope='read_in'")
        if self.signature_layers and self.signature_pooling:
            raise ValueError(
                "GeneratorConfig.signature_layers attend among the tokens the signatures read; "
                "with signature_pooling those are one mean per part: use one or the other"
            )
        if self.split_conditioning and not (self.sentence_codes and self.cond_vocab is None):
            raise ValueError(
                "GeneratorConfig.split_conditioning needs sentence_codes=True and vector "
                "conditioning (cond_vocab None): use text_encoder 'minilm-split'"
            )
        if self.signature_tokens != "skeleton" and not self.split_conditioning:
            raise ValueError(
                "GeneratorConfig.signature_tokens chooses what a split generator's signatures "
                "read: set split_conditioning=True too (without it they read every token already)"
            )

    def levers_in_use(self) -> list[str]:
        """The names of the fields that change an input's circuit only in a conditional NAC
        and are set away from their defaults (NACConfig refuses them when not conditional)."""
        defaults = GeneratorConfig()
        names = ("code_dropout", "token_dropout", "token_noise", "signature_pooling")
        used = [name for name in names if getattr(self, name) != getattr(defaults, name)]
        return used + (["signature_layers"] if self.signature_layers else [])


@dataclass
class PriorFitConfig:
    """How the graph prior's loss is computed (``NACConfig.prior`` names the family,
    ``prior_weight`` its weight and ``prior_params`` its parameters).

    Parameters
    ----------
    loss
        "matched_mse": mean squared error between P and the prior's target, its nodes
        matched to the modules; "spectral": between their spectra (circuitlab.prior_loss).
    rematch_every
        Steps between re-matchings of the target's nodes to the modules.
    seed_steps
        Before a fresh run's first step, fit an unconditional NAC's processor signatures to
        the prior's target alone for this many Adam steps (the authors' code can seed
        signatures from a preset graph; circuitlab.prior_seeding); 0: signatures start at
        random.
    """

    loss: str = "matched_mse"
    rematch_every: int = 50
    seed_steps: int = 0

    def __post_init__(self) -> None:
        check_fields(self)
        check_ranges(self, rematch_every="positive")
        _check_choices(self, loss=PRIOR_LOSSES)
        _check_at_least(self, 0, "seed_steps")


# group name -> its config class
GROUPS: dict[str, type] = {
    "read_in": ReadInConfig,
    "kernel": KernelConfig,
    "penalties": PenaltyConfig,
    "generator": GeneratorConfig,
    "prior_fit": PriorFitConfig,
}

# a grouped field's earlier top-level name -> (group, field)
_RENAMED = {
    "read_in_weights": ("read_in", "weights"),
    "read_in_every_round": ("read_in", "every_round"),
    "eval_kernel": ("kernel", "evaluation"),
    "sample_kernel": ("kernel", "sample"),
    "generator_dim": ("generator", "dim"),
    "generator_heads": ("generator", "heads"),
    "prior_loss": ("prior_fit", "loss"),
    "prior_rematch_every": ("prior_fit", "rematch_every"),
    "prior_seed_steps": ("prior_fit", "seed_steps"),
}
FLAT_NAMES: dict[str, tuple[str, str]] = {
    **{
        spec.name: (group, spec.name)
        for group, cls in GROUPS.items()
        for spec in dataclasses.fields(cls)
        if (group, spec.name) not in _RENAMED.values()
    },
    **_RENAMED,
}


def nest_flat_names(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (NACConfig options as a file or checkpoint holds them) with each grouped field
    given by its flat name (``eps: 0.25``) moved into its group (``kernel: {eps: 0.25}``).
    ValueError when a field is given both ways.

    Parameters
    ----------
    values
        A NAC's options, flat names or grouped.
    """
    nested = {name: value for name, value in values.items() if name not in FLAT_NAMES}
    for group in GROUPS:
        if group in nested and not isinstance(nested[group], dict):
            continue  # a group given as its config object: nothing to merge into
        if group in nested:
            nested[group] = dict(nested[group])
    for flat, (group, name) in FLAT_NAMES.items():
        if flat not in values:
            continue
        members = nested.setdefault(group, {})
        if not isinstance(members, dict) or name in members:
            raise ValueError(
                f"NACConfig option {flat!r} is {group}.{name}, which is given too: keep one"
            )
        members[name] = values[flat]
    return nested
