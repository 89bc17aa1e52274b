"""NAC against Perceiver IO at equal size: circuitlab's NAC, circuitlab's Perceiver IO
configuration (NACConfig.perceiver_io: dense kernel, no ModFC) and the perceiver-pytorch
package's PerceiverIO (the peer users would pick; `pip install -e .[bench]`).

Equal latents (= processor modules), width, depth, heads, head width, feed-forward (GEGLU, 4x)
and input, batch 64. Reports the median train-step time (forward, cross-entropy, backward,
AdamW), inference throughput, peak memory of a train step (fresh process each), parameters,
and each model's ratio to the peer. Issue 6's goal: NAC train step <= 1.2x the peer's.

    python bench/nac_vs_pio.py [--repeats 7] [--device auto] [--tokens 256] [--modules 128]
"""

from __future__ import annotations

import argparse

import torch
from common import (
    INPUT_DIM,
    interleaved_medians,
    machine,
    nac_size,
    random_batch_train_step,
    step_peak_memory,
    write_table,
)
from torch import nn

from circuitlab import NAC, NACConfig
from circuitlab.device import pick_device

BATCH = 64


def shape(modules: int) -> dict:
    """The shared size, with the peer's feed-forward (GEGLU, 4x): ``modules`` latents /
    processors, 4 readouts / decoder queries."""
    return nac_size(modules, ffn_mult=4, ffn_activation="geglu")


class PeerPerceiverIO(nn.Module):
    """perceiver-pytorch's PerceiverIO as a classifier: learned decoder queries (as many as
    the NAC's readouts) whose logits are averaged, like the NAC's readout modules."""

    def __init__(self, size: dict) -> None:
        super().__init__()
        from perceiver_pytorch import PerceiverIO

        self.queries = nn.Parameter(torch.randn(size["n_readouts"], size["dim"]) * 0.02)
        self.perceiver = PerceiverIO(
            depth=size["depth"],
            dim=size["input_dim"],
            queries_dim=size["dim"],
            logits_dim=size["n_classes"],
            num_latents=size["n_processors"],
            latent_dim=size["dim"],
            cross_heads=size["heads"],
            latent_heads=size["heads"],
            cross_dim_head=size["head_dim"],
            latent_dim_head=size["head_dim"],
            decoder_ff=True,
        )

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.perceiver(inputs, queries=self.queries).mean(dim=1)


MODELS = {
    "NAC (circuitlab)": lambda size: NAC(NACConfig(**size)),
    "Perceiver IO (circuitlab)": lambda size: NAC(NACConfig.perceiver_io(**size)),
    "PerceiverIO (perceiver-pytorch)": PeerPerceiverIO,
    # where a NAC's extra time goes: each of its two parts alone
    "  PIO + ModFC only": lambda size: NAC(NACConfig.perceiver_io(**size, modfc=True)),
    "  PIO + SKMDPA only": lambda size: NAC(NACConfig(**size, modfc=False)),
}
PEER = "PerceiverIO (perceiver-pytorch)"


def build_train_step(name: str, tokens: int, modules: int, *, device: torch.device):
    """One training step of model ``name`` on a fixed random batch, as a callable."""
    torch.manual_seed(0)
    return random_batch_train_step(MODELS[name](shape(modules)), BATCH, tokens, device)


def build_inference(name: str, tokens: int, modules: int, *, device: torch.device):
    torch.manual_seed(0)
    model = MODELS[name](shape(modules)).to(device).eval()
    inputs = torch.randn(BATCH, tokens, INPUT_DIM, device=device)

    def step() -> None:
        with torch.inference_mode():
            model(inputs)

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--modules", type=int, default=128)
    args = parser.parse_args()
    device = pick_device(args.device)
    n, u = args.tokens, args.modules
    train = interleaved_medians(
        {name: build_train_step(name, n, u, device=device) for name in MODELS},
        device,
        repeats=args.repeats,
    )
    infer = interleaved_medians(
        {name: build_inference(name, n, u, device=device) for name in MODELS},
        device,
        repeats=args.repeats,
    )
    rows = []
    for name, make in MODELS.items():
        memory, _ = step_peak_memory(build_train_step, (name, n, u), device)
        rows.append(
            {
                "model": name,
                "params": sum(p.numel() for p in make(shape(u)).parameters()),
                "train_step_ms": 1000 * train[name],
                "train_vs_peer": train[name] / train[PEER],
                "infer_samples_per_s": BATCH / infer[name],
                "infer_vs_peer": infer[PEER] / infer[name],
                "step_peak_mib": memory / 2**20,
                "memory_vs_peer": None,
            }
        )
    peer_memory = next(r["step_peak_mib"] for r in rows if r["model"] == PEER)
    for row in rows:
        row["memory_vs_peer"] = row["step_peak_mib"] / peer_memory
    write_table(
        rows,
        f"nac_vs_pio_{device.type}",
        f"batch {BATCH}, {n} tokens x {INPUT_DIM} features, {u} latents/processors, "
        f"width 128, depth 4, 4 heads x 32; medians of {args.repeats}; {machine(device)}",
    )
    ratio = train["NAC (circuitlab)"] / train[PEER]
    verdict = "met" if ratio <= 1.2 else "not met"
    print(f"goal NAC train step <= 1.2x the peer's: {ratio:.2f}x, {verdict}")


if __name__ == "__main__":
    main()
