"""Module-level step builders for tests/test_bench_common.py (a spawned child imports them)."""

import torch


def build_allocating_step(mib: int, *, device: torch.device):
    """A step that fills a fresh ``mib`` MiB tensor (every page touched) and drops it."""

    def step() -> None:
        torch.ones(mib * 2**18, device=device).sum()

    return step
