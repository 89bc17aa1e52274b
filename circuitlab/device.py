"""Device choice: CUDA when present, else CPU, overridable by name."""

from __future__ import annotations

import torch


def pick_device(name: str | None = "auto") -> torch.device:
    """``"auto"`` (or None) -> cuda if available else cpu; otherwise ``torch.device(name)``."""
    if name in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but CUDA is not available; use --device cpu")
    return device
