"""Do sentence circuits cluster by reasoning category? (paper Fig. 6, re-measured small.)

On the NLVR2 store of the shipped conditional NAC (`make demo` writes it), scores how well the
reasoning categories separate -- 5-nearest-neighbour accuracy (5-fold) and silhouette, on the
circuits with exactly one tagged category -- in the circuits' t-SNE map, in the PCA of their
link probabilities, and in the sentence embeddings the generator read (the baseline). Writes the
CSV and docs/figures/embedding_by_category.png (``--name``: bench/results/categories_NAME.csv and
docs/figures/embedding_by_category_NAME.png, for another model's store, such as the pair-world
model's `stores/pairs/nlvr2`).

    python bench/categories.py [--store stores/nlvr/nlvr2] [--name NAME]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from common import FIGURES, write_table

from circuitlab.analysis.embedding import category_separation, embed
from circuitlab.analysis.figures import embedding_figure, save_figure
from circuitlab.store import CircuitStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="stores/nlvr/nlvr2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", help="suffix of the CSV and figure names (default: none)")
    args = parser.parse_args()
    suffix = f"_{args.name}" if args.name else ""
    if not Path(args.store, "store.json").is_file():
        raise SystemExit(f"no circuit store at {args.store}; run `make demo` first to write it")
    store = CircuitStore.open(args.store)
    embedding = embed(store, "tsne", seed=args.seed)
    table = category_separation(store, embedding, seed=args.seed)
    write_table(
        table.to_dict("records"),
        f"categories{suffix}",
        f"{args.store}: reasoning-category separation (5-NN accuracy, 5-fold; silhouette)",
    )
    (path,) = save_figure(
        embedding_figure(store, embedding),
        FIGURES,
        f"embedding_by_category{suffix}",
        formats=("png",),
        dpi=110,  # ~1,400 px wide: readable in the docs, small in the repository
    )
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
