"""NAC against Perceiver IO at equal size: circuitlab's NAC, circuitlab's Perceiver IO
configuration (NACConfig.perceiver_io: dense kernel, no ModFC) and the perceiver-pytorch
package's PerceiverIO (the peer users would pick; `pip install -e .[bench]`).

Equal latents (= processor modules), width, depth, heads, head width, feed-forward (GEGLU, 4x)
and input, batch 64. circuitlab's models embed the input tokens at the module width (128) by
default, where the peer's cross-attention reads them at their own width (32); the "tokens 32
wide" rows set NACConfig.read_in.token_dim to the input width, the peer's read-in width.

Reports the median train-step time (forward, cross-entropy, backward, AdamW), inference
throughput, peak memory of a train step (fresh process each), parameters, and each model's
ratio to the peer. Issue 6's goal: NAC train step <= 1.2x the peer's.
``--compile`` adds the NAC and both Perceiver IOs under torch.compile (a minute or so each to
compile on 2 CPU cores), still measured against the eager peer, and prints the compiled ratios;
their memory is left blank (a compiled model's first step is mostly the compiler).

    python bench/nac_vs_pio.py [--repeats 7] [--device auto] [--tokens 256] [--modules 128]
                               [--compile]
"""

from __future__ import annotations

import argparse
import importlib.util

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
from circuitlab.config_groups import ReadInConfig
from circuitlab.device import pick_device

BATCH = 64
NARROW_SUFFIX = f"tokens {INPUT_DIM} wide"
NARROW = f"NAC (circuitlab), {NARROW_SUFFIX}"


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
    # the peer's cross-attention reads the inputs at their own width (INPUT_DIM); circuitlab's
    # tokenizer embeds them at the module width unless token_dim says otherwise
    NARROW: lambda size: NAC(NACConfig(**size, read_in=ReadInConfig(token_dim=INPUT_DIM))),
    f"Perceiver IO (circuitlab), {NARROW_SUFFIX}": lambda size: NAC(
        NACConfig.perceiver_io(**size, token_dim=INPUT_DIM)
    ),
    # where a NAC's extra time goes: each of its two parts alone
    "  PIO + ModFC only": lambda size: NAC(NACConfig.perceiver_io(**size, modfc=True)),
    "  PIO + SKMDPA only": lambda size: NAC(NACConfig(**size, modfc=False)),
}
PEER = "PerceiverIO (perceiver-pytorch)"
COMPILED = ["NAC (circuitlab)", "Perceiver IO (circuitlab)", PEER]  # the --compile rows


def _model(name: str, modules: int, compiled: bool) -> nn.Module:
    torch.manual_seed(0)
    model = MODELS[name](shape(modules))
    return torch.compile(model) if compiled else model


def _label(name: str, compiled: bool) -> str:
    return f"{name} [compiled]" if compiled else name


def build_train_step(
    name: str, tokens: int, modules: int, compiled: bool = False, *, device: torch.device
):
    """One training step of model ``name`` on a fixed random batch, as a callable; the first
    call compiles when ``compiled``."""
    return random_batch_train_step(_model(name, modules, compiled), BATCH, tokens, device)


def build_inference(
    name: str, tokens: int, modules: int, compiled: bool = False, *, device: torch.device
):
    model = _model(name, modules, compiled).to(device).eval()
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
    parser.add_argument("--compile", action="store_true", help="add torch.compile'd rows")
    args = parser.parse_args()
    if importlib.util.find_spec("perceiver_pytorch") is None:
        raise SystemExit(
            "bench/nac_vs_pio.py measures against the perceiver-pytorch package, which is not "
            "installed: pip install -e '.[bench]'"
        )
    device = pick_device(args.device)
    n, u = args.tokens, args.modules
    variants = [(name, False) for name in MODELS]
    variants += [(name, True) for name in COMPILED] if args.compile else []
    # the warm-up calls of interleaved_medians do the compiling, outside the timed rounds
    train = interleaved_medians(
        {_label(*v): build_train_step(v[0], n, u, v[1], device=device) for v in variants},
        device,
        repeats=args.repeats,
    )
    infer = interleaved_medians(
        {_label(*v): build_inference(v[0], n, u, v[1], device=device) for v in variants},
        device,
        repeats=args.repeats,
    )
    rows = []
    for name, compiled in variants:
        label = _label(name, compiled)
        # a compiled model's first step is the compiler's: its peak says nothing of the model
        memory = None if compiled else step_peak_memory(build_train_step, (name, n, u), device)[0]
        rows.append(
            {
                "model": label,
                "params": sum(p.numel() for p in MODELS[name](shape(u)).parameters()),
                "train_step_ms": 1000 * train[label],
                "train_vs_peer": train[label] / train[PEER],
                "infer_samples_per_s": BATCH / infer[label],
                "infer_vs_peer": infer[PEER] / infer[label],
                "step_peak_mib": None if memory is None else memory / 2**20,
                "memory_vs_peer": None,
            }
        )
    peer_memory = next(r["step_peak_mib"] for r in rows if r["model"] == PEER)
    for row in rows:
        if row["step_peak_mib"] is not None:
            row["memory_vs_peer"] = row["step_peak_mib"] / peer_memory
    write_table(
        rows,
        f"nac_vs_pio_{device.type}" + ("_compiled" if args.compile else ""),
        f"batch {BATCH}, {n} tokens x {INPUT_DIM} features, {u} latents/processors, "
        f"width 128, depth 4, 4 heads x 32; medians of {args.repeats}; {machine(device)}",
    )
    nac = "NAC (circuitlab)"
    pairs = [(nac, PEER), (NARROW, PEER)]
    if args.compile:
        pairs += [(_label(nac, True), PEER), (_label(nac, True), _label(PEER, True))]
    for mine, peer in pairs:
        ratio = train[mine] / train[peer]
        verdict = "met" if ratio <= 1.2 else "not met"
        print(f"goal {mine} train step <= 1.2x {peer}'s: {ratio:.2f}x, {verdict}")


if __name__ == "__main__":
    main()
