"""A Modular Network's layer that runs only the picked modules, against the dense one that runs
all M on every input: forward-pass time, medians of interleaved repeats, side by side in one
run. Goal (issue 63): the sparse layer >= 2x faster than the dense one at M = 8, K = 1.

Cases: dense modules (linear maps and two-layer MLPs, 256 features) and 3x3 convolution modules
(32 channels on 16 x 16 maps), each at M = 8 and 16 with K = 1 and 2; each pick drawn uniformly
(a balanced controller: every module gets about B K / M inputs). Run it with nothing else
running.

    python bench/mn_sparse.py [--repeats 30]

Writes bench/results/mn_sparse.csv.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from common import machine, write_table

from circuitlab.mn.layers import ConvModules, DenseModules, ModularLayer, selection_mask

BATCH = {"linear": 512, "mlp": 512, "conv": 128}


def pool_of(kind: str, n_modules: int) -> tuple[torch.nn.Module, tuple[int, ...]]:
    """The pool of ``kind`` with ``n_modules`` modules and the shape of one input."""
    if kind == "linear":
        return DenseModules(n_modules, 256, 256), (256,)
    if kind == "mlp":
        return DenseModules(n_modules, 256, 256, hidden=256), (256,)
    return ConvModules(n_modules, 32, 32), (32, 16, 16)


@torch.no_grad()
def time_case(kind: str, n_modules: int, k: int, repeats: int) -> dict:
    """Median ms of a forward pass, sparse and dense, the two alternating run by run."""
    torch.manual_seed(0)
    pool, shape = pool_of(kind, n_modules)
    batch = BATCH[kind]
    x = torch.randn(batch, *shape)
    picks = torch.stack([torch.randperm(n_modules)[:k] for _ in range(batch)])
    gates = selection_mask(picks, n_modules)
    layers = {
        "sparse": ModularLayer(pool, 1, n_modules, 1, noisy=False, sparse=True),
        "dense": ModularLayer(pool, 1, n_modules, 1, noisy=False, sparse=False),
    }
    torch.testing.assert_close(layers["sparse"](x, gates), layers["dense"](x, gates))
    times: dict[str, list[float]] = {name: [] for name in layers}
    for _ in range(repeats):
        for name, layer in layers.items():
            start = time.perf_counter()
            layer(x, gates)
            times[name].append(1000 * (time.perf_counter() - start))
    sparse_ms, dense_ms = (statistics.median(times[n]) for n in ("sparse", "dense"))
    return {
        "modules": kind,
        "M": n_modules,
        "K": k,
        "batch": batch,
        "dense_ms": dense_ms,
        "sparse_ms": sparse_ms,
        "speedup": dense_ms / sparse_ms,
        "machine": machine(torch.device("cpu")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    rows = [
        time_case(kind, n_modules, k, args.repeats)
        for kind in ("linear", "mlp", "conv")
        for n_modules in (8, 16)
        for k in (1, 2)
    ]
    write_table(rows, "mn_sparse", "Modular Network layer: sparse against dense (ms, median)")


if __name__ == "__main__":
    main()
