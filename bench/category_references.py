"""What the 5-NN category accuracies of `bench/pair_circuits.py` mean: the same measure on
representations that need no trained model.

On the gold-annotated NLVR2 dev sentences with exactly one category (the categories with at
least 5 of them, as `pair_circuits.py` measures P), 5-NN accuracy (5-fold; at --seed and as the
mean over it and the 4 seeds after it, folds reshuffled) of the category from:

- ``sentence``: the frozen MiniLM embedding of the sentence (`pair_circuits.py`'s
  ``knn_sentence``);
- ``skeleton``: the MiniLM embedding of the sentence's skeleton under the pair world's
  vocabulary (colours, sizes, poses and counted nouns out, nouns as "thing"): what the split
  generator's signature queries read, pooled;
- ``tagger``: the rule-based tagger's categories (`circuitlab.data.tagger`) as a 0/1 vector,
  ties broken by a jitter of 1e-3 drawn from the seed: what the sentence's words tell by rule;
- ``majority``: the share of the most frequent category.

    python bench/category_references.py [--seed 0]

Rows go to bench/results/category_references.csv.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import kept_categories, write_table

from circuitlab.analysis.embedding import knn_accuracy, sentence_embeddings
from circuitlab.data.nlvr import read_annotations
from circuitlab.data.tagger import tag_all
from circuitlab.worlds.pair_world import split_vocabulary
from circuitlab.worlds.sentence_parts import skeleton

NAME = "category_references"
REPEATS = 5


def tagger_vectors(texts: list[str], seed: int) -> np.ndarray:
    """(N, categories): 1 where the tagger tags the category, plus a jitter that breaks ties."""
    tags = tag_all(texts)
    names = sorted({t for ts in tags for t in ts})
    x = np.array([[name in ts for name in names] for ts in tags], dtype=float)
    return x + 1e-3 * np.random.default_rng(seed).normal(size=x.shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of the folds and the jitter")
    args = parser.parse_args()
    gold = read_annotations()
    single = gold[gold["categories"].map(len) == 1]
    texts, y, counts = kept_categories(
        list(single["sentence"]), [c[0] for c in single["categories"]]
    )
    vocabulary = split_vocabulary()
    features = {
        "sentence": lambda seed: sentence_embeddings(texts),
        "skeleton": lambda seed: sentence_embeddings([skeleton(t, vocabulary) for t in texts]),
        "tagger": lambda seed: tagger_vectors(texts, seed),
    }
    rows = []
    for name, make in features.items():
        seeds = range(args.seed, args.seed + REPEATS)
        scores = [knn_accuracy(make(s), y, 5, s) for s in seeds]
        rows.append(
            {
                "representation": name,
                "knn": scores[0],
                "knn_mean": float(np.mean(scores)),
                "knn_sd": float(np.std(scores, ddof=1)),
            }
        )
    share = counts.max() / len(y)
    rows.append({"representation": "majority", "knn": share, "knn_mean": share, "knn_sd": 0.0})
    for row in rows:
        row.update(sentences=len(y), classes=len(counts), seed=args.seed)
    header = "5-NN category accuracy of NLVR2 gold single-category sentences, no model"
    write_table(rows, NAME, header)


if __name__ == "__main__":
    main()
