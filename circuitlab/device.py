"""Device choice (CUDA when present, else CPU, overridable by name) and the CPU allocator
setting that keeps large freed tensors for reuse."""

from __future__ import annotations

import ctypes
import platform

import torch

__all__ = ["keep_freed_memory", "pick_device"]


def pick_device(name: str | None = "auto") -> torch.device:
    """``"auto"`` (or None) -> cuda if available else cpu; otherwise ``torch.device(name)``.

    Parameters
    ----------
    name
        As above.
    """
    if name in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but CUDA is not available; use --device cpu")
    return device


# glibc mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_KEEP_AT_MOST = 2**30  # trim the heap only when this much lies free at its top


def keep_freed_memory() -> bool:
    """Have glibc keep the memory torch frees on the CPU and hand it out again, process-wide.

    By default glibc gives every allocation above 32 MiB its own mapping and returns it to the
    operating system on free, so the next step's tensor of the same size is faulted in again a
    page at a time. A NAC's attention maps, (batch, heads, U, U) floats, pass 32 MiB at U = 512
    with batch 16, and there the faults take a large share of a CPU training step
    (bench/scaling.py measures it). Afterwards, every allocation comes from malloc's heap and
    freed memory stays with the process: faster steps, a higher resident peak.

    Returns True when applied; False, changing nothing, where the C library is not glibc.
    ``circuitlab train`` calls it when it trains on the CPU.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL("libc.so.6")
    no_mmap = libc.mallopt(_M_MMAP_MAX, 0)
    no_trim = libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_AT_MOST)
    return bool(no_mmap and no_trim)
