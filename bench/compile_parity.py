"""Does inductor's compiled training step compute eager's numbers? A small NAC trained the same
steps eagerly and with ``compile=True`` (torch.compile's default backend, inductor), from one
seed: the largest difference in each logged loss and in each final weight, and the compiled
run's wall time (its first step compiles, into a fresh inductor cache: what a new machine pays).

    python bench/compile_parity.py [--steps 6]

The test suite checks the same path traced with the aot_eager backend (no C++ code generation,
seconds instead of minutes); this is the inductor half. Kernel samples: inductor draws random
numbers from its own generator unless ``fallback_random`` is set, so the bench sets it, as a
user comparing the two would. Writes bench/results/compile_parity.csv.
"""

from __future__ import annotations

import argparse
import csv
import os
import tempfile
from pathlib import Path

import torch
import torch._inductor.config
from common import write_table

from circuitlab.train import TrainConfig, train

MODEL = dict(
    n_processors=8,
    n_readouts=2,
    dim=32,
    depth=1,
    heads=2,
    head_dim=8,
    code_dim=8,
    sig_dim=8,
    generator_dim=32,
)
LOSSES = ("loss", "structure_loss", "val_loss")


def config(steps: int, compiled: bool) -> TrainConfig:
    return TrainConfig(
        steps=steps,
        eval_every=max(steps // 2, 1),
        eval_size=64,
        checkpoint_every=steps,
        warmup_steps=2,
        batch_size=16,
        device="cpu",
        compile=compiled,
        model=dict(MODEL),
    )


def logged(run: Path) -> list[dict]:
    with (run / "metrics.csv").open() as f:
        return list(csv.DictReader(f))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    torch._inductor.config.fallback_random = True
    with tempfile.TemporaryDirectory() as folder:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(Path(folder) / "inductor-cache")
        eager, compiled = Path(folder) / "eager", Path(folder) / "compiled"
        train(config(args.steps, False), eager, progress=False)
        summary = train(config(args.steps, True), compiled, progress=False)
        loss_gap = max(
            abs(float(a[key]) - float(b[key]))
            for a, b in zip(logged(eager), logged(compiled), strict=True)
            for key in LOSSES
            if a[key]
        )
        weights_a = torch.load(eager / "checkpoint.pt", weights_only=True)["model"]
        weights_b = torch.load(compiled / "checkpoint.pt", weights_only=True)["model"]
        weight_gap = max((weights_a[k] - weights_b[k]).abs().max().item() for k in weights_a)
    write_table(
        [
            {
                "steps": args.steps,
                "backend": "inductor",
                "max_loss_gap": f"{loss_gap:.2e}",
                "max_weight_gap": f"{weight_gap:.2e}",
                "compiled_run_s": round(summary["wall_time_s"], 1),
                "torch": torch.__version__,
            }
        ],
        "compile_parity",
        "Inductor's compiled training step against eager, one seed",
    )


if __name__ == "__main__":
    main()
