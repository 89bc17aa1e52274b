"""ModularNetwork: modular layers whose modules a controller picks per input (Kirsch et al. 2018).

The circuit of an input is its path, the K modules picked in each of the L layers. Training
methods (Viterbi EM, REINFORCE, noisy top-k) live in ``circuitlab.mn.training``; this module
runs the network on a given path, on the controller's argmax path or on sampled paths.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from circuitlab.mn.config import MNConfig
from circuitlab.mn.layers import (
    ConvControllerFeatures,
    ConvModules,
    DenseModules,
    ModularLayer,
    selection_mask,
)

__all__ = ["ModularCircuit", "ModularNetwork", "path_log_prob"]

# pick(layer, logits (B, n_categoricals, M), x) -> (selection (B, K) long, gates (B, M))
Pick = Callable[[int, torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]


@dataclass
class ModularCircuit:
    """The circuits of a batch: ``paths`` (B, L, K) module indices; ``logits`` (B, L, C, M), the
    controllers' logits (C = K categoricals; 1 gate for top-k), whose softmax over the last
    axis is the controllers' probabilities.

    Parameters
    ----------
    paths, logits
        As above.
    """

    paths: torch.Tensor
    logits: torch.Tensor

    @property
    def probabilities(self) -> torch.Tensor:
        return self.logits.softmax(-1)


class ModularNetwork(nn.Module):
    """A Modular Network. Inputs (B, input_dim) (or any (B, ...) with input_dim numbers per row;
    read as (B, C, H, W) with ``image_shape``); outputs (B, n_outputs): logits, or the
    regression's predictions.

    Parameters
    ----------
    config
        The architecture and training method (``MNConfig``).
    """

    metric_names = ("h_a", "h_b")  # logged per training step: circuitlab.mn.diagnostics

    def __init__(self, config: MNConfig) -> None:
        super().__init__()
        self.config = c = config
        categoricals = 1 if c.method == "topk" else c.n_select
        noisy = c.method == "topk"
        self.layers = nn.ModuleList()
        if c.image_shape is not None:
            channels, height, width = c.image_shape
            for _ in range(c.n_layers):
                pool = ConvModules(c.n_modules, channels, c.width)
                features = None
                controller_in = channels * height * width
                if c.controller == "conv":
                    features = ConvControllerFeatures(channels, c.controller_channels)
                    controller_in = features.out_features
                layer = ModularLayer(
                    pool, controller_in, c.n_modules, categoricals, noisy, c.sparse, features
                )
                self.layers.append(layer)
                channels, height, width = c.width, -(-height // 2), -(-width // 2)
            features = channels * height * width
        else:
            features = c.input_dim
            for i in range(c.n_layers):
                last = i == c.n_layers - 1 and not c.head
                out = c.n_outputs if last else c.width
                pool = DenseModules(c.n_modules, features, out, c.module_hidden)
                self.layers.append(
                    ModularLayer(pool, features, c.n_modules, categoricals, noisy, c.sparse)
                )
                features = out
        self.head = nn.Linear(features, c.n_outputs) if c.head else None
        if c.method == "em":
            # a*: the best path found so far for every training example, drawn uniformly at
            # start; a buffer, so checkpoints carry it and --resume restores it
            table = torch.randint(c.n_modules, (c.n_examples, c.n_layers, c.n_select))
            self.register_buffer("best_paths", table)
        if c.method == "reinforce":
            # moving average of the reward log p(y | x, a); NaN until the first batch sets it
            self.register_buffer("reward_baseline", torch.tensor(float("nan")))

    def _after_layer(self, h: torch.Tensor, index: int) -> torch.Tensor:
        if self.config.image_shape is not None:
            return F.relu(F.max_pool2d(h, 2, ceil_mode=True))
        last = index == len(self.layers) - 1 and self.head is None
        return h if last else F.relu(h)

    def run(self, inputs: torch.Tensor, pick: Pick) -> tuple[torch.Tensor, ModularCircuit]:
        """Run the network, ``pick`` choosing each layer's modules from its controller's logits:
        (outputs (B, n_outputs), the circuit)."""
        x = inputs.reshape(inputs.shape[0], -1)
        if self.config.image_shape is not None:
            x = x.view(x.shape[0], *self.config.image_shape)
        selections, all_logits = [], []
        for index, layer in enumerate(self.layers):
            logits = layer.logits(x)
            selection, gates = pick(index, logits, x)
            x = self._after_layer(layer(x, gates), index)
            selections.append(selection)
            all_logits.append(logits)
        out = self.head(x.flatten(1)) if self.head is not None else x
        return out, ModularCircuit(torch.stack(selections, 1), torch.stack(all_logits, 1))

    def pick_given(self, paths: torch.Tensor) -> Pick:
        """Follow ``paths`` (B, L, K)."""
        return lambda i, logits, x: (
            paths[:, i],
            selection_mask(paths[:, i], self.config.n_modules),
        )

    def pick_argmax(self) -> Pick:
        """The controller's most likely modules (evaluation): each categorical's argmax, or for
        top-k gating the K largest logits with their softmax weights."""
        if self.config.method == "topk":
            return lambda i, logits, x: self._top_k(logits[:, 0])
        return lambda i, logits, x: self.select(logits.argmax(-1))

    def pick_sample(self) -> Pick:
        """Modules drawn from the controller's categoricals (torch's global random stream)."""
        return lambda i, logits, x: self.select(
            torch.distributions.Categorical(logits=logits).sample()
        )

    def select(self, selection: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """A pick of modules (B, K) with its 0/1 gates (B, M)."""
        return selection, selection_mask(selection, self.config.n_modules)

    def _top_k(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, M) gate logits -> (top-K indices (B, K), gates (B, M)): the softmax over all M
        kept at the top K and zero elsewhere. Not renormalised over the K, so that with K = 1
        the gate's gradient still reaches the controller."""
        selection = logits.topk(self.config.n_select, dim=-1).indices
        probabilities = logits.softmax(-1)
        return selection, probabilities * selection_mask(selection, self.config.n_modules)

    def pick_noisy_top_k(self) -> Pick:
        """Noisy top-k gating (training): logits + N(0, 1) * softplus(W_noise x), then top-k."""

        def pick(index: int, logits: torch.Tensor, x: torch.Tensor) -> Any:
            noise = torch.randn_like(logits[:, 0]) * self.layers[index].noise_scale(x)
            return self._top_k(logits[:, 0] + noise)

        return pick

    def forward(
        self,
        inputs: torch.Tensor,
        conditioning: torch.Tensor | None = None,
        *,
        input_mask: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
        return_circuit: bool = False,
        paths: torch.Tensor | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, ModularCircuit, None]:
        """Outputs (B, n_outputs) on the controller's argmax path (or on ``paths`` (B, L, K)).
        With ``return_circuit``: (outputs, circuit, None), as a NAC returns."""
        if conditioning is not None:
            raise ValueError("a Modular Network reads no conditioning: train it unconditional")
        pick = self.pick_argmax() if paths is None else self.pick_given(paths)
        out, circuit = self.run(inputs, pick)
        return (out, circuit, None) if return_circuit else out

    def log_likelihood(self, outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """log p(y | x, a) per example (B,): minus the cross-entropy, or for a regression
        -|y - f|^2 / (2 likelihood_std^2) (the Gaussian's constant left out)."""
        if self.config.objective == "regression":
            scale = 2 * self.config.likelihood_std**2
            return -((outputs - targets.to(outputs.dtype)) ** 2).sum(-1) / scale
        return -F.cross_entropy(outputs, targets, reduction="none")

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def path_log_prob(logits: torch.Tensor, paths: torch.Tensor) -> torch.Tensor:
    """log p(a | x) (B,) of ``paths`` (B, L, K) under the controllers' ``logits`` (B, L, K, M):
    the K categoricals of each layer are independent.

    Parameters
    ----------
    logits
        (B, L, C, M) the controllers' logits.
    paths
        (B, L, K) paths.
    """
    return logits.log_softmax(-1).gather(-1, paths.unsqueeze(-1)).squeeze(-1).sum((1, 2))
