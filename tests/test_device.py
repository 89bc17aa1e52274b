import platform
import statistics
import subprocess
import sys

import pytest
import torch

from circuitlab.device import keep_freed_memory, pick_device

# A child process refills a fresh 64 MiB tensor (above glibc's 32 MiB mapping threshold) eight
# times to warm up, then prints the page faults of each of eight more refills. The test compares
# medians: once in a while glibc places a small allocation inside the freed block and one refill
# must fault in a new one (seen once in CI under load), which says nothing about the steady state.
_REFILL_FAULTS = """
import resource, sys, torch
from circuitlab.device import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
def refill():
    torch.empty(16 * 2**20).fill_(1.0)
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(8):
    refill()
each = []
for _ in range(8):
    before = faults()
    refill()
    each.append(faults() - before)
print(*each)
"""


def _median_refill_faults(mode: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _REFILL_FAULTS, mode], capture_output=True, text=True, check=True
    )
    return statistics.median(int(count) for count in done.stdout.split())


def test_pick_device_auto_and_by_name() -> None:
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert pick_device("auto").type == expected
    assert pick_device(None).type == expected
    assert pick_device("cpu") == torch.device("cpu")


def test_pick_device_names_the_fix_when_cuda_is_missing(monkeypatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="--device cpu"):
        pick_device("cuda")


def test_keep_freed_memory_reuses_large_blocks_instead_of_faulting_them_in() -> None:
    if platform.libc_ver()[0] != "glibc":
        assert keep_freed_memory() is False
        return
    default, kept = _median_refill_faults("default"), _median_refill_faults("keep")
    # by default each 64 MiB refill faults in its 16,384 pages again; kept, it reuses them
    assert default >= 16_000
    assert kept < default / 10


# "meta" stands for any device that is not the CPU (this machine may have no CUDA)
@pytest.mark.parametrize(("device", "keeps"), [("cpu", True), ("meta", False)])
def test_cli_train_keeps_freed_memory_only_on_the_cpu(tmp_path, monkeypatch, device, keeps):
    from typer.testing import CliRunner

    import circuitlab.device
    import circuitlab.train
    from circuitlab.cli import app

    calls, trained = [], []
    monkeypatch.setattr(circuitlab.device, "keep_freed_memory", lambda: calls.append(1))
    monkeypatch.setattr(
        circuitlab.train, "train", lambda config, out, **_: trained.append(config) or {}
    )
    result = CliRunner().invoke(app, ["train", "--out", str(tmp_path), "--device", device])
    assert result.exit_code == 0, result.output
    assert trained[0].device == device
    assert calls == ([1] if keeps else [])
