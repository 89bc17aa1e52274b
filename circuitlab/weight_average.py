"""An exponential moving average of a model's weights, kept beside training (``ema_decay``).

After each optimiser step ``update`` moves every parameter of the average towards the trained
model's: ``avg <- decay * avg + (1 - decay) * w``; the first update copies them, so the average
starts where the run starts (a warm start included). Buffers are state, not learned weights
(counters, a Modular Network's path table and reward baseline, fixed targets): they are copied
as they are. With decay d the average spans about 1 / (1 - d) steps.
"""

from __future__ import annotations

import copy
from typing import Any

import torch


class WeightAverage:
    """The averaged copy of ``model`` (``self.model``, its own parameters, never trained)."""

    def __init__(self, model: torch.nn.Module, decay: float) -> None:
        if not 0.0 < decay < 1.0:
            raise ValueError(f"ema_decay must lie in (0, 1), got {decay}")
        self.decay = decay
        self.model = copy.deepcopy(model).eval()
        self.model.requires_grad_(False)
        self.updates = 0

    @torch.no_grad()
    def update(self, model: torch.nn.Module) -> None:
        """Fold ``model``'s current weights (same architecture) into the average."""
        trained = dict(model.named_parameters())
        for name, average in self.model.named_parameters():
            if self.updates == 0:
                average.copy_(trained[name])
            else:
                average.lerp_(trained[name], 1.0 - self.decay)
        trained_buffers = dict(model.named_buffers())
        for name, buffer in self.model.named_buffers():
            buffer.copy_(trained_buffers[name])
        self.updates += 1

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps: the averaged weights and how many updates made them."""
        return {"weights": self.model.state_dict(), "updates": self.updates}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["weights"])
        self.updates = state["updates"]
