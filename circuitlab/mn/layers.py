"""A modular layer: a pool of modules, and a controller that picks which of them run."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "ConvControllerFeatures",
    "ConvModules",
    "DenseModules",
    "ModularLayer",
    "selection_mask",
]


class DenseModules(nn.Module):
    """M dense modules run on every input: (B, in_features) -> (B, M, out_features). Each is a
    linear map, or with ``hidden`` units a two-layer MLP (ReLU).

    Parameters
    ----------
    n_modules
        Modules M.
    in_features, out_features
        Their widths.
    hidden
        Hidden units of an MLP module (None: a linear map).
    """

    def __init__(
        self, n_modules: int, in_features: int, out_features: int, hidden: int | None = None
    ) -> None:
        super().__init__()
        sizes = (
            [in_features, out_features] if hidden is None else [in_features, hidden, out_features]
        )
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            bound = 1.0 / math.sqrt(fan_in)  # nn.Linear's default initialisation, per module
            self.weights.append(
                nn.Parameter(torch.empty(n_modules, fan_in, fan_out).uniform_(-bound, bound))
            )
            self.biases.append(
                nn.Parameter(torch.empty(n_modules, fan_out).uniform_(-bound, bound))
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.einsum("bi,mio->bmo", x, self.weights[0]) + self.biases[0]
        for weight, bias in zip(self.weights[1:], self.biases[1:], strict=True):
            h = torch.einsum("bmi,mio->bmo", F.relu(h), weight) + bias
        return h

    def run_module(self, m: int, x: torch.Tensor) -> torch.Tensor:
        """Module ``m`` alone: (n, in_features) -> (n, out_features)."""
        h = torch.addmm(self.biases[0][m], x, self.weights[0][m])
        for weight, bias in zip(self.weights[1:], self.biases[1:], strict=True):
            h = torch.addmm(bias[m], F.relu(h), weight[m])
        return h


class ConvModules(nn.Module):
    """M 3x3 convolutions (padding 1) run on every input: (B, C, H, W) -> (B, M, width, H, W),
    computed as one convolution with M * width output channels.

    Parameters
    ----------
    n_modules
        Modules M.
    in_channels
        Their input's channels.
    width
        Their output channels.
    """

    def __init__(self, n_modules: int, in_channels: int, width: int) -> None:
        super().__init__()
        self.n_modules, self.width = n_modules, width
        self.conv = nn.Conv2d(in_channels, n_modules * width, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv(x)
        return h.view(x.shape[0], self.n_modules, self.width, *h.shape[-2:])

    def run_module(self, m: int, x: torch.Tensor) -> torch.Tensor:
        """Module ``m`` alone: (n, C, H, W) -> (n, width, H, W)."""
        rows = slice(m * self.width, (m + 1) * self.width)
        return F.conv2d(x, self.conv.weight[rows], self.conv.bias[rows], padding=1)


class ConvControllerFeatures(nn.Module):
    """The convolutional controller's view of an image layer's input: a 3x3 convolution
    (padding 1) to ``channels`` maps, ReLU, average-pooled to a ``grid`` x ``grid`` grid and
    flattened: (B, C, H, W) -> (B, channels * grid * grid). It sees local patterns wherever
    they are, with far fewer weights than a linear map of the flattened input.

    Parameters
    ----------
    in_channels
        The layer input's channels.
    channels, grid
        As above.
    """

    def __init__(self, in_channels: int, channels: int, grid: int = 2) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, kernel_size=3, padding=1)
        self.grid = grid
        self.out_features = channels * grid * grid

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.adaptive_avg_pool2d(F.relu(self.conv(x)), self.grid).flatten(1)


def selection_mask(selection: torch.Tensor, n_modules: int) -> torch.Tensor:
    """(B, K) module indices -> (B, M) float mask, 1 where a module is picked (once, however
    many of the K picks name it).

    Parameters
    ----------
    selection
        (B, K) module indices.
    n_modules
        Modules M.
    """
    return F.one_hot(selection, n_modules).amax(dim=1).to(torch.get_default_dtype())


class ModularLayer(nn.Module):
    """A pool of M modules and its controller.

    The controller is a linear map of the layer's input, flattened (or of ``features(x)``,
    e.g. ``ConvControllerFeatures``), to ``n_categoricals`` independent categoricals over the M
    modules: logits (B, n_categoricals, M). The layer's
    output is sum_m gates[b, m] * module_m(x_b): with a 0/1 selection mask, the sum of the
    picked modules. With ``noisy``, a second linear map gives the per-module noise scale of
    noisy top-k gating. With ``sparse`` (the default) a module runs only on the inputs whose
    gate for it is not 0 (its picks: about K/M of the dense pool's work); the output and its
    parameters' and the input's gradients are the dense sum's (``sparse=False``, every module on
    every input) whenever a gate is 0 through a mask, as every pick of ``circuitlab.mn`` is.

    Parameters
    ----------
    pool
        The modules (``DenseModules`` or ``ConvModules``).
    controller_in
        Features the controller reads.
    n_modules
        Modules M.
    n_categoricals
        The controller's categoricals C (modules picked, K).
    noisy
        Noisy top-k gating (``method`` "topk").
    sparse
        Run each module only on the inputs that picked it.
    features
        What the controller reads the input through (None: the input flattened).
    """

    def __init__(
        self,
        pool: nn.Module,
        controller_in: int,
        n_modules: int,
        n_categoricals: int,
        noisy: bool,
        sparse: bool = True,
        features: nn.Module | None = None,
    ) -> None:
        super().__init__()
        self.pool = pool
        # what the controller reads (B, controller_in); None: the flattened input
        self.features = features
        self.sparse = sparse
        self.n_modules, self.n_categoricals = n_modules, n_categoricals
        self.controller = nn.Linear(controller_in, n_categoricals * n_modules)
        self.noise = nn.Linear(controller_in, n_modules) if noisy else None

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """The controller's logits (B, n_categoricals, M) for the layer's input ``x``."""
        logits = self.controller(self.controller_input(x))
        return logits.view(x.shape[0], self.n_categoricals, self.n_modules)

    def controller_input(self, x: torch.Tensor) -> torch.Tensor:
        """What the controller reads of ``x``: (B, controller_in)."""
        return x.flatten(1) if self.features is None else self.features(x)

    def noise_scale(self, x: torch.Tensor) -> torch.Tensor:
        """Noisy top-k's noise standard deviation per module, softplus(W_noise x): (B, M)."""
        if self.noise is None:
            raise RuntimeError("this layer has no noise map: build it with noisy=True")
        return F.softplus(self.noise(self.controller_input(x)))

    def forward(self, x: torch.Tensor, gates: torch.Tensor) -> torch.Tensor:
        """sum_m gates[:, m] * module_m(x): (B, ...) -> (B, *module output)."""
        rows, modules = gates.nonzero(as_tuple=True)
        if not self.sparse or not len(rows):
            out = self.pool(x)  # (B, M, ...)
            return (gates.view(*gates.shape, *[1] * (out.dim() - 2)) * out).sum(1)
        # the (input, module) picks grouped by module: one gather in, one scatter out
        order = modules.argsort(stable=True)
        rows, modules = rows[order], modules[order]
        counts = torch.bincount(modules, minlength=self.n_modules).tolist()
        parts = x[rows].split(counts)
        y = torch.cat([self.pool.run_module(m, p) for m, p in enumerate(parts) if len(p)])
        y = gates[rows, modules].view(-1, *[1] * (y.dim() - 1)) * y
        return y.new_zeros((x.shape[0], *y.shape[1:])).index_add(0, rows, y)
