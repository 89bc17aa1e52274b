"""What the generated worlds' grammars share: reasoning categories, quantities and the loop
that draws scenes until a sentence takes the label asked of it.

A ``Count`` is a quantity phrase ("exactly two", "at least 3", "no") with its test on a number
of objects and its categories; ``quantity`` makes one of a kind, ``random_quantity`` one of a
random kind. ``balanced_scene`` is how both worlds balance labels per sentence.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = [
    "ALL",
    "COMPARE",
    "COORD",
    "COREF",
    "Count",
    "EXISTS",
    "HARD",
    "NOT",
    "PRESUPPOSITION",
    "SOFT",
    "SPATIAL",
    "article",
    "balanced_scene",
    "both_labels_common",
    "distinct_sentences",
    "quantity",
    "random_quantity",
]

# the reasoning categories, named as in NLVR2's annotations
HARD = "hard cardinality"
SOFT = "soft cardinality"
EXISTS = "existential quantifier"
ALL = "universal quantifier"
SPATIAL = "spatial relation"
COORD = "coordination"
COMPARE = "comparison"
NOT = "negation"
COREF = "coreference"
PRESUPPOSITION = "presupposition"

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
QUANTITY_KINDS = (
    "exists",
    "exactly",
    "bare",
    "at_least",
    "at_most",
    "more_than",
    "fewer_than",
    "several",
    "no",
)


@dataclass(frozen=True)
class Count:
    """A quantity: its words (used before a plural noun unless ``singular``), a test on the
    number of objects, and its categories.

    Parameters
    ----------
    words, holds, singular, categories
        As above.
    """

    words: str
    holds: Callable[[int], bool]
    singular: bool
    categories: frozenset[str]


def number_word(rng: random.Random, n: int) -> str:
    """``n`` as a digit (35 %) or a word, as NLVR's writers mix them."""
    return str(n) if rng.random() < 0.35 else NUMBER_WORDS[n]


def quantity(rng: random.Random, kind: str, n: int) -> Count:
    """A quantity of ``kind`` (one of ``QUANTITY_KINDS``) about ``n``.

    Parameters
    ----------
    rng
        The random stream drawn from.
    kind
        The kind of quantity (``QUANTITY_KINDS``).
    n
        The number it is about.
    """
    num = number_word(rng, n)
    if kind == "exists":
        return Count("a", lambda k: k >= 1, True, frozenset({EXISTS}))
    if kind == "exactly":
        if n == 1:
            words = rng.choice(["exactly one", "only one", "exactly 1"])
            return Count(words, lambda k: k == 1, True, frozenset({HARD}))
        return Count(f"exactly {num}", lambda k: k == n, False, frozenset({HARD}))
    if kind == "bare":
        return Count(num, lambda k: k == n, n == 1, frozenset({HARD}))
    if kind == "at_least":
        return Count(f"at least {num}", lambda k: k >= n, n == 1, frozenset({SOFT}))
    if kind == "at_most":
        words = rng.choice(["at most", "no more than"])
        return Count(f"{words} {num}", lambda k: k <= n, n == 1, frozenset({SOFT}))
    if kind == "more_than":
        return Count(f"more than {num}", lambda k: k > n, n == 1, frozenset({SOFT}))
    if kind == "fewer_than":
        return Count(f"fewer than {num}", lambda k: k < n, False, frozenset({SOFT}))
    if kind == "several":  # NLVR2's "multiple dogs": two or more
        words = rng.choice(["multiple", "several"])
        return Count(words, lambda k: k >= 2, False, frozenset({SOFT}))
    if kind == "no":
        return Count("no", lambda k: k == 0, rng.random() < 0.5, frozenset({NOT}))
    raise ValueError(f"unknown quantity kind {kind!r}; known: {QUANTITY_KINDS}")


def random_quantity(rng: random.Random, kinds: list[str], low: int = 1, high: int = 4) -> Count:
    """A quantity of a kind drawn from ``kinds`` about a number drawn from [low, high].

    Parameters
    ----------
    rng
        The random stream drawn from.
    kinds
        The kinds drawn from.
    low, high
        The numbers drawn from.
    """
    return quantity(rng, rng.choice(kinds), rng.randint(low, high))


def article(words: str, noun: str) -> str:
    """ "a" before a consonant, "an" before a vowel; other words unchanged.

    Parameters
    ----------
    words
        The words after the article.
    noun
        The noun they describe.
    """
    return "an" if words == "a" and noun[:1] in "aeiou" else words


SceneT = TypeVar("SceneT")


def balanced_scene(
    rng: random.Random,
    holds: Callable[[SceneT], bool],
    draw: Callable[[random.Random], SceneT],
    wanted: bool,
    tries: int,
) -> SceneT | None:
    """The first of up to ``tries`` scenes from ``draw`` on which ``holds`` gives ``wanted``;
    None when none does.

    Parameters
    ----------
    rng
        The random stream drawn from.
    holds
        The sentence's test.
    draw
        Draws a scene.
    wanted
        The label wanted.
    tries
        Scenes drawn at most.
    """
    for _ in range(tries):
        scene = draw(rng)
        if holds(scene) == wanted:
            return scene
    return None


class _Texted(Protocol):
    text: str


SentenceT = TypeVar("SentenceT", bound=_Texted)


def distinct_sentences(
    n: int,
    seed: int,
    draw: Callable[[random.Random], SentenceT],
    usable: Callable[[SentenceT, random.Random], bool],
    exclude: frozenset[str] = frozenset(),
) -> list[SentenceT]:
    """``n`` sentences of distinct text (none in ``exclude``) from ``draw`` that ``usable``
    accepts, deterministically from ``seed`` (both calls share one random stream).

    Parameters
    ----------
    n, seed, exclude
        As above.
    draw
        Draws a sentence.
    usable
        Whether a sentence may be used (``both_labels_common``, say).
    """
    rng = random.Random(seed)
    pool: dict[str, SentenceT] = {}
    for _ in range(50 * n + 1000):
        if len(pool) == n:
            return list(pool.values())
        sentence = draw(rng)
        if sentence.text in pool or sentence.text in exclude:
            continue
        if usable(sentence, rng):
            pool[sentence.text] = sentence
    raise ValueError(f"could not draw {n} distinct sentences; ask for fewer")


def both_labels_common(
    holds: Callable[[SceneT], bool],
    draw: Callable[[random.Random], SceneT],
    rng: random.Random,
    tries: int = 60,
) -> bool:
    """Whether scenes from ``draw`` make a sentence true, and false, at least 3 times in
    ``tries`` each (about 5 %): rarer labels would cost many scene draws per example.

    Parameters
    ----------
    holds
        The sentence's test.
    draw
        Draws a scene.
    rng
        The random stream drawn from.
    tries
        Scenes drawn per label.
    """
    true = sum(holds(draw(rng)) for _ in range(tries))
    return 3 <= true <= tries - 3
