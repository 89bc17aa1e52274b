"""Quickstart: train a small unconditional NAC on the toy task, export its circuit, look at it.

Run: python examples/quickstart.py --out runs/quickstart [--steps 1500]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from circuitlab import CircuitStore
from circuitlab.export import export_checkpoint
from circuitlab.loading import load_model
from circuitlab.run_config import TrainConfig
from circuitlab.train import train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/quickstart"))
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--prior", default="planted_partition")
    args = parser.parse_args()

    run_dir, store_dir = args.out / "run", args.out / "store"
    # 16 processors: the default of U // 32 blocks would be a single block
    blocks = args.prior in ("planted_partition", "ring_of_cliques")
    prior_params = {"n_blocks": 2} if blocks else {}
    config = TrainConfig(
        steps=args.steps,
        eval_every=max(1, args.steps // 5),
        checkpoint_every=max(1, args.steps // 5),
        model={**TrainConfig().model, "prior": args.prior, "prior_params": prior_params},
    )
    resume = (run_dir / "checkpoint.pt").exists() and not (run_dir / "summary.json").exists()
    if not (run_dir / "summary.json").exists():
        summary = train(config, run_dir, resume=resume)
        print(f"validation accuracy {summary['val_acc']:.3f} in {summary['wall_time_s']:.0f} s")

    store = export_checkpoint(run_dir, store_dir, overwrite=True)[""]
    circuit = store[0]
    graph = circuit.to_networkx(threshold=0.5)
    print(store)
    print(f"{graph.number_of_nodes()} modules, {graph.number_of_edges()} links with P > 0.5")

    # Drop the half of the processors that are least connected; the model computes less.
    model, _ = load_model(run_dir)
    half = model.drop_modules(model.config.n_processors // 2)
    print(f"processors: {model.config.n_processors} -> {half.config.n_processors}")
    CircuitStore.open(store_dir)  # any tool can reopen the store without the model


if __name__ == "__main__":
    main()
