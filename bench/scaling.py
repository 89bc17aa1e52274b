"""How a NAC's training step scales with input tokens N and with modules U, and how much of
the machine's matmul rate its forward pass achieves.

1. N = 64 .. 4096 (U fixed): train-step time and peak memory; a least-squares line of time
   against N and its R^2 (goal: linear).
2. U = 64 .. 1024 (N fixed): train-step time and peak memory (goal: U = 1024 fits in 8 GiB
   on CPU), each U timed in fresh processes under three CPU allocator settings: glibc's
   default, circuitlab.device.keep_freed_memory (what `circuitlab train` applies on the CPU),
   and that plus torch's THP_MEM_ALLOC_ENABLE=1 (2 MiB pages for large tensors).
3. Forward FLOPs (torch.utils.flop_counter) / forward time, against torch's own rate for one
   large matmul on the same device (goal: >= 40 %); ``--compile`` adds the compiled forward.

    python bench/scaling.py [--repeats 3] [--batch 16] [--device auto] [--flops-only] [--compile]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import torch
from common import (
    INPUT_DIM,
    interleaved_medians,
    machine,
    nac_size,
    random_batch_train_step,
    step_in_fresh_process,
    step_peak_memory,
    write_table,
)
from torch.utils.flop_counter import FlopCounterMode
from tqdm import tqdm

from circuitlab import NAC, NACConfig
from circuitlab.device import pick_device

TOKENS = (64, 128, 256, 512, 1024, 2048, 4096)
MODULES = (64, 128, 256, 512, 1024)
FIXED_TOKENS, FIXED_MODULES = 256, 128
MEMORY_GOAL = 8 * 2**30
# CPU allocator settings of the modules axis: name -> (keep_freed_memory, THP_MEM_ALLOC_ENABLE)
ALLOCATORS = {"default": (False, False), "kept": (True, False), "kept + THP": (True, True)}


def config(modules: int) -> NACConfig:
    return NACConfig(**nac_size(modules))


def build_train_step(batch: int, tokens: int, modules: int, *, device: torch.device):
    torch.manual_seed(0)
    return random_batch_train_step(NAC(config(modules)), batch, tokens, device)


def _row(axis: str, allocator: str, tokens: int, modules: int, seconds: float, peaks) -> dict:
    extra, total = peaks
    return {
        "axis": axis,
        "allocator": allocator,
        "tokens": tokens,
        "modules": modules,
        "train_step_ms": 1000 * seconds,
        "step_peak_mib": extra / 2**20,
        "process_peak_mib": total / 2**20,
    }


def tokens_row(batch: int, tokens: int, device: torch.device, repeats: int) -> dict:
    """A train step with ``tokens`` input tokens, timed in this process; its peak memory in a
    fresh one."""
    step = build_train_step(batch, tokens, FIXED_MODULES, device=device)
    seconds = interleaved_medians({"step": step}, device, repeats=repeats)["step"]
    peaks = step_peak_memory(build_train_step, (batch, tokens, FIXED_MODULES), device)
    return _row("tokens", "default", tokens, FIXED_MODULES, seconds, peaks)


def modules_row(
    batch: int, modules: int, allocator: str, device: torch.device, repeats: int
) -> dict:
    """A train step with ``modules`` processors timed in a fresh process under ``allocator``;
    process_peak_mib is the peak over all its steps (kept memory grows it after the first)."""
    keep_freed, thp = ALLOCATORS[allocator]
    previous = os.environ.get("THP_MEM_ALLOC_ENABLE")
    os.environ["THP_MEM_ALLOC_ENABLE"] = "1" if thp else "0"  # the spawned child reads it
    try:
        seconds, *peaks = step_in_fresh_process(
            build_train_step,
            (batch, FIXED_TOKENS, modules),
            device,
            repeats=repeats,
            keep_freed=keep_freed,
        )
    finally:
        if previous is None:
            del os.environ["THP_MEM_ALLOC_ENABLE"]
        else:
            os.environ["THP_MEM_ALLOC_ENABLE"] = previous
    return _row("modules", allocator, FIXED_TOKENS, modules, seconds, peaks)


def matmul_rate(device: torch.device, size: int = 2048, repeats: int = 5) -> float:
    """FLOP/s of torch's float32 matmul on ``device`` (median of ``repeats``)."""
    a, b = (torch.randn(size, size, device=device) for _ in range(2))
    seconds = interleaved_medians({"mm": lambda: a @ b}, device, repeats=repeats)["mm"]
    return 2 * size**3 / seconds


def forward_efficiency(
    batch: int, device: torch.device, repeats: int, compiled: bool = False
) -> list[dict]:
    """Achieved FLOP/s of the NAC forward pass (FLOPs counted on the eager model), eager and,
    with ``compiled``, under torch.compile (timed side by side; the warm-up compiles)."""
    torch.manual_seed(0)
    model = NAC(config(FIXED_MODULES)).to(device).eval()
    inputs = torch.randn(batch, FIXED_TOKENS, INPUT_DIM, device=device)
    with FlopCounterMode(display=False) as counter:  # with autograd on: the counter's module
        model(inputs)  # hooks fail on a parameter returned as is under no_grad
    flops = counter.get_total_flops()

    runners = {"eager": model, **({"compiled": torch.compile(model)} if compiled else {})}

    def forward(runner: torch.nn.Module):
        def run() -> None:
            with torch.no_grad():
                runner(inputs)

        return run

    steps = {name: forward(runner) for name, runner in runners.items()}
    seconds = interleaved_medians(steps, device, repeats=repeats)
    peak = matmul_rate(device)
    return [
        {
            "forward": name,
            "forward_gflop": flops / 1e9,
            "forward_ms": 1000 * seconds[name],
            "achieved_gflops": flops / seconds[name] / 1e9,
            "matmul_gflops": peak / 1e9,
            "fraction_of_matmul": flops / seconds[name] / peak,
        }
        for name in runners
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--flops-only", action="store_true", help="only part 3")
    parser.add_argument("--compile", action="store_true", help="part 3: a compiled row too")
    args = parser.parse_args()
    device, b = pick_device(args.device), args.batch
    if not args.flops_only:
        train_scaling(b, device, args.repeats)
    efficiency = forward_efficiency(b, device, args.repeats, compiled=args.compile)
    write_table(
        efficiency,
        f"scaling_flops_{device.type}",
        f"NAC forward, batch {b}, {FIXED_TOKENS} tokens, U = {FIXED_MODULES}: achieved FLOP/s "
        f"against one 2048x2048 float32 matmul; {machine(device)}",
    )
    for row in efficiency:
        fraction = row["fraction_of_matmul"]
        met = "met" if fraction >= 0.4 else "not met"
        print(f"goal >= 40 % of the matmul rate, {row['forward']}: {fraction:.0%}, {met}")


def train_scaling(b: int, device: torch.device, repeats: int) -> None:
    header = f"NAC train step, batch {b}, width 128, depth 4; {machine(device)}"

    rows = [tokens_row(b, n, device, repeats) for n in tqdm(TOKENS, desc="tokens axis")]
    allocators = list(ALLOCATORS) if device.type == "cpu" else ["default"]
    for u in tqdm(MODULES, desc="modules axis"):
        for allocator in allocators:  # the settings take turns at each U
            rows.append(modules_row(b, u, allocator, device, repeats))
    table = write_table(rows, f"scaling_{device.type}", header)

    by_tokens = table[table["axis"] == "tokens"]
    x, y = by_tokens["tokens"].to_numpy(float), by_tokens["train_step_ms"].to_numpy()
    slope, intercept = np.polyfit(x, y, 1)
    r2 = 1 - np.sum((y - (slope * x + intercept)) ** 2) / np.sum((y - y.mean()) ** 2)
    print(
        f"time against tokens: {intercept:.1f} ms + {slope * 1000:.2f} ms per 1000 tokens, "
        f"R^2 = {r2:.4f} (goal: linear)"
    )
    by_modules = table[table["axis"] == "modules"]
    biggest = by_modules[by_modules["modules"] == max(MODULES)]
    for _, row in biggest.iterrows():
        fits = row["process_peak_mib"] * 2**20 <= MEMORY_GOAL
        print(
            f"U = {row['modules']} train step, {row['allocator']} allocator: "
            f"{row['train_step_ms']:.0f} ms, process peak {row['process_peak_mib']:.0f} MiB "
            f"(goal <= 8 GiB: {'met' if fits else 'not met'})"
        )


if __name__ == "__main__":
    main()
