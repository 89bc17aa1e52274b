"""The Neural Interpreter: scripts of functions that tokens are routed to by type.

A script holds ``n_functions`` functions (a signature s_u and a code c_u each), a type
inference MLP, a routing kernel and its LOCs; one function iteration is

    t = TypeInference(x);  C = routing(s, t)  (B, U, V);
    y_u = LOC_L(... LOC_1(x; c_u, C) ...)     (B, U, V, d);
    x  <- x + sum_u C_ui (y_ui - x_i).

The last line equals the authors' sum_u C_ui y_ui wherever sum_u C_ui = 1; a token that no
function accepts (every link truncated) passes through unchanged instead of being zeroed.
Iterations of a script share its parameters; scripts run in sequence.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from circuitlab.ni.config import NIConfig
from circuitlab.ni.loc import LineOfCode
from circuitlab.ni.routing import RoutingKernel, TypeInference

__all__ = ["NeuralInterpreter", "Script"]


class Script(nn.Module):
    """``iterations`` function iterations with shared parameters: x (B, V, d) -> (B, V, d).

    Parameters
    ----------
    config
        The interpreter's config.
    """

    def __init__(self, config: NIConfig) -> None:
        super().__init__()
        self.config = config
        self.iterations = config.iterations
        self.type_inference = TypeInference(config.dim, config.type_dim, config.type_depth)
        self.kernel = RoutingKernel(
            sigma=config.sigma,
            learn_sigma=config.learn_sigma,
            truncation=config.truncation,
            eps=config.routing_eps,
        )
        u = config.n_functions
        self.signatures = nn.Parameter(
            torch.randn(u, config.type_dim), requires_grad=not config.frozen_signatures
        )
        self.codes = nn.Parameter(torch.randn(u, config.code_dim))
        self.locs = nn.ModuleList(
            LineOfCode(
                config.dim,
                config.code_dim,
                heads=config.heads,
                head_dim=config.head_dim,
                mlp_mult=config.mlp_mult,
            )
            for _ in range(config.locs)
        )

    @property
    def n_functions(self) -> int:
        return self.signatures.shape[0]

    def iterate(
        self, x: torch.Tensor, token_mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One function iteration: x (B, V, d) -> (new x (B, V, d), routing C (B, U, V))."""
        routing = self.kernel(self.signatures, self.type_inference(x), token_mask)
        h = x
        for loc in self.locs:
            h = loc(h, self.codes, routing)
        update = torch.einsum("buv,buvd->bvd", routing, h - x.unsqueeze(1))
        return x + update, routing

    def forward(
        self, x: torch.Tensor, token_mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """x (B, V, d) -> (x after every iteration, the routing of each iteration)."""
        routings = []
        for _ in range(self.iterations):
            x, routing = self.iterate(x, token_mask)
            routings.append(routing)
        return x, routings

    def add_functions(self, n: int) -> None:
        """Append ``n`` functions with random signatures and codes (new Parameters: build
        the optimiser after this)."""
        if n < 1:
            raise ValueError(f"add at least one function, got {n}")
        dev = self.codes.device
        new_sig = torch.randn(n, self.signatures.shape[1], device=dev)
        new_code = torch.randn(n, self.codes.shape[1], device=dev)
        self.signatures = nn.Parameter(
            torch.cat([self.signatures.data, new_sig]),
            requires_grad=self.signatures.requires_grad,
        )
        self.codes = nn.Parameter(torch.cat([self.codes.data, new_code]))

    def remove_functions(self, indices: Sequence[int]) -> None:
        """Drop the functions at ``indices`` (new Parameters: build the optimiser after this)."""
        drop = set(indices)
        bad = sorted(i for i in drop if not 0 <= i < self.n_functions)
        if bad:
            raise ValueError(f"no functions {bad}: this script has {self.n_functions}")
        keep = [i for i in range(self.n_functions) if i not in drop]
        if not keep:
            raise ValueError("cannot remove every function of a script")
        self.signatures = nn.Parameter(
            self.signatures.data[keep], requires_grad=self.signatures.requires_grad
        )
        self.codes = nn.Parameter(self.codes.data[keep])


class NeuralInterpreter(nn.Module):
    """Tokens (B, V, input_dim) -> outputs (B, n_cls * n_outputs) read from the CLS tokens.

    The forward signature is the NAC's, so the trainer treats both alike; ``conditioning`` is
    not read (a Neural Interpreter has no circuit generator). With ``return_circuit`` it also
    returns the routing, (B, steps, U, V) with steps = n_scripts * iterations (CLS tokens
    first among the V), and None.

    Parameters
    ----------
    config
        The architecture (``NIConfig``).
    """

    def __init__(self, config: NIConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Linear(config.input_dim, config.dim)
        self.cls_tokens = nn.Parameter(torch.randn(config.n_cls, config.dim) * 0.02)
        self.scripts = nn.ModuleList(Script(config) for _ in range(config.n_scripts))
        self.head_norm = nn.LayerNorm(config.dim)
        self.head = nn.Linear(config.dim, config.n_outputs)

    def forward(
        self,
        inputs: torch.Tensor,
        conditioning: torch.Tensor | None = None,
        *,
        input_mask: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
        return_circuit: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor, None]:
        del conditioning, conditioning_mask
        batch = inputs.shape[0]
        n_cls = self.cls_tokens.shape[0]
        x = torch.cat([self.cls_tokens.expand(batch, -1, -1), self.embed(inputs)], dim=1)
        token_mask = None
        if input_mask is not None:
            token_mask = torch.cat([input_mask.new_ones(batch, n_cls), input_mask], dim=1)
        routings: list[torch.Tensor] = []
        for script in self.scripts:
            x, steps = script(x, token_mask)
            routings += steps
        outputs = self.head(self.head_norm(x[:, :n_cls])).reshape(batch, -1)
        if not return_circuit:
            return outputs
        return outputs, torch.stack(routings, dim=1), None

    def structure_loss(self, routing: torch.Tensor) -> torch.Tensor:
        """No regulariser on the routing: 0 (the trainer adds every model's structure loss)."""
        return routing.new_zeros(())

    def signature_parameters(self) -> list[nn.Parameter]:
        """Every script's function signatures (frozen unless ``frozen_signatures=False``)."""
        return [script.signatures for script in self.scripts]

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def set_cls_tokens(self, n: int) -> None:
        """Replace the CLS tokens by ``n`` new ones (adapting to new outputs); a new Parameter."""
        self.cls_tokens = nn.Parameter(
            torch.randn(n, self.config.dim, device=self.cls_tokens.device) * 0.02
        )
        self.config.n_cls = n
