"""A seeded world of NLVR2-style image pairs and of sentences in NLVR2's style about them.

A scene is a pair of images, left and right. Each image holds up to ``MAX_OBJECTS_PER_IMAGE``
objects; an object is a noun from NLVR2's own vocabulary (``circuitlab.worlds.nlvr2_vocab``), a
colour, a size, a pose, the way it faces, a position (``x`` from the left edge to the right,
0-1; ``depth`` from the camera, 0 nearest) and, optionally, the object of its image it rests on.
Spatial relations follow from these (``RELATIONS``: left of, right of, next to, on top of, in
front of, behind).

Sentences come from a grammar written after NLVR2's dev sentences (``random_pair_sentence``):
image references ("the left image", "one image", "each image", "both images", "neither image",
"the other image", "in total"), quantities, nouns with attributes, poses and relations,
comparisons across the images, presupposing definites ("the dog in the left image is lying
down") and pronouns ("one image shows a single dog, and it is facing left"). Every phrase
carries its logical form and its reasoning categories (named as in NLVR2's annotations), so a
sentence's label is its logical form executed on the pair and its categories are the union of
its phrases'. ``PairWorld.example`` draws scenes until the sentence takes a label drawn at
random, as the shapes world does (``circuitlab.worlds.grammar.balanced_scene``); scenes are drawn
mostly from the nouns the sentence names, as NLVR2's photos were found by searching for a noun.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from circuitlab.data.pair_scenes import (
    COLOURS,
    FACINGS,
    IMAGES,
    POSES,
    SIZES,
    PairExample,
    PairObject,
    PairScene,
)
from circuitlab.worlds.grammar import (
    ALL,
    COMPARE,
    COORD,
    COREF,
    EXISTS,
    HARD,
    NOT,
    PRESUPPOSITION,
    SPATIAL,
    Count,
    article,
    balanced_scene,
    random_quantity,
)
from circuitlab.worlds.nlvr2_vocab import NounForms, object_nouns
from circuitlab.worlds.sentence_parts import Vocabulary

__all__ = [
    "HELD_OUT_EVERY",
    "N_NOUNS",
    "PairSentence",
    "PairWorld",
    "REF_WORDS",
    "RELATIONS",
    "RefWords",
    "SentenceForm",
    "noun_forms",
    "noun_split",
    "pool_nouns",
    "random_pair",
    "random_pair_sentence",
    "split_vocabulary",
    "world_nouns",
]

# objects per image, drawn uniformly from this list: mostly 1-3, now and then none
OBJECTS_PER_IMAGE = (0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6)
N_NOUNS = 60  # the most frequent counted NLVR2 nouns the world speaks of
HELD_OUT_EVERY = 6  # every sixth of them (the 6th, 12th, ...) is kept out of training
# how far apart (in image widths or depths) two objects must be for "left of", "in front of"
APART, NEAR = 0.15, 0.3
# the words NLVR2's writers use for each pose, direction and relation (the first most often)
POSE_WORDS = {
    "standing": ("standing", "standing", "standing upright", "upright"),
    "sitting": ("sitting", "sitting", "sitting down"),
    "lying": ("lying down", "lying down", "laying down", "reclining", "lying"),
}
FACING_WORDS = {
    "left": ("facing left", "facing left", "facing leftward", "turned to the left"),
    "right": ("facing right", "facing right", "facing rightward", "turned to the right"),
    "forward": ("facing the camera", "facing forward", "facing the camera"),
}
RELATION_WORDS = {
    "to the left of": ("to the left of", "to the left of", "left of"),
    "to the right of": ("to the right of", "to the right of", "right of"),
    "next to": ("next to", "next to", "beside", "near"),
    "on top of": ("on top of", "on top of", "on"),
    "in front of": ("in front of",),
    "behind": ("behind",),
}


# relations between two objects of one image: (image, index of a, index of b) -> bool
Relation = Callable[[tuple[PairObject, ...], int, int], bool]


def _left_of(image: tuple[PairObject, ...], a: int, b: int) -> bool:
    return image[a].x < image[b].x - APART


def _right_of(image: tuple[PairObject, ...], a: int, b: int) -> bool:
    return image[a].x > image[b].x + APART


def _next_to(image: tuple[PairObject, ...], a: int, b: int) -> bool:
    first, second = image[a], image[b]
    stacked = first.on == b or second.on == a
    return (
        not stacked and abs(first.x - second.x) <= NEAR and abs(first.depth - second.depth) <= NEAR
    )


def _on_top_of(image: tuple[PairObject, ...], a: int, b: int) -> bool:
    return image[a].on == b


def _in_front_of(image: tuple[PairObject, ...], a: int, b: int) -> bool:
    return image[a].depth < image[b].depth - APART


def _behind(image: tuple[PairObject, ...], a: int, b: int) -> bool:
    return image[a].depth > image[b].depth + APART


RELATIONS: dict[str, Relation] = {
    "to the left of": _left_of,
    "to the right of": _right_of,
    "next to": _next_to,
    "on top of": _on_top_of,
    "in front of": _in_front_of,
    "behind": _behind,
}


def random_image(
    rng: random.Random, nouns: Sequence[str], vocabulary: Sequence[str]
) -> tuple[PairObject, ...]:
    """Objects of one image: mostly of ``nouns`` (the first most often), some of ``vocabulary``;
    a fifth of them rest on an object placed before them."""
    objects: list[PairObject] = []
    for _ in range(rng.choice(OBJECTS_PER_IMAGE)):
        draw = rng.random()
        if nouns and draw < 0.45:
            noun = nouns[0]
        elif nouns and draw < 0.8:
            noun = rng.choice(nouns)
        else:
            noun = rng.choice(vocabulary)
        on = rng.randrange(len(objects)) if objects and rng.random() < 0.2 else None
        if on is None:
            x, depth = rng.random(), rng.random()
        else:
            below = objects[on]
            x = min(1.0, max(0.0, below.x + rng.uniform(-0.05, 0.05)))
            depth = below.depth
        objects.append(
            PairObject(
                noun,
                rng.choice(COLOURS),
                rng.choice(SIZES),
                rng.choice(POSES),
                rng.choice(FACINGS),
                round(x, 3),
                round(depth, 3),
                on,
            )
        )
    return tuple(objects)


def random_pair(rng: random.Random, nouns: Sequence[str], vocabulary: Sequence[str]) -> PairScene:
    """A pair of images drawn around ``nouns`` (see ``random_image``).

    Parameters
    ----------
    rng
        The random stream drawn from.
    nouns
        The nouns the pair is about.
    vocabulary
        The nouns its other objects are drawn from.
    """
    return PairScene(tuple(random_image(rng, nouns, vocabulary) for _ in IMAGES))


# --------------------------------------------------------------------------- grammar pieces
ObjectTest = Callable[[tuple[PairObject, ...], int], bool]  # (image, index) -> bool
PairTest = Callable[[PairScene], bool]


@dataclass(frozen=True)
class NounPhrase:
    """Objects described: text in the singular and plural, a test on (image, index), the nouns
    it names (the first its head) and its categories."""

    singular: str
    plural: str
    test: ObjectTest
    nouns: tuple[str, ...]
    categories: frozenset[str] = frozenset()

    def matches(self, image: tuple[PairObject, ...]) -> list[int]:
        return [i for i in range(len(image)) if self.test(image, i)]


@dataclass(frozen=True)
class Predicate:
    """What "is ..." says of one object: its words after "is"/"are", test, nouns, categories."""

    words: str
    test: ObjectTest
    nouns: tuple[str, ...]
    categories: frozenset[str]


@dataclass(frozen=True)
class PairSentence:
    """A sentence, its logical form (a test on pairs), the nouns it names and its categories.

    Parameters
    ----------
    text, holds, nouns, categories
        As above.
    """

    text: str
    holds: PairTest
    nouns: tuple[str, ...]
    categories: frozenset[str]

    def label(self, scene: PairScene) -> bool:
        return self.holds(scene)


def _attribute(rng: random.Random) -> tuple[str, Callable[[PairObject], bool]]:
    """A colour, a size or both, before the noun ("white", "large brown"); or nothing."""
    colour = rng.choice(COLOURS) if rng.random() < 0.45 else None
    size = rng.choice(("small", "large")) if rng.random() < 0.15 else None
    words = " ".join(w for w in (size, colour) if w)
    return (
        words,
        lambda o: (colour is None or o.colour == colour) and (size is None or o.size == size),
    )


def _other(nouns: Sequence[str], head: str) -> tuple[str, str]:
    """(main, other) for a relation's object: the noun of ``nouns`` that is not ``head``."""
    other = nouns[1] if head == nouns[0] else nouns[0]
    return other, other


def _object_predicate(
    rng: random.Random, nouns: tuple[str, str], relation: float, negation: float = 0.0
) -> Predicate:
    """Standing / lying down / facing left / next to a ball: a state or a relation whose
    object is a noun of ``nouns``; with probability ``negation`` a state is denied ("not
    standing": only where the predicate follows "is" or "are")."""
    if rng.random() < relation:
        name, relation_test = rng.choice(list(RELATIONS.items()))
        words = rng.choice(RELATION_WORDS[name])
        other = _noun_phrase(rng, nouns, modifier=0.0)

        def related(image: tuple[PairObject, ...], i: int) -> bool:
            return any(j != i and relation_test(image, i, j) for j in other.matches(image))

        return Predicate(
            f"{words} {article('a', other.singular)} {other.singular}",
            related,
            other.nouns,
            frozenset({SPATIAL}) | other.categories,
        )
    if rng.random() < 0.6:
        pose = rng.choice(POSES)
        state = Predicate(
            rng.choice(POSE_WORDS[pose]), lambda im, i: im[i].pose == pose, (), frozenset()
        )
    else:
        facing = rng.choice(FACINGS)
        # NLVR2's annotators tag directions ("facing left", "turned leftward") as spatial
        state = Predicate(
            rng.choice(FACING_WORDS[facing]),
            lambda im, i: im[i].facing == facing,
            (),
            frozenset({SPATIAL}),
        )
    if rng.random() >= negation:
        return state
    return Predicate(
        f"not {state.words}",
        lambda im, i: not state.test(im, i),
        (),
        state.categories | {NOT},
    )


def _noun_phrase(
    rng: random.Random, nouns: tuple[str, str], *, modifier: float = 0.45, relation: float = 0.6
) -> NounPhrase:
    """[size] [colour] noun [pose, facing or relation]: "large brown dogs lying down".
    ``nouns``: (main, other); the head is the main noun four times in five, and a relation's
    object is the noun the head is not."""
    main, other_noun = nouns
    noun = main if rng.random() < 0.8 else other_noun
    forms = noun_forms(noun)
    words, test = _attribute(rng)
    head_singular = f"{words} {forms.singular}".strip()
    head_plural = f"{words} {forms.plural}".strip()

    def head(image: tuple[PairObject, ...], i: int) -> bool:
        return image[i].noun == noun and test(image[i])

    if rng.random() >= modifier:
        return NounPhrase(head_singular, head_plural, head, (noun,))
    predicate = _object_predicate(rng, _other(nouns, noun), relation)
    return NounPhrase(
        f"{head_singular} {predicate.words}",
        f"{head_plural} {predicate.words}",
        lambda im, i: head(im, i) and predicate.test(im, i),
        (noun, *predicate.nouns),
        predicate.categories,
    )


def _phrase(count: Count, noun: NounPhrase) -> str:
    """ "a white dog", "exactly two bottles lying down" ..."""
    text = noun.singular if count.singular else noun.plural
    return f"{article(count.words, text)} {text}"


def _counted(count: Count, noun: NounPhrase, image: tuple[PairObject, ...]) -> bool:
    return count.holds(len(noun.matches(image)))


# image references: how a test on one image becomes a test on the pair
@dataclass(frozen=True)
class ImageRef:
    """Words naming some images ("the left image", "each image"), whether they take a plural
    verb, how a per-image test combines over the pair, and the categories they add."""

    words: str
    plural: bool
    combine: Callable[[PairScene, Callable[[tuple[PairObject, ...]], bool]], bool]
    categories: frozenset[str]


# the words of each kind of image reference, with whether they take a plural verb
RefWords = Mapping[str, Sequence[tuple[str, bool]]]
REF_WORDS: RefWords = {
    **{
        side: [(f"the {side} image", False), (f"the image on the {side}", False)] for side in IMAGES
    },
    # NLVR2's annotators tag "one image" with no category (existential is "there is")
    "one": [("one image", False), ("one of the images", False), ("at least one image", False)],
    "each": [("each image", False), ("both images", True), ("every image", False)],
    "neither": [("neither image", False), ("no image", False)],
}


def _image_ref(rng: random.Random, kinds: Sequence[str], words: RefWords = REF_WORDS) -> ImageRef:
    kind = rng.choice(kinds)
    if kind not in words:
        raise ValueError(f"unknown image reference {kind!r}")
    said, plural = rng.choice(words[kind])
    if kind in IMAGES:
        side = IMAGES.index(kind)
        return ImageRef(said, plural, lambda s, t: t(s.images[side]), frozenset())
    if kind == "one":
        return ImageRef(said, plural, lambda s, t: any(map(t, s.images)), frozenset())
    if kind == "each":
        return ImageRef(said, plural, lambda s, t: all(map(t, s.images)), frozenset({ALL}))
    return ImageRef(said, plural, lambda s, t: not any(map(t, s.images)), frozenset({NOT}))


VERBS = (
    *(("contains", "contain"), ("shows", "show"), ("includes", "include")),
    *(("has", "have"), ("features", "feature")),
)


def _verb(rng: random.Random, plural: bool) -> str:
    singular, plural_form = rng.choice(VERBS)
    return plural_form if plural else singular


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


# --------------------------------------------------------------------------- sentence forms
IMAGE_COUNTS = [
    *("exists", "exists", "exactly", "exactly", "bare", "bare"),
    *("at_least", "at_most", "more_than", "several", "no"),
]


def _image_contains(
    rng: random.Random, nouns: tuple[str, str], words: RefWords = REF_WORDS
) -> PairSentence:
    """The left image contains exactly two dogs / Each image shows a white bottle."""
    ref = _image_ref(
        rng, ["left", "right", "left", "right", "one", "one", "each", "each", "neither"], words
    )
    kinds = ["exists"] if ref.categories == {NOT} else IMAGE_COUNTS
    count, noun = random_quantity(rng, kinds), _noun_phrase(rng, nouns)
    clause = _phrase(count, noun)
    count_categories = count.categories
    there = "there is" if count.singular else "there are"
    style = rng.random()
    # NLVR2's annotators tag "there is/are" as existential, whatever the quantity
    if style < 0.25 and ref.categories != {NOT}:
        text = f"In {ref.words}, {there} {clause}"
        count_categories |= {EXISTS}
    elif style < 0.5 and ref.categories != {NOT}:
        text = f"{_capital(there)} {clause} in {ref.words}"
        count_categories |= {EXISTS}
    else:
        text = f"{_capital(ref.words)} {_verb(rng, ref.plural)} {clause}"
        count_categories -= {EXISTS}  # "contains a dog": NLVR2 tags existential on "there is"
    return PairSentence(
        text,
        lambda s: ref.combine(s, lambda image: _counted(count, noun, image)),
        noun.nouns,
        count_categories | noun.categories | ref.categories,
    )


def _total(rng: random.Random, nouns: tuple[str, str]) -> PairSentence:
    """There are exactly three dogs in total / The images combined show four bottles."""
    count = random_quantity(rng, ["exactly", "bare", "at_least", "at_most", "more_than"], 2, 6)
    noun = _noun_phrase(rng, nouns, modifier=0.2)
    phrase = _phrase(count, noun)
    style = rng.randrange(3)
    categories = count.categories | noun.categories
    if style == 0:
        where = rng.choice(["in total", "in the image pair", "across the two images"])
        text = f"There are {phrase} {where}"
    elif style == 1:
        text = f"In total, there are {phrase}"
    else:
        text = f"The images combined {rng.choice(['show', 'contain'])} {phrase}"
    if style < 2:
        categories |= {EXISTS}
    return PairSentence(
        text,
        lambda s: count.holds(sum(len(noun.matches(image)) for image in s.images)),
        noun.nouns,
        categories,
    )


def _comparison(rng: random.Random, nouns: tuple[str, str]) -> PairSentence:
    """The left image contains more dogs than the right image / same number of bottles."""
    noun = _noun_phrase(rng, nouns, modifier=0.15)
    style = rng.randrange(4)
    if style == 3:
        text = f"Both images contain the same number of {noun.plural}"
        return PairSentence(
            text,
            lambda s: len(noun.matches(s.images[0])) == len(noun.matches(s.images[1])),
            noun.nouns,
            noun.categories | {COMPARE},
        )
    more = rng.random() < 0.65
    word = "more" if more else "fewer"
    if style == 2:
        text = f"One image contains {word} {noun.plural} than the other image"

        def holds(s: PairScene) -> bool:
            a, b = (len(noun.matches(image)) for image in s.images)
            return a != b

        return PairSentence(text, holds, noun.nouns, noun.categories | {COMPARE})
    first = rng.randrange(2)
    a_side, b_side = IMAGES[first], IMAGES[1 - first]
    if style == 0:
        text = f"The {a_side} image contains {word} {noun.plural} than the {b_side} image"
    else:
        text = f"There are {word} {noun.plural} in the {a_side} image than in the {b_side} image"

    def compares(s: PairScene) -> bool:
        a = len(noun.matches(s.images[first]))
        b = len(noun.matches(s.images[1 - first]))
        return a > b if more else a < b

    return PairSentence(text, compares, noun.nouns, noun.categories | {COMPARE})


def _one_and_other(
    rng: random.Random, nouns: tuple[str, str], conjunction: str = "and"
) -> PairSentence:
    """One image shows exactly one dog, and the other image shows two dogs; with
    ``conjunction`` "or", "..., or the other image shows two dogs": true when, for one way of
    naming the images, either clause holds (the base grammar says "and" only)."""
    kinds = ["exists", "exactly", "bare", "at_least"]
    first = (random_quantity(rng, kinds, 1, 3), _noun_phrase(rng, nouns, modifier=0.25))
    second = (random_quantity(rng, kinds, 1, 3), _noun_phrase(rng, nouns, modifier=0.25))
    other = rng.choice(["the other image", "the other"])
    text = (
        f"One image {_verb(rng, False)} {_phrase(*first)}, {conjunction} {other} "
        f"{_verb(rng, False)} {_phrase(*second)}"
    )
    join = (lambda a, b: a and b) if conjunction == "and" else (lambda a, b: a or b)

    def holds(s: PairScene) -> bool:
        return any(
            join(_counted(*first, s.images[i]), _counted(*second, s.images[1 - i])) for i in (0, 1)
        )

    categories = first[0].categories | first[1].categories | second[0].categories
    categories = (categories | second[1].categories | {COORD}) - {EXISTS}
    return PairSentence(text, holds, first[1].nouns + second[1].nouns, categories)


def _all_are(rng: random.Random, nouns: tuple[str, str]) -> PairSentence:
    """All dogs are standing / None of the bottles in the left image are lying down."""
    noun = _noun_phrase(rng, nouns, modifier=0.0)
    predicate = _object_predicate(rng, _other(nouns, noun.nouns[0]), 0.3, negation=0.15)
    scope = rng.choice([None, None, 0, 1])
    where = "" if scope is None else f" in the {IMAGES[scope]} image"

    def scoped(s: PairScene) -> list[tuple[tuple[PairObject, ...], int]]:
        images = s.images if scope is None else (s.images[scope],)
        return [(image, i) for image in images for i in noun.matches(image)]

    every = rng.random() < 0.65
    if every:
        quantifier = rng.choice(["All", "All of the", "All the"])
        text = f"{quantifier} {noun.plural}{where} are {predicate.words}"
    else:
        text = f"None of the {noun.plural}{where} are {predicate.words}"

    def holds(s: PairScene) -> bool:
        # "all the dogs", "none of the dogs": both presuppose that some dog is there
        found = [predicate.test(image, i) for image, i in scoped(s)]
        return bool(found) and (all(found) if every else not any(found))

    categories = {ALL} if every else {NOT}
    return PairSentence(
        text,
        holds,
        noun.nouns + predicate.nouns,
        frozenset(categories) | noun.categories | predicate.categories,
    )


def _the_one_words(rng: random.Random, noun: str, side: str, predicate: str) -> str:
    return f"The {noun} in the {side} image is {predicate}"


def _the_one(
    rng: random.Random,
    nouns: tuple[str, str],
    say: Callable[[random.Random, str, str, str], str] = _the_one_words,
) -> PairSentence:
    """The dog in the left image is lying down: presupposes exactly one dog there.
    ``say(rng, noun, side, predicate)`` words it."""
    noun = _noun_phrase(rng, nouns, modifier=0.0)
    predicate = _object_predicate(rng, _other(nouns, noun.nouns[0]), 0.4, negation=0.15)
    side = rng.randrange(2)
    text = say(rng, noun.singular, IMAGES[side], predicate.words)

    def holds(s: PairScene) -> bool:
        image = s.images[side]
        found = noun.matches(image)
        return len(found) == 1 and predicate.test(image, found[0])

    return PairSentence(
        text,
        holds,
        noun.nouns + predicate.nouns,
        frozenset({PRESUPPOSITION}) | noun.categories | predicate.categories,
    )


def _pronoun(
    rng: random.Random, nouns: tuple[str, str], words: RefWords = REF_WORDS
) -> PairSentence:
    """One image shows a single dog, and it is facing left / Each image contains one bottle,
    which is lying down."""
    ref = _image_ref(rng, ["one", "one", "each", "left", "right"], words)
    noun = _noun_phrase(rng, nouns, modifier=0.0)
    predicate = _object_predicate(rng, _other(nouns, noun.nouns[0]), 0.3)
    single = rng.choice(["a single", "exactly one", "one", "only one"])
    link = rng.choice(["and it is", "which is", "and the " + noun.singular.split()[-1] + " is"])
    text = (
        f"{_capital(ref.words)} {_verb(rng, ref.plural)} {single} {noun.singular}, "
        f"{link} {predicate.words}"
    )

    def per_image(image: tuple[PairObject, ...]) -> bool:
        found = noun.matches(image)
        return len(found) == 1 and predicate.test(image, found[0])

    return PairSentence(
        text,
        lambda s: ref.combine(s, per_image),
        noun.nouns + predicate.nouns,
        frozenset({HARD, COREF}) | ref.categories | noun.categories | predicate.categories,
    )


def _coordination(rng: random.Random, nouns: tuple[str, str]) -> PairSentence:
    """Two clauses joined by "and": the left image contains two dogs, and one image ..."""
    first, second = _image_contains(rng, nouns), _image_contains(rng, nouns)
    text = f"{first.text}, and {second.text[0].lower()}{second.text[1:]}"
    return PairSentence(
        text,
        lambda s: first.holds(s) and second.holds(s),
        first.nouns + second.nouns,
        first.categories | second.categories | {COORD},
    )


SentenceForm = Callable[[random.Random, tuple[str, str]], PairSentence]
PAIR_FORMS: list[tuple[float, SentenceForm]] = [
    (4, _image_contains),
    (1, _total),
    (1.2, _comparison),
    (1, _one_and_other),
    (0.8, _all_are),
    (1.6, _the_one),
    (1.4, _pronoun),
    (1.6, _coordination),
]


def _surface(rng: random.Random, text: str) -> str:
    """Vary case and final punctuation as NLVR2's writers do."""
    if rng.random() < 0.2:
        text = text[0].lower() + text[1:]
    return text + "." if rng.random() < 0.7 else text


def random_pair_sentence(
    rng: random.Random,
    nouns: Sequence[str],
    forms: Sequence[tuple[float, SentenceForm]] = PAIR_FORMS,
) -> PairSentence:
    """A sentence about ``nouns`` (singular forms from ``world_nouns``): it speaks of one noun
    of them, and of a second one now and then (relations, comparisons, coordination).
    ``forms``: (weight, form) to draw from (default: the grammar's; ``pair_world_extra``'s
    phrasings for training only).

    Parameters
    ----------
    rng
        The random stream drawn from.
    nouns, forms
        As above.
    """
    if not nouns:
        raise ValueError("random_pair_sentence needs at least one noun")
    main = rng.choice(nouns)
    others = [n for n in nouns if n != main] or [main]
    weights, makers = zip(*forms, strict=True)
    sentence = rng.choices(makers, weights=weights)[0](rng, (main, rng.choice(others)))
    return PairSentence(
        _surface(rng, sentence.text), sentence.holds, sentence.nouns, sentence.categories
    )


# --------------------------------------------------------------------------- nouns
@cache
def _known_forms() -> dict[str, NounForms]:
    return {f.singular: f for f in object_nouns(10 * N_NOUNS)}


def noun_forms(noun: str) -> NounForms:
    """The singular and plural of a counted NLVR2 noun given in the singular.

    Parameters
    ----------
    noun
        A counted NLVR2 noun, singular.
    """
    forms = _known_forms().get(noun)
    if forms is None:
        raise ValueError(f"{noun!r} is not a counted NLVR2 noun (see nlvr2_vocab.object_nouns)")
    return forms


def world_nouns(n: int = N_NOUNS) -> list[NounForms]:
    """The ``n`` most frequent counted nouns of NLVR2 (``nlvr2_vocab.object_nouns``).

    Parameters
    ----------
    n
        Nouns.
    """
    return object_nouns(n)


@cache
def split_vocabulary() -> Vocabulary:
    """What a pair-world sentence's content is (``sentence_parts``, vocabulary "pairs"): colours,
    sizes, the pose and facing phrases, and every counted NLVR2 noun, also those the world does
    not draw (so NLVR2's own sentences split too)."""
    phrases = [*COLOURS, *SIZES, *(w for ws in POSE_WORDS.values() for w in ws)]
    phrases += [w for ws in FACING_WORDS.values() for w in ws]
    nouns = [(f.singular, f.plural) for f in _known_forms().values()]
    return Vocabulary.of("pairs", phrases, nouns, article_agreement=True)


def noun_split(nouns: Sequence[NounForms]) -> tuple[list[str], list[str]]:
    """(training nouns, held-out nouns): every ``HELD_OUT_EVERY``-th noun in frequency order
    (the 6th, 12th, ...) is kept out of training.

    Parameters
    ----------
    nouns
        Counted nouns in frequency order.
    """
    train = [f.singular for i, f in enumerate(nouns) if (i + 1) % HELD_OUT_EVERY]
    held_out = [f.singular for i, f in enumerate(nouns) if not (i + 1) % HELD_OUT_EVERY]
    return train, held_out


def pool_nouns(noun_pool: int = N_NOUNS) -> tuple[list[str], list[str]]:
    """(training nouns, held-out nouns) of a world drawn from the ``noun_pool`` most frequent
    counted NLVR2 nouns: the held-out nouns are ``noun_split``'s of the 60 most frequent at any
    pool, and every other noun of the pool trains.

    Parameters
    ----------
    noun_pool
        The most frequent counted nouns spoken of.
    """
    available = len(_known_forms())
    if not N_NOUNS <= noun_pool <= available:
        raise ValueError(
            f"noun_pool must lie in [{N_NOUNS}, {available}] (NLVR2 has {available} counted "
            f"nouns), got {noun_pool}"
        )
    held_out = noun_split(world_nouns())[1]
    train = [f.singular for f in world_nouns(noun_pool) if f.singular not in held_out]
    return train, held_out


class PairWorld:
    """Seeded examples about ``nouns`` (singular forms; default: the training nouns of
    ``noun_split(world_nouns())``) with labels balanced per sentence.

    ``example(seed, sentence)`` draws up to ``50 * max_tries`` pairs around the sentence's nouns
    for the label drawn for it, then keeps the other label; ``vocabulary`` is where the objects
    the sentence does not name come from (default: ``nouns``).

    Parameters
    ----------
    nouns, max_tries
        As above.
    vocabulary
        The nouns the scenes' other objects are drawn from (default: ``nouns``).
    """

    def __init__(
        self,
        nouns: Sequence[str] | None = None,
        vocabulary: Sequence[str] | None = None,
        max_tries: int = 40,
    ) -> None:
        if nouns is None:
            nouns = noun_split(world_nouns())[0]
        if not nouns:
            raise ValueError("a pair world needs at least one noun")
        for noun in [*nouns, *(vocabulary or ())]:
            noun_forms(noun)  # names an unknown noun
        self.nouns = list(nouns)
        self.vocabulary = list(vocabulary or nouns)
        self.max_tries = max_tries

    def sentence(self, rng: random.Random) -> PairSentence:
        return random_pair_sentence(rng, self.nouns)

    def draw_for(self, sentence: PairSentence) -> Callable[[random.Random], PairScene]:
        """How pairs are drawn for ``sentence``: around the nouns it names."""
        named = list(dict.fromkeys(sentence.nouns))
        return lambda rng: random_pair(rng, named, self.vocabulary)

    def example(self, seed: int, sentence: PairSentence | None = None) -> PairExample:
        """The example of ``seed`` (for a given ``sentence``, or a random one)."""
        rng = random.Random(seed)
        wanted = rng.random() < 0.5
        if sentence is None:
            while True:
                chosen = self.sentence(rng)
                scene = balanced_scene(
                    rng, chosen.label, self.draw_for(chosen), wanted, self.max_tries
                )
                if scene is not None:
                    return PairExample(chosen.text, scene, wanted, tuple(sorted(chosen.categories)))
        for label in (wanted, not wanted):
            scene = balanced_scene(
                rng, sentence.label, self.draw_for(sentence), label, 50 * self.max_tries
            )
            if scene is not None:
                return PairExample(sentence.text, scene, label, tuple(sorted(sentence.categories)))
        raise ValueError(f"no pair makes {sentence.text!r} true or false")
