"""NIConfig: every architectural choice of a Neural Interpreter."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from circuitlab.config_fields import check_fields, from_dict

__all__ = ["NIConfig"]


@dataclass
class NIConfig:
    """Architecture of a Neural Interpreter (Rahaman et al., 2021).

    Tokens (B, V, input_dim) are embedded to ``dim`` and joined by ``n_cls`` learned CLS
    tokens; ``n_scripts`` scripts run in sequence, each ``iterations`` times with shared
    parameters; every iteration routes the tokens to the script's ``n_functions`` functions
    (``circuitlab.ni.routing``) and runs ``locs`` lines of code (``circuitlab.ni.loc``). A
    shared head reads ``n_outputs`` numbers from every CLS token: (B, n_cls * n_outputs).

    Parameters
    ----------
    input_dim
        Features per input token.
    n_cls, n_outputs
        CLS tokens, and the numbers read from each (the task sets both).
    dim
        Width of the tokens inside the interpreter.
    n_scripts, n_functions, iterations, locs
        Scripts run in sequence, functions per script, iterations per script, lines of code
        per iteration.
    heads, head_dim
        Attention heads of a line of code, and each one's width.
    code_dim
        Width of each function's code (its ModLin layers' conditioning).
    mlp_mult
        Hidden width of a line of code's MLP, as a multiple of ``dim``.
    type_dim, type_depth
        Width of the token types the routing reads, and the layers of the MLP that makes them.
    sigma, learn_sigma
        The routing kernel's width (``circuitlab.ni.routing``), and whether it is trained.
    truncation
        Type-signature distance beyond which a token is cut from a function (None: none is).
    routing_eps
        eps of the normalisation over functions, C = C~ / (eps + sum_u C~).
    frozen_signatures
        The functions' signatures stay at their random start: the paper's guard against every
        token collapsing onto one function.
    """

    input_dim: int = 8
    n_cls: int = 1
    n_outputs: int = 1
    dim: int = 64
    n_scripts: int = 2
    n_functions: int = 5
    iterations: int = 2
    locs: int = 1
    heads: int = 4
    head_dim: int = 16
    code_dim: int = 32
    mlp_mult: int = 2
    type_dim: int = 24
    type_depth: int = 2
    sigma: float = 1.0
    learn_sigma: bool = True
    truncation: float | None = None
    routing_eps: float = 1e-6
    frozen_signatures: bool = True

    def __post_init__(self) -> None:
        check_fields(self)
        for name in ("input_dim", "n_cls", "n_outputs", "dim", "n_scripts", "n_functions"):
            if getattr(self, name) < 1:
                raise ValueError(f"NIConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("iterations", "locs", "heads", "head_dim", "code_dim", "type_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"NIConfig.{name} must be >= 1, got {getattr(self, name)}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NIConfig:
        return from_dict(cls, values)
