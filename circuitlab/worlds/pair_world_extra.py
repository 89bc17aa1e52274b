"""Phrasings NLVR2 dev's writers use that the pair world's base grammar
(``circuitlab.worlds.pair_world``) does not produce, as extra sentence forms for training pools.

Each was counted in NLVR2 *dev*'s 2,004 distinct sentences (never test1), e.g.:

- presupposition, "the dog in the image on the right is ..." (60 sentences) and "in the left
  image, the dog is ..." (about 20), where the base grammar only says "the dog in the left image
  is ..." (24);
- image references the base grammar lacks: "an image" (90), "the image to the left" (15),
  "one of the two images", "each of the images" (9), "the left photo", "both pictures".

The logical forms are the base grammar's (the same forms, other words), so the labels and
categories follow as they do there. ``random_pair_extra_sentence`` draws one of them as
``random_pair_sentence`` draws from the base grammar; ``circuitlab.worlds.tasks.pairs.PairWorldTask(
extra_pool_size=...)`` adds such sentences to the training pool only, so validation, the held-out
nouns and every number measured on them stay the base grammar's.

``random_pair_disjunction`` draws a logic the base grammar lacks: two clauses joined by "or",
half of them in NLVR2's "one image ..., or the other ..." (``PairWorldTask(
disjunction_pool_size=...)``, training pool only too).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial

from circuitlab.data.pair_scenes import IMAGES
from circuitlab.worlds.pair_world import (
    COORD,
    REF_WORDS,
    PairSentence,
    RefWords,
    SentenceForm,
    _image_contains,
    _one_and_other,
    _pronoun,
    _the_one,
    random_pair_sentence,
)

__all__ = ["random_pair_disjunction", "random_pair_extra_sentence"]

EXTRA_REF_WORDS: RefWords = {
    **{
        side: [
            (f"the image on the {side}", False),
            (f"the image to the {side}", False),
            (f"the {side} photo", False),
            (f"the {side} picture", False),
        ]
        for side in IMAGES
    },
    "one": [("an image", False), ("one of the two images", False), ("one picture", False)],
    "each": [("each of the images", False), ("both pictures", True), ("each picture", False)],
    "neither": REF_WORDS["neither"],
}


def _placed_words(rng: random.Random, noun: str, side: str, predicate: str) -> str:
    """ "The dog in the image on the right is ...", "In the left image, the dog is ..." """
    place = rng.choice(
        [f"the image on the {side}", f"the image to the {side}", f"the {side} image"]
    )
    if place != f"the {side} image" and rng.random() < 0.6:
        return f"The {noun} in {place} is {predicate}"
    comma = "," if rng.random() < 0.7 else ""
    return f"In {place}{comma} the {noun} is {predicate}"


EXTRA_PAIR_FORMS: list[tuple[float, SentenceForm]] = [
    (2, partial(_the_one, say=_placed_words)),
    (2, partial(_image_contains, words=EXTRA_REF_WORDS)),
    (1, partial(_pronoun, words=EXTRA_REF_WORDS)),
]


def random_pair_extra_sentence(rng: random.Random, nouns: Sequence[str]) -> PairSentence:
    """A sentence about ``nouns`` in one of the extra phrasings.

    Parameters
    ----------
    rng
        The random stream drawn from.
    nouns
        The nouns it is about.
    """
    return random_pair_sentence(rng, nouns, EXTRA_PAIR_FORMS)


def _disjunction(rng: random.Random, nouns: tuple[str, str]) -> PairSentence:
    """Two clauses joined by "or", true when either is: "the left image contains two dogs, or
    one image shows a cat". The base grammar joins clauses by "and" only, so a model trained on
    it never reads "or" (the connective minimal pairs, "and the other" -> "or the other", move
    its P less than a noun swap in 71 % of NLVR2 dev's pairs)."""
    first, second = _image_contains(rng, nouns), _image_contains(rng, nouns)
    text = f"{first.text}, or {second.text[0].lower()}{second.text[1:]}"
    return PairSentence(
        text,
        lambda s: first.holds(s) or second.holds(s),
        first.nouns + second.nouns,
        first.categories | second.categories | {COORD},
    )


# NLVR2's own disjunction is "one image ... or the other ..." (the connective minimal pairs
# rewrite "and the other" to "or the other"): drawn as often as the clauses joined above
DISJUNCTION_FORMS: list[tuple[float, SentenceForm]] = [
    (1, _disjunction),
    (1, partial(_one_and_other, conjunction="or")),
]


def random_pair_disjunction(rng: random.Random, nouns: Sequence[str]) -> PairSentence:
    """A sentence about ``nouns``: two of the base grammar's clauses joined by "or".

    Parameters
    ----------
    rng
        The random stream drawn from.
    nouns
        The nouns it is about.
    """
    return random_pair_sentence(rng, nouns, DISJUNCTION_FORMS)
