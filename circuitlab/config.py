"""NACConfig: every architectural choice of a NAC (and of its Perceiver IO configuration).

The top level holds the modules and the ablation ladder's flags; the rest sits in groups
(``circuitlab.config_groups``): ``read_in``, ``kernel``, ``penalties``, ``generator`` and
``prior_fit``. In a config file the groups are mappings (``kernel: {eps: 0.25}``); the flat names
of earlier versions (``eps: 0.25``) are still read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from circuitlab.config_fields import check_fields, check_ranges, from_dict
from circuitlab.config_groups import (
    GeneratorConfig,
    KernelConfig,
    PenaltyConfig,
    PriorFitConfig,
    ReadInConfig,
    nest_flat_names,
)
from circuitlab.prior_targets import PRIOR_NAMES

__all__ = ["NACConfig"]

GRAPHS = ("learned", "frozen", "dense")
FFN_ACTIVATIONS = ("gelu", "geglu")


@dataclass
class NACConfig:
    """Architecture of a Neural Attentive Circuit.

    The rungs of the paper's ablation ladder (Table 1) are flags here:
    ``modfc`` (code-conditioned layers on/off), ``graph`` (``dense`` all-ones kernel,
    ``frozen`` random signatures, ``learned``) and ``prior`` (None or a graph-prior name).
    ``NACConfig.perceiver_io(...)`` is the bottom rung.

    Parameters
    ----------
    input_dim
        Features per input token (``read_in.tokenizer`` "features"), or channels for
        "patches"; the task sets it when it builds the model.
    n_classes
        Outputs of the read-out head (classes, or regression targets); set by the task.
    n_processors
        Processor modules, U - R: the nodes of the learned graph.
    n_readouts
        Read-out modules, R, whose states the output head pools.
    dim
        Width of every module's state.
    depth
        Propagator rounds L: how many times the modules talk along the graph.
    heads, head_dim
        Attention heads of the read-in and SKMDPA, and each head's width.
    ffn_mult, ffn_activation
        Hidden width (a multiple of ``dim``) and activation ("gelu" or "relu") of each
        module's code-conditioned feed-forward block.
    code_dim
        Width of each module's code, which conditions its ModFC layers (what it computes).
    sig_dim
        Width of each module's signature, whose distances set the link probabilities P (who
        talks to whom).
    modfc
        Code-conditioned (ModFC) layers; False: plain layers shared by every module.
    graph
        "learned" (signatures trained), "frozen" (random signatures kept) or "dense" (every
        module linked to every other).
    prior
        The graph prior the signatures are pulled towards ("scale_free", "planted_partition",
        "ring_of_cliques", "erdos_renyi"), or None.
    prior_weight
        Weight of the prior's loss beside the task's.
    prior_params
        The prior's parameters (e.g. ``{"n_blocks": 12}``), beside its defaults
        (``circuitlab.prior_targets``).
    conditional
        One circuit per input, generated from a conditioning sequence (a sentence) by
        ``generator``; False: one circuit for every input.
    read_in, kernel, penalties, generator, prior_fit
        The groups (``circuitlab.config_groups``): how modules read the input, how signatures
        become link probabilities, extra losses on the graph, the conditional generator, how a
        prior is fitted. A mapping of a group's fields is accepted wherever a config is read.
    """

    input_dim: int = 16
    n_classes: int = 2
    n_processors: int = 32
    n_readouts: int = 4
    dim: int = 128
    depth: int = 2
    heads: int = 4
    head_dim: int = 32
    ffn_mult: int = 2
    ffn_activation: str = "gelu"
    code_dim: int = 64
    sig_dim: int = 32
    modfc: bool = True
    graph: str = "learned"
    prior: str | None = None
    prior_weight: float = 0.1
    prior_params: dict[str, Any] = field(default_factory=dict)
    conditional: bool = False
    read_in: ReadInConfig = field(default_factory=ReadInConfig)
    kernel: KernelConfig = field(default_factory=KernelConfig)
    penalties: PenaltyConfig = field(default_factory=PenaltyConfig)
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    prior_fit: PriorFitConfig = field(default_factory=PriorFitConfig)

    def __post_init__(self) -> None:
        check_fields(self)
        self._check_values()
        self._check_prior()
        self._check_conditioning()
        if self.read_in.input_layers and self.token_width % self.heads:
            raise ValueError(
                f"NACConfig.read_in.input_layers attend over tokens of width "
                f"{self.token_width}, which {self.heads} heads must divide: change "
                "read_in.token_dim (or dim) or heads"
            )

    def _check_values(self) -> None:
        """Each top-level field's range and each choice among its allowed values."""
        check_ranges(
            self,
            **dict.fromkeys(
                ("input_dim", "n_classes", "ffn_mult", "code_dim", "sig_dim"), "positive"
            ),
            prior_weight="non-negative",
        )
        for name, value, allowed in (
            ("graph", self.graph, GRAPHS),
            ("ffn_activation", self.ffn_activation, FFN_ACTIVATIONS),
        ):
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
        if self.prior_fit.seed_steps and (self.prior is None or self.conditional):
            raise ValueError(
                "NACConfig.prior_fit.seed_steps seeds the signatures of an unconditional NAC "
                "from its prior: set prior, and conditional false, or seed_steps 0"
            )
        if self.prior is not None and self.graph == "dense":
            raise ValueError("a graph prior needs signatures: set graph='learned', not 'dense'")

    def _check_conditioning(self) -> None:
        """The options that act on conditioning tokens need a conditional NAC."""
        if self.conditional:
            return
        generator = self.generator
        needs_sentences = generator.levers_in_use()
        if generator.code_scope != "all":
            needs_sentences.append(f"code_scope={generator.code_scope!r}")
        if generator.split_conditioning:
            needs_sentences.append("split_conditioning")
        if needs_sentences:
            others = f" (so do {', '.join(needs_sentences[1:])})" if needs_sentences[1:] else ""
            raise ValueError(
                f"NACConfig.generator {needs_sentences[0]} needs a conditional NAC{others}: "
                "conditioning tokens and codes per input; set conditional true or leave it out"
            )
        if self.penalties.logic_contrast_weight > 0:
            raise ValueError(
                "NACConfig.penalties.logic_contrast_weight compares the circuits of sentences: "
                "it needs a conditional NAC (conditional: true)"
            )

    @property
    def n_modules(self) -> int:
        return self.n_processors + self.n_readouts

    @property
    def token_width(self) -> int:
        """The width of the input tokens: ``read_in.token_dim``, or ``dim`` when that is None."""
        return self.dim if self.read_in.token_dim is None else self.read_in.token_dim

    @classmethod
    def perceiver_io(cls, **overrides: Any) -> NACConfig:
        """Perceiver IO as a NAC: no code conditioning (alpha = 0) and an all-ones kernel.
        ``overrides`` are NACConfig options, grouped ones by group or by their flat names."""
        overrides.setdefault("modfc", False)
        overrides.setdefault("graph", "dense")
        overrides.setdefault("prior", None)
        return cls.from_dict(overrides)

    def to_dict(self) -> dict[str, Any]:
        """The options as a file holds them: groups as nested mappings."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NACConfig:
        """The NACConfig of ``values`` (a config file's ``model`` mapping, a checkpoint's
        options): groups as mappings or config objects, grouped fields also by their flat
        names (``eps``, ``generator_dim``). ValueError names an unknown or ill-typed option."""
        return from_dict(cls, nest_flat_names(values))
