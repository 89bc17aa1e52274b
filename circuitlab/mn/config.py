"""MNConfig: every architectural and training-method choice of a Modular Network."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from circuitlab.config_fields import check_fields, from_dict

__all__ = ["MNConfig"]

METHODS = ("em", "reinforce", "topk")
CONTROLLERS = ("linear", "conv")
OBJECTIVES = ("classification", "regression")


@dataclass
class MNConfig:
    """Architecture and training method of a Modular Network (Kirsch, Kunze and Barber, 2018).

    ``n_layers`` modular layers, each a pool of ``n_modules`` modules (M) of which a controller
    picks ``n_select`` (K) per input; the layer's output is the sum of the picked modules' (a
    module picked twice counts once). Dense modules map ``width`` features (a linear map, or an
    MLP with ``module_hidden`` units); with ``image_shape`` (C, H, W) the modules are 3x3
    convolutions to ``width`` channels, each layer followed by 2x2 max-pooling and a ReLU, as in
    the authors' CIFAR-10 example. ``head``: a (non-modular) linear readout after the last layer;
    without it the last layer's modules output the ``n_outputs`` numbers themselves.

    ``method``: "em" (generalised Viterbi EM over a table of one best path per training example,
    ``n_examples`` rows), "reinforce" (paths sampled from the controller, score-function
    gradient with a moving-average baseline) or "topk" (noisy top-k gating, Shazeer et al.
    2017). ``balance_weight`` adds ``weight * (log M - H_b)`` (the batch's selection entropy,
    ``circuitlab.mn.diagnostics``) to the controller's loss: the balancing term of the
    REINFORCE baseline (0: none). ``sparse``: each module runs only on the inputs that picked
    it (``ModularLayer``; False: every module on every input, the same sums).

    ``controller``: "linear" (a linear map of the layer's flattened input, as the authors'
    code) or, with ``image_shape``, "conv" (``ConvControllerFeatures``: a 3x3 convolution to
    ``controller_channels`` maps, ReLU, pooled to 2 x 2, then the linear map).

    Parameters
    ----------
    input_dim
        Features per input (the flattened image's, with ``image_shape``).
    image_shape
        (C, H, W) of image inputs (None: vectors).
    n_outputs
        Numbers the network outputs (classes, or regression targets).
    objective
        "regression" or "classification" (set by the task).
    n_layers, n_modules, n_select, width, module_hidden, head
        The modular layers, as above.
    method, n_examples, balance_weight, sparse
        How paths are trained, as above.
    e_step_every, e_step_samples
        Viterbi EM: the E-step runs on every ``e_step_every``-th minibatch (before its M-step)
        and scores the example's best path against ``e_step_samples - 1`` paths drawn from the
        controller.
    likelihood_std
        Regression: log p(y | x, a) = -|y - f(x; a)|^2 / (2 likelihood_std^2) (+ a constant).
    reinforce_baseline_decay
        Decay of REINFORCE's moving-average baseline.
    controller, controller_channels
        The controller, as above.
    """

    input_dim: int = 2
    image_shape: list[int] | None = None
    n_outputs: int = 2
    objective: str = "regression"
    n_layers: int = 1
    n_modules: int = 2
    n_select: int = 1
    width: int = 32
    module_hidden: int | None = None
    head: bool = False
    method: str = "em"
    n_examples: int = 0
    e_step_every: int = 1
    e_step_samples: int = 10
    likelihood_std: float = 0.1
    balance_weight: float = 0.0
    reinforce_baseline_decay: float = 0.9
    sparse: bool = True
    controller: str = "linear"
    controller_channels: int = 8

    def __post_init__(self) -> None:
        if isinstance(self.image_shape, tuple):
            self.image_shape = list(self.image_shape)
        check_fields(self)
        if self.image_shape is not None and not self.head:
            raise ValueError(
                "MNConfig.head must be true with image_shape: convolution modules output "
                "feature maps, which a linear read-out turns into the n_outputs (-m head=true)"
            )
        if self.image_shape is not None:
            self.image_shape = [int(v) for v in self.image_shape]
            if len(self.image_shape) != 3 or self.input_dim != math.prod(self.image_shape):
                raise ValueError(
                    f"MNConfig.image_shape must be (C, H, W) with C*H*W == input_dim "
                    f"({self.input_dim}), got {self.image_shape}"
                )
        for name in ("input_dim", "n_outputs", "n_layers", "n_modules", "n_select", "width"):
            if getattr(self, name) < 1:
                raise ValueError(f"MNConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.method not in METHODS:
            raise ValueError(f"MNConfig.method must be one of {METHODS}, got {self.method!r}")
        if self.controller not in CONTROLLERS:
            raise ValueError(
                f"MNConfig.controller must be one of {CONTROLLERS}, got {self.controller!r}"
            )
        if self.controller == "conv" and self.image_shape is None:
            raise ValueError(
                "MNConfig.controller 'conv' reads feature maps: it needs image_shape (C, H, W); "
                "use controller 'linear' for vector inputs"
            )
        if self.controller_channels < 1:
            raise ValueError(
                f"MNConfig.controller_channels must be >= 1, got {self.controller_channels}"
            )
        if self.objective not in OBJECTIVES:
            raise ValueError(
                f"MNConfig.objective must be one of {OBJECTIVES}, got {self.objective!r}"
            )
        if self.method == "topk" and self.n_select >= self.n_modules:
            raise ValueError(
                f"top-k gating picks n_select < n_modules, got {self.n_select} of {self.n_modules}"
            )
        if self.method == "em" and self.n_examples < 1:
            raise ValueError(
                "Viterbi EM keeps one best path per training example: n_examples must be the "
                "size of a finite training set (the trainer fills it from the task)"
            )
        if self.e_step_every < 1 or self.e_step_samples < 2:
            raise ValueError(
                "MNConfig.e_step_every must be >= 1 and e_step_samples >= 2 (the best path and "
                f"at least one sample), got {self.e_step_every} and {self.e_step_samples}"
            )
        if self.likelihood_std <= 0 or self.balance_weight < 0:
            raise ValueError(
                "MNConfig.likelihood_std must be > 0 and balance_weight >= 0, got "
                f"{self.likelihood_std} and {self.balance_weight}"
            )
        if not 0 <= self.reinforce_baseline_decay < 1:
            raise ValueError(
                f"reinforce_baseline_decay must be in [0, 1), got {self.reinforce_baseline_decay}"
            )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> MNConfig:
        return from_dict(cls, values)
