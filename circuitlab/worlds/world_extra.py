"""Phrasings NLVR dev's writers use that the world's base grammar (``circuitlab.worlds.world``)
cannot produce, as extra sentence forms for training pools.

Each form was read off NLVR *dev* sentences (never test), e.g.:

- "there is at least 1 yellow item in each box": the universal after the noun (``_in_each``);
- "there is a box with only two items of black and yellow color", "there is a tower which has
  only two blocks": "only N" meaning exactly N (``_only_n``);
- "there is 1 tower with blocks of all 3 colours", "there is a box with 3 items of all 3
  different colors": every colour present (``_all_colours``);
- "there are 2 boxes with only black and yellow items": a counted number of boxes with only
  some colours (``_boxes_only``).

``random_extra_sentence`` draws one of them as ``random_sentence`` draws from the base grammar;
``circuitlab.worlds.tasks.nlvr.NLVRWorld(extra_pool_size=...)`` adds such sentences to the training
pool only, so validation (and every held-out world number) stays the base grammar's.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from circuitlab.data.nlvr import COLOURS
from circuitlab.worlds.grammar import ALL, COORD, HARD, Count, quantity, random_quantity
from circuitlab.worlds.world import (
    COLOUR_WORDS,
    Forms,
    Noun,
    Placed,
    Scene,
    Sentence,
    _counted,
    _noun,
    _phrase,
    _there_is,
    sentence_from_forms,
)

__all__ = ["random_extra_sentence"]

COLOUR_WORD_FORMS = ("colors", "colours", "different colors")


def _groups(scene: Scene, towers: bool) -> list[list[Placed]]:
    """The scene's boxes (scattered) or towers (one a box; empty boxes left out)."""
    return [list(box) for box in scene.placed if box or not towers]


def _group_words(rng: random.Random, towers: bool) -> tuple[str, str]:
    if towers:
        return "tower", "towers"
    return rng.choice([("box", "boxes"), ("box", "boxes"), ("grey box", "grey boxes")])


def _counted_groups(
    rng: random.Random, towers: bool, has: Callable[[list[Placed]], bool]
) -> tuple[str, Callable[[Scene], bool], Count]:
    """ "There is a box" / "There is 1 tower" / "There are 2 boxes", its test (how many of the
    scene's groups ``has`` holds for) and its quantity."""
    count = random_quantity(rng, ["exists", "exists", "exists", "bare", "exactly"], 1, 2)
    singular, plural = _group_words(rng, towers)
    noun = Noun(singular, plural, lambda p: True)
    intro = f"{_there_is(count)} {_phrase(count, noun)}"
    return intro, lambda s: count.holds(sum(map(has, _groups(s, towers)))), count


def _with(rng: random.Random, groups: Count) -> str:
    """ "with" or "which has"/"which have" after the counted ``groups`` (NLVR dev: "there is a
    tower which has ...")."""
    if rng.random() < 0.6:
        return "with"
    return "which has" if groups.singular else "which have"


def _in_each(rng: random.Random, towers: bool) -> Sentence:
    """There is at least 1 yellow item in each box / There are blue squares in every box."""
    count = random_quantity(rng, ["exists", "exists", "at_least", "exactly", "bare"], 1, 2)
    noun = _noun(rng, towers, relation=0.1)
    if count.words == "a" and rng.random() < 0.5:  # "there are yellow items in each box"
        count = Count("", count.holds, False, count.categories)
    phrase = _phrase(count, noun).strip()
    place = rng.choice(["each", "each", "every"]) + " " + _group_words(rng, towers)[0]
    return Sentence(
        f"{_there_is(count)} {phrase} in {place}",
        lambda s: all(_counted(count, noun, g) for g in _groups(s, towers)),
        count.categories | noun.categories | {ALL},
        towers,
    )


def _colour_list(rng: random.Random, most: int = 2) -> tuple[list[str], str]:
    colours = rng.sample(COLOURS, min(most, rng.choice([1, 2, 2])))
    return colours, " and ".join(COLOUR_WORDS[c] for c in colours)


def _only_n(rng: random.Random, towers: bool) -> Sentence:
    """There is a box with only 2 items / only two items of black and yellow color / a tower
    which has only three black blocks: "only N" is exactly N (of those colours)."""
    n = rng.randint(1, 4 if towers else 5)
    count = quantity(rng, "bare", n)
    head = rng.choice(["block", "block", "square"]) if towers else rng.choice(["item", "object"])
    plural = head if n == 1 else head + "s"
    colours: list[str] = []
    kind = rng.choice(["plain", "coloured", "of_colours"])
    if kind == "plain":
        words = f"{count.words} {plural}"
    else:
        colours, names = _colour_list(rng, most=n)
        words = (
            f"{count.words} {names} {plural}"
            if kind == "coloured"
            else f"{count.words} {plural} of {names} {rng.choice(['color', 'colour'])}"
        )

    def has(group: list[Placed]) -> bool:
        return len(group) == n and all(not colours or p.colour in colours for p in group)

    intro, holds, groups = _counted_groups(rng, towers, has)
    categories = groups.categories | {HARD} | ({ALL} if colours else set())
    if len(colours) > 1:
        categories |= {COORD}
    return Sentence(
        f"{intro} {_with(rng, groups)} only {words}",
        holds,
        frozenset(categories),
        towers,
    )


def _all_colours(rng: random.Random, towers: bool) -> Sentence:
    """There is a box with items of all 3 different colors / There is 1 tower with blocks of
    all three colours / There is a box with 3 items of all 3 different colors."""
    head = "blocks" if towers else rng.choice(["items", "objects", "shapes"])
    three = rng.choice(["3", "three"])
    colour_words = rng.choice(COLOUR_WORD_FORMS)
    n = rng.choice([None, None, 3, 4])
    size = f"{n} " if n else ""

    def has(group: list[Placed]) -> bool:
        return {p.colour for p in group} == set(COLOURS) and (n is None or len(group) == n)

    intro, holds, groups = _counted_groups(rng, towers, has)
    categories = groups.categories | {ALL} | ({HARD} if n else set())
    return Sentence(
        f"{intro} {_with(rng, groups)} {size}{head} of all {three} {colour_words}",
        holds,
        frozenset(categories),
        towers,
    )


def _boxes_only(rng: random.Random) -> Sentence:
    """There are 2 boxes with only black and yellow items / There is 1 box with only black
    items (the base grammar says only "There is a box with only ...")."""
    colours, names = _colour_list(rng)

    def has(group: list[Placed]) -> bool:
        return bool(group) and all(p.colour in colours for p in group)

    intro, holds, groups = _counted_groups(rng, False, has)
    head = rng.choice(["items", "objects", "shapes"])
    categories = groups.categories | {ALL} | ({COORD} if len(colours) > 1 else set())
    return Sentence(f"{intro} with only {names} {head}", holds, frozenset(categories), False)


EXTRA_SCATTERED_FORMS: Forms = [
    (1, lambda r: _in_each(r, False)),
    (1, lambda r: _only_n(r, False)),
    (1, lambda r: _all_colours(r, False)),
    (1, _boxes_only),
]
EXTRA_TOWER_FORMS: Forms = [
    (1, lambda r: _in_each(r, True)),
    (1, lambda r: _only_n(r, True)),
    (1, lambda r: _all_colours(r, True)),
]


def random_extra_sentence(rng: random.Random, towers: bool | None = None) -> Sentence:
    """A sentence in one of the extra phrasings, about a tower scene (``towers=True``), a
    scattered one (False) or either.

    Parameters
    ----------
    rng
        The random stream drawn from.
    towers
        As above.
    """
    return sentence_from_forms(rng, towers, EXTRA_SCATTERED_FORMS, EXTRA_TOWER_FORMS)
