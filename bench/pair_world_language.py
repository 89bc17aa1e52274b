"""How close is the pair world's language to NLVR2's? (issue "NLVR2 in the generator's own
language", part 2.)

- word coverage: the share of the running words of the 800 gold-annotated NLVR2 dev sentences
  that some generated sentence uses, for the pair world (its grammar over all ``world_nouns``)
  and, as the baseline, the shapes world the shipped model reads;
- category mix: the share of sentences in each reasoning category, for NLVR2's 800 gold
  sentences (gold labels and the rule-based tagger's) and for generated sentences (the
  grammar's exact categories and the tagger's).

    python bench/pair_world_language.py [--sentences 20000]

Rows go to bench/results/pair_world_language.csv; docs/results.md quotes them. It also draws
the user guide's example (``PairWorld().example(seed=7)``) to docs/figures/pair_world_example.png.
"""

from __future__ import annotations

import argparse
import random

import pandas as pd
from common import FIGURES, pipe_table, write_table

from circuitlab.analysis import pair_figure, save_figure
from circuitlab.data.nlvr import CATEGORIES, read_annotations
from circuitlab.data.tagger import tag_all
from circuitlab.worlds.nlvr2_vocab import word_coverage
from circuitlab.worlds.pair_world import PairWorld, random_pair_sentence, world_nouns
from circuitlab.worlds.world import random_sentence

NAME = "pair_world_language"
EXAMPLE_SEED = 7  # the user guide's example


def category_shares(categories: list[list[str]] | list[frozenset[str]]) -> pd.Series:
    """The share of sentences carrying each category in ``CATEGORIES``."""
    counts = pd.Series(0.0, index=list(CATEGORIES))
    for cats in categories:
        for c in cats:
            counts[c] += 1
    return counts / len(categories)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    gold = read_annotations()
    rng = random.Random(args.seed)
    nouns = [f.singular for f in world_nouns()]
    pair = [random_pair_sentence(rng, nouns) for _ in range(args.sentences)]
    shapes = [random_sentence(rng) for _ in range(args.sentences)]
    pair_texts = [s.text for s in pair]
    gold_texts = list(gold["sentence"])

    coverage = {
        "pair world": word_coverage(pair_texts, gold_texts),
        "shapes world": word_coverage([s.text for s in shapes], gold_texts),
    }
    shares = pd.DataFrame(
        {
            "nlvr2_gold": category_shares(list(gold["categories"])),
            "nlvr2_tagger": category_shares(tag_all(gold_texts)),
            "pair_grammar": category_shares([s.categories for s in pair]),
            "pair_tagger": category_shares(tag_all(pair_texts)),
            "shapes_grammar": category_shares([s.categories for s in shapes]),
        }
    )
    rows = [
        {"measure": f"word coverage of the 800 gold sentences: {name}", "value": round(v, 3)}
        for name, v in coverage.items()
    ]
    rows += [
        {"measure": f"category share: {category} ({column})", "value": round(share, 3)}
        for category, values in shares.iterrows()
        for column, share in values.items()
    ]
    write_table(rows, NAME, f"pair world language ({args.sentences} generated sentences)")
    print()
    print(pipe_table(shares, index=True))

    example = PairWorld().example(seed=EXAMPLE_SEED)
    figure = pair_figure(example.scene, example.sentence, example.label)
    (path,) = save_figure(figure, FIGURES, "pair_world_example", formats=("png",), dpi=110)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
