"""NACConfig: every architectural choice of a NAC (and of its Perceiver IO configuration)."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from circuitlab.prior_targets import PRIOR_NAMES

T = TypeVar("T")

TOKENIZERS = ("features", "patches", "bytes")
GRAPHS = ("learned", "frozen", "dense")
PRIOR_LOSSES = ("matched_mse", "spectral")
CODE_SCOPES = ("all", "read_in")
SIGNATURE_TOKENS = ("skeleton", "sentence")
READ_IN_WEIGHTS = ("softmax", "sigmoid")
# how the kernel links modules at evaluation (circuitlab/nn/kernel.py)
EVAL_KERNELS = ("none", "threshold", "sample")


@dataclass
class NACConfig:
    """Architecture of a Neural Attentive Circuit.

    The rungs of the paper's ablation ladder (Table 1) are flags here:
    ``modfc`` (code-conditioned layers on/off), ``graph`` (``dense`` all-ones kernel,
    ``frozen`` random signatures, ``learned``) and ``prior`` (None or a graph-prior name).
    ``NACConfig.perceiver_io(...)`` is the bottom rung.
    """

    # inputs
    input_dim: int = 16  # features per token (tokenizer "features"); channels for "patches"
    tokenizer: str = "features"
    max_tokens: int | None = None  # learned positional embedding over this many positions
    patch_size: int = 4
    # width of the tokens the read-in attends to; None = dim. The code-conditioned read-in
    # costs token_dim per module, token and head, so narrow tokens make a NAC cheaper to read
    # many tokens with (bench/nac_vs_pio.py)
    token_dim: int | None = None
    # a learned token beside every input's tokens in the read-in, so that how many tokens a
    # module's query matches (none included) survives the softmax (circuitlab/nn/readin.py)
    null_token: bool = False
    # how the read-in weighs the input tokens: "softmax" (an average) or "sigmoid" (each token
    # on its own, so a module reads a sum that grows with how many tokens it matches)
    read_in_weights: str = "softmax"
    # self-attention blocks over the input tokens before the read-in (0: none), so that each
    # token knows its neighbours and relations between tokens survive the read-in's pooling
    input_layers: int = 0
    # after every propagation round the processors read the input again (a read-in of their
    # own per round), so what a module looks for next can follow what it was told
    read_in_every_round: bool = False
    n_classes: int = 2
    # modules
    n_processors: int = 32
    n_readouts: int = 4
    dim: int = 128
    depth: int = 2  # propagator rounds L
    heads: int = 4
    head_dim: int = 32
    ffn_mult: int = 2
    ffn_activation: str = "gelu"
    code_dim: int = 64
    sig_dim: int = 32
    # kernel
    eps: float = 1.0
    learn_eps: bool = False
    truncation: float | None = None
    # cut links (beyond the truncation) still pass the gradient of their log P (straight
    # through), so signatures cut apart can be pulled back together
    truncation_gradient: bool = False
    tau: float = 0.5
    eval_kernel: str = "none"
    # False: training uses P itself, as evaluation does, instead of relaxed-Bernoulli samples
    sample_kernel: bool = True
    # mean off-diagonal P among processors pulled towards this value (None: no pull), with
    # density_weight * (batch-mean density - target)^2 added to the loss: a kernel with small eps
    # can then say no without every link being cut
    density_target: float | None = None
    density_weight: float = 1.0
    # "batch": the batch-mean density is pulled (sentences may differ in density, which then
    # dominates how their graphs differ); "circuit": every circuit's own density is pulled,
    # density_weight * mean over the batch of (density - target)^2
    density_scope: str = "batch"
    # with density_scope "batch": each circuit whose own density strays from the target by more
    # than this pays density_weight * (excess)^2 too (mean over the batch), so sentences may
    # differ in how full their graphs are, but only so far (None: no bound)
    density_band: float | None = None
    # hinge repulsion between processor signatures: weight * mean over pairs of
    # relu(repulsion_hinge - cosine distance), pushing apart pairs closer than the hinge (the
    # authors' code uses hinge 0.4); 0 turns it off
    signature_repulsion: float = 0.0
    repulsion_hinge: float = 0.4
    # logic contrast (conditional NACs, tasks that give Batch.contrast: the pair world's
    # contrast_per_batch): for a training sentence s, its noun swap s_n and a logic change s_l,
    # weight * mean relu(log(1 + margin) - log(|P(s_l) - P(s)| / |P(s_n) - P(s)|)) (Frobenius
    # norms over the processors' P): the logic change should move P (1 + margin) times as far
    logic_contrast_weight: float = 0.0
    logic_contrast_margin: float = 0.5
    # ablation ladder
    modfc: bool = True
    graph: str = "learned"
    prior: str | None = None
    prior_weight: float = 0.1
    prior_loss: str = "matched_mse"
    prior_rematch_every: int = 50
    prior_params: dict[str, Any] = field(default_factory=dict)
    # before a fresh run's first step, fit an unconditional NAC's processor signatures to the
    # prior's target alone for this many Adam steps (the authors' code can seed signatures from
    # a preset graph; circuitlab.prior_seeding); 0: signatures start at random
    prior_seed_steps: int = 0
    # conditional circuit generator (one circuit per conditioning sequence)
    conditional: bool = False
    cond_dim: int = 64  # width of conditioning tokens (or of their embedding if cond_vocab)
    cond_vocab: int | None = None  # conditioning given as token ids when set
    generator_dim: int = 128
    generator_heads: int = 4
    # False: the generator emits signatures only and codes stay per-module parameters, so a
    # conditional NAC's input reaches the executor through the wiring alone
    sentence_codes: bool = True
    # where a circuit's codes act: "all" (every ModFC and the initial states, as in the paper) or
    # "read_in" (only what each processor looks for: the read-in's queries and keys); elsewhere
    # each module then keeps one code, its generator's base code, for every input
    code_scope: str = "all"
    # with code_scope "read_in": the codes also add a linear term to each processor's read-in
    # query, so what it looks for can follow the input fully (ModFC's modulation alone moves a
    # query by about alpha, 0.1 at the start)
    code_queries: bool = False
    # in training, each example's generated codes are replaced by the modules' own codes with
    # this probability: on those examples only the wiring carries the input, so it must
    code_dropout: float = 0.0
    # in training, each conditioning token is hidden from the generator with this probability
    # (word dropout; circuitlab.nn.token_dropout), so no one word carries a circuit alone
    token_dropout: float = 0.0
    # in training, each conditioning token's vector moves by Gaussian noise of about this
    # expected length (circuitlab.nn.token_noise; MiniLM's token vectors are about 8 long), so
    # nearby wordings get nearby circuits
    token_noise: float = 0.0
    # conditioning in two parts told apart by its last feature (0: skeleton, 1: content), as
    # the "minilm-split" text encoder writes it: signatures (the wiring) are generated from the
    # skeleton tokens alone and codes from the content tokens alone (needs sentence_codes)
    split_conditioning: bool = False
    # with split_conditioning, what the signatures are generated from: "skeleton" (the wiring
    # cannot depend on the content words) or "sentence" (skeleton and content tokens, so the
    # wiring sees every word while the codes still see only the content)
    signature_tokens: str = "skeleton"
    # the signature queries read the mean of each part's tokens (of the whole input when not
    # split) instead of the tokens: MiniLM's mean-pooled embeddings are trained to land close
    # for paraphrases, so wiring built from them may carry over to wordings never trained on
    # (screened: worse on the shapes world, NLVR test -5.8 points at 16,000 steps)
    signature_pooling: bool = False
    # trainable self-attention blocks over the tokens the signatures read, before they are read
    # (the frozen encoder's tokens adapted to the wiring; the codes still read them as they are;
    # screened with 2 on the shapes world: NLVR test -1.7 points at 16,000 steps, docs/results.md)
    signature_layers: int = 0

    def __post_init__(self) -> None:
        check_fields(self)
        self._check_values()
        self._check_prior()
        self._check_conditioning_levers()
        self._check_density_and_inputs()
        self._check_sentence_levers()

    def _check_values(self) -> None:
        """Each field's range and each choice among its allowed values."""
        check_ranges(
            self,
            **dict.fromkeys(
                ("input_dim", "max_tokens", "patch_size", "n_classes", "ffn_mult", "code_dim"),
                "positive",
            ),
            **dict.fromkeys(
                ("sig_dim", "eps", "tau", "cond_dim", "generator_dim", "generator_heads"),
                "positive",
            ),
            prior_rematch_every="positive",
            prior_weight="non-negative",
            density_weight="non-negative",
        )
        checks = {
            "tokenizer": (self.tokenizer, TOKENIZERS),
            "graph": (self.graph, GRAPHS),
            "prior_loss": (self.prior_loss, PRIOR_LOSSES),
            "ffn_activation": (self.ffn_activation, ("gelu", "geglu")),
            "eval_kernel": (self.eval_kernel, EVAL_KERNELS),
            "code_scope": (self.code_scope, CODE_SCOPES),
            "signature_tokens": (self.signature_tokens, SIGNATURE_TOKENS),
            "read_in_weights": (self.read_in_weights, READ_IN_WEIGHTS),
        }
        for name, (value, allowed) in checks.items():
            if value not in allowed:
                raise ValueError(f"NACConfig.{name} must be one of {allowed}, got {value!r}")
        for name in ("n_processors", "n_readouts", "dim", "heads", "head_dim", "depth"):
            if getattr(self, name) < (0 if name == "depth" else 1):
                raise ValueError(f"NACConfig.{name} must be positive, got {getattr(self, name)}")

    def _check_prior(self) -> None:
        """The graph prior and what it needs."""
        if self.prior is not None and self.prior not in PRIOR_NAMES:
            raise ValueError(
                f"NACConfig.prior must be None or one of {PRIOR_NAMES}, got {self.prior!r}"
            )
        if self.prior_seed_steps < 0:
            raise ValueError(
                f"NACConfig.prior_seed_steps must be >= 0, got {self.prior_seed_steps}"
            )
        if self.prior_seed_steps and (self.prior is None or self.conditional):
            raise ValueError(
                "NACConfig.prior_seed_steps seeds the signatures of an unconditional NAC from its "
                "prior: set prior, and conditional false, or prior_seed_steps 0"
            )
        if self.prior is not None and self.graph == "dense":
            raise ValueError("a graph prior needs signatures: set graph='learned', not 'dense'")

    def _check_conditioning_levers(self) -> None:
        """The levers on a conditional NAC's conditioning and codes."""
        if not 0.0 <= self.code_dropout < 1.0:
            raise ValueError(f"NACConfig.code_dropout must be in [0, 1), got {self.code_dropout}")
        if self.code_dropout > 0 and not self.conditional:
            raise ValueError("NACConfig.code_dropout needs a conditional NAC (codes per input)")
        if not 0.0 <= self.token_dropout < 1.0:
            raise ValueError(f"NACConfig.token_dropout must be in [0, 1), got {self.token_dropout}")
        if self.token_dropout > 0 and not self.conditional:
            raise ValueError(
                "NACConfig.token_dropout needs a conditional NAC (conditioning tokens)"
            )
        if self.token_noise < 0:
            raise ValueError(f"NACConfig.token_noise must be >= 0, got {self.token_noise}")
        if self.token_noise > 0 and not self.conditional:
            raise ValueError("NACConfig.token_noise needs a conditional NAC (conditioning tokens)")
        if self.signature_pooling and not self.conditional:
            raise ValueError(
                "NACConfig.signature_pooling needs a conditional NAC (conditioning tokens)"
            )
        if self.signature_layers < 0:
            raise ValueError(
                f"NACConfig.signature_layers must be >= 0, got {self.signature_layers}"
            )
        if self.signature_layers and not self.conditional:
            raise ValueError(
                "NACConfig.signature_layers needs a conditional NAC (conditioning tokens)"
            )
        if self.signature_layers and self.signature_pooling:
            raise ValueError(
                "NACConfig.signature_layers attend among the tokens the signatures read; with "
                "signature_pooling those are one mean per part: use one or the other"
            )
        if self.code_queries and self.code_scope != "read_in":
            raise ValueError("NACConfig.code_queries needs code_scope='read_in'")
        if self.code_scope != "all" and not self.conditional:
            raise ValueError(
                f"NACConfig.code_scope={self.code_scope!r} needs a conditional NAC: an "
                "unconditional one has one code per module already"
            )

    def _check_density_and_inputs(self) -> None:
        """The density pull, the input layers and the kernel's truncation."""
        if self.density_target is not None and not 0.0 < self.density_target < 1.0:
            raise ValueError(
                f"NACConfig.density_target must be None or in (0, 1), got {self.density_target}"
            )
        if self.input_layers < 0:
            raise ValueError(f"NACConfig.input_layers must be >= 0, got {self.input_layers}")
        if self.input_layers and self.token_width % self.heads:
            raise ValueError(
                f"NACConfig.input_layers attend over tokens of width {self.token_width}, which "
                f"{self.heads} heads must divide: change token_dim (or dim) or heads"
            )
        if self.truncation_gradient and self.truncation is None:
            raise ValueError("NACConfig.truncation_gradient needs a truncation to pass through")
        if self.density_scope not in ("batch", "circuit"):
            raise ValueError(
                f"NACConfig.density_scope must be 'batch' or 'circuit', got {self.density_scope!r}"
            )
        if self.density_band is not None and not (
            self.density_band > 0
            and self.density_target is not None
            and self.density_scope == "batch"
        ):
            raise ValueError(
                f"NACConfig.density_band={self.density_band} bounds how far each circuit's "
                "density strays from density_target under density_scope 'batch': set a "
                "density_target, keep the scope 'batch' and give a band > 0"
            )

    def _check_sentence_levers(self) -> None:
        """The logic contrast, the signature repulsion and the split sentence."""
        if self.logic_contrast_weight < 0 or self.logic_contrast_margin < 0:
            raise ValueError(
                "NACConfig.logic_contrast_weight and logic_contrast_margin must be >= 0, got "
                f"{self.logic_contrast_weight} and {self.logic_contrast_margin}"
            )
        if self.logic_contrast_weight > 0 and not self.conditional:
            raise ValueError(
                "NACConfig.logic_contrast_weight compares the circuits of sentences: it needs a "
                "conditional NAC (conditional: true)"
            )
        if self.signature_repulsion < 0 or not 0 < self.repulsion_hinge <= 2:
            raise ValueError(
                "NACConfig.signature_repulsion must be >= 0 and repulsion_hinge in (0, 2] (a "
                f"cosine distance), got {self.signature_repulsion} and {self.repulsion_hinge}"
            )
        if self.split_conditioning and not (
            self.conditional and self.sentence_codes and self.cond_vocab is None
        ):
            raise ValueError(
                "NACConfig.split_conditioning needs conditional=True, sentence_codes=True and "
                "vector conditioning (cond_vocab None): use text_encoder 'minilm-split'"
            )
        if self.signature_tokens != "skeleton" and not self.split_conditioning:
            raise ValueError(
                "NACConfig.signature_tokens chooses what a split generator's signatures read: "
                "set split_conditioning=True too (without it they read every token already)"
            )
        if self.token_dim is not None and self.token_dim < 1:
            raise ValueError(f"NACConfig.token_dim must be None or positive, got {self.token_dim}")

    @property
    def n_modules(self) -> int:
        return self.n_processors + self.n_readouts

    @property
    def token_width(self) -> int:
        """The width of the input tokens: ``token_dim``, or ``dim`` when that is None."""
        return self.dim if self.token_dim is None else self.token_dim

    @classmethod
    def perceiver_io(cls, **overrides: Any) -> NACConfig:
        """Perceiver IO as a NAC: no code conditioning (alpha = 0) and an all-ones kernel."""
        overrides.setdefault("modfc", False)
        overrides.setdefault("graph", "dense")
        overrides.setdefault("prior", None)
        return cls(**overrides)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NACConfig:
        return from_dict(cls, values)


def check_fields(config: Any) -> None:
    """Every field of a config dataclass has its declared type (an int where an int is due,
    not a bool, float or text) and every number is finite; ``ValueError`` names the first
    field that is not. Called first by the configs' ``__post_init__``, so a config built
    directly in Python is checked like one read from a file."""
    name = type(config).__name__
    hints = typing.get_type_hints(type(config))
    for spec in dataclasses.fields(config):
        value = getattr(config, spec.name)
        if not _is_instance(value, hints[spec.name]):
            raise ValueError(
                f"{name}.{spec.name} must be {_type_name(hints[spec.name])}, got {value!r}"
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{name}.{spec.name} must be a finite number, got {value!r}")


def check_ranges(config: Any, **ranges: str) -> None:
    """``ranges`` maps field names to "positive" (> 0) or "non-negative" (>= 0); None values
    pass. ``ValueError`` names the first field out of its range."""
    for field_name, kind in ranges.items():
        value = getattr(config, field_name)
        if value is None:
            continue
        if (kind == "positive" and value <= 0) or (kind == "non-negative" and value < 0):
            raise ValueError(
                f"{type(config).__name__}.{field_name} must be {kind}"
                f"{' (> 0)' if kind == 'positive' else ' (>= 0)'}, got {value!r}"
            )


def from_dict(cls: type[T], values: dict[str, Any]) -> T:
    """``cls(**values)`` for a dataclass, naming any unknown key or value of the wrong type
    instead of a TypeError. A float field also takes a number written as text ("1e-3", which
    YAML reads as a string)."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} fields {unknown}; known: {sorted(known)}")
    hints = typing.get_type_hints(cls)
    values = dict(values)
    for name, value in values.items():
        hint = hints[name]
        if isinstance(value, str) and _accepts(hint, float) and not _accepts(hint, str):
            try:
                values[name] = value = float(value)
            except ValueError:
                pass
        if not _is_instance(value, hint):
            raise ValueError(f"{cls.__name__}.{name} must be {_type_name(hint)}, got {value!r}")
    return cls(**values)


def _accepts(hint: Any, kind: type) -> bool:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_accepts(arg, kind) for arg in typing.get_args(hint))
    return hint is kind


def _is_instance(value: Any, hint: Any) -> bool:
    """isinstance for the field types used here: int, float (an int will do), bool, str, None,
    unions of them, and generic containers (checked by their container type)."""
    if hint is Any:
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_is_instance(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, typing.get_origin(hint) or hint)


def _type_name(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_type_name(arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return "null"
    return getattr(typing.get_origin(hint) or hint, "__name__", str(hint))
