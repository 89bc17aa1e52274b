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

__all__ = ["WeightAverage", "check_decay"]


def check_decay(decay: float) -> None:
    """Refuse a decay outside (0, 1), naming the option (``TrainConfig.ema_decay``).

    Parameters
    ----------
    decay
        ``TrainConfig.ema_decay``.
    """
    if not 0.0 < decay < 1.0:
        raise ValueError(f"ema_decay must lie in (0, 1), got {decay}")


class WeightAverage:
    """The averaged copy of ``model`` (``self.model``, its own parameters, never trained).

    Parameters
    ----------
    model
        The model trained.
    decay
        The average's decay per step, in (0, 1).
    """

    def __init__(self, model: torch.nn.Module, decay: float) -> None:
        check_decay(decay)
        self.decay = decay
        self.model = copy.deepcopy(model).eval()
        self.model.requires_grad_(False)
        self.updates = 0

    @torch.no_grad()
    def update(self, model: torch.nn.Module) -> None:
        """Fold ``model``'s current weights (same architecture) into the average."""
        pairs = zip(self.model.parameters(), model.parameters(), strict=True)
        for average, trained in pairs:
            if self.updates == 0:
                average.copy_(trained)
            else:
                average.lerp_(trained, 1.0 - self.decay)
        for buffer, trained in zip(self.model.buffers(), model.buffers(), strict=True):
            buffer.copy_(trained)
        self.updates += 1

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps: the averaged weights and how many updates made them."""
        return {"weights": self.model.state_dict(), "updates": self.updates}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["weights"])
        self.updates = state["updates"]
