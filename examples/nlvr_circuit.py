"""The circuit a trained NLVR model generates for one sentence, next to a few others.

    python examples/nlvr_circuit.py "There is a yellow block at the top of a tower"
    python examples/nlvr_circuit.py "..." --run runs/nlvr    # your own run instead

Prints the sentence's circuit (links at P > 0.5, best-connected processors) and how close its
link probabilities are to those of reference sentences of each reasoning category.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from circuitlab.loading import load_model
from circuitlab.nlvr_eval import nlvr_task

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = {
    "hard cardinality": "There are exactly two black squares.",
    "soft cardinality": "There are at least three yellow items.",
    "spatial relation": "There is a blue circle touching the edge.",
    "universal quantifier": "Each box has a black item.",
    "negation": "There is no yellow triangle.",
    "comparison": "There are more black items than blue items.",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sentence")
    parser.add_argument("--run", type=Path, default=ROOT / "checkpoints" / "nlvr")
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()

    model, config = load_model(args.run)
    task = nlvr_task(config)
    sentences = [args.sentence, *REFERENCES.values()]
    circuits = model.circuits(*task.encode_text(sentences))
    mine = circuits[0]
    p = mine.link_probability()
    n = model.config.n_processors
    graph = mine.to_networkx(args.threshold)
    print(
        f"{args.sentence!r}: {graph.number_of_edges()} links at P > {args.threshold} among "
        f"{graph.number_of_nodes()} modules"
    )
    degree = p[:n, :n].sum(1) - 1
    top = np.argsort(-degree)[:5]
    print("best-connected processors:", ", ".join(f"{i} ({degree[i]:.2f})" for i in top))
    print("correlation of its link probabilities with those of:")
    for (category, text), other in zip(REFERENCES.items(), circuits[1:], strict=True):
        q = other.link_probability()
        r = np.corrcoef(p[np.triu_indices_from(p, 1)], q[np.triu_indices_from(q, 1)])[0, 1]
        print(f"  {r:+.3f}  {category:22s} {text}")


if __name__ == "__main__":
    main()
