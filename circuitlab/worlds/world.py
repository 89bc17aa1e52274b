"""A seeded world of NLVR-style scenes and of sentences whose logical forms are executed on them.

Scenes are in NLVR's structured format: three 100 x 100 boxes, each with up to 8 objects
(circle/square/triangle; Black/Yellow/#0099ff; size 10/20/30). A scene is either *scattered*
(non-overlapping objects anywhere, some placed against a wall; 9-12 a box in the
out-of-distribution split, OOD_OBJECTS_PER_BOX) or made of *towers* (one stack of
1-4 squares of size 20 per box, at x = 40, y = 80, 59, 38, 17 from the base up, as in NLVR).

Sentences come from a small grammar (``random_sentence`` draws a form from ``SCATTERED_FORMS`` or
``TOWER_FORMS``). Every phrase carries its meaning as a Python predicate and the reasoning
categories it uses (the names of the NLVR2 annotations), so a sentence's label is its logical form
executed on the scene, and its categories are the union of its phrases'.
``WorldGenerator.example(seed)`` draws a sentence, then scenes until one makes the sentence take a
label drawn at random: labels are balanced per sentence, so the sentence alone never tells the
answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from circuitlab.data.nlvr import (
    BOX_SIZE,
    COLOURS,
    N_BOXES,
    SHAPES,
    SIZES,
    NLVRExample,
    SceneObject,
)
from circuitlab.worlds.grammar import (
    ALL,
    COMPARE,
    COORD,
    EXISTS,
    HARD,
    NOT,
    SOFT,
    SPATIAL,
    Count,
    article,
    balanced_scene,
    quantity,
    random_quantity,
)

__all__ = [
    "COLOUR_WORDS",
    "Forms",
    "MAX_OBJECTS",
    "Noun",
    "OBJECTS_PER_BOX",
    "OOD_OBJECTS_PER_BOX",
    "Placed",
    "Scene",
    "Sentence",
    "WORLD_CATEGORIES",
    "WorldExample",
    "WorldGenerator",
    "random_scene",
    "random_sentence",
    "scattered_scene",
    "sentence_from_forms",
    "tower_scene",
]

MAX_OBJECTS = 8
# objects per scattered box, drawn uniformly from this list: mostly 1-4, as in NLVR
OBJECTS_PER_BOX = (1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8)
# the out-of-distribution split's crowded boxes (as many of these as fit), never seen in training
OOD_OBJECTS_PER_BOX = (9, 10, 11, 12)
TOWER_X, TOWER_BASE_Y, TOWER_STEP, TOWER_BLOCK, MAX_TOWER = 40, 80, 21, 20, 4
COLOUR_WORDS = {"Black": "black", "Yellow": "yellow", "#0099ff": "blue"}
SIZE_WORDS = {10: "small", 20: "medium", 30: "large"}

WORLD_CATEGORIES = (HARD, SOFT, EXISTS, ALL, SPATIAL, COMPARE, NOT, COORD)


# --------------------------------------------------------------------------- scenes
@dataclass(frozen=True)
class Placed:
    """An object with what the grammar asks of it: its box, tower level (0 = base; -1 outside
    a tower), whether nothing is stacked on it, and which walls of its box it touches.

    Parameters
    ----------
    obj
        The object.
    box, level, top, walls
        As above.
    """

    obj: SceneObject
    box: int
    level: int
    top: bool
    walls: frozenset[str]

    @property
    def colour(self) -> str:
        return self.obj.colour

    @property
    def shape(self) -> str:
        return self.obj.shape


def walls_touched(obj: SceneObject) -> frozenset[str]:
    """The walls of its box an object touches: subset of {left, right, top, bottom}."""
    walls = set()
    if obj.x <= 0:
        walls.add("left")
    if obj.x + obj.size >= BOX_SIZE:
        walls.add("right")
    if obj.y <= 0:
        walls.add("top")
    if obj.y + obj.size >= BOX_SIZE:
        walls.add("bottom")
    return frozenset(walls)


def tower_level(obj: SceneObject) -> int:
    """0 for a tower's base, 1 above it, ...; -1 for an object that is not a tower block."""
    if obj.shape != "square" or obj.size != TOWER_BLOCK or obj.x != TOWER_X:
        return -1
    steps, rest = divmod(TOWER_BASE_Y - obj.y, TOWER_STEP)
    return steps if rest == 0 and 0 <= steps < MAX_TOWER else -1


@dataclass(frozen=True)
class Scene:
    """Three boxes of objects, with each object's derived facts (``placed``, box by box).

    Parameters
    ----------
    boxes
        As above.
    """

    boxes: tuple[tuple[SceneObject, ...], ...]
    placed: tuple[tuple[Placed, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        placed = []
        for b, box in enumerate(self.boxes):
            levels = [tower_level(o) for o in box]
            highest = max(levels, default=-1)
            placed.append(
                tuple(
                    Placed(o, b, lv, lv < 0 or lv == highest, walls_touched(o))
                    for o, lv in zip(box, levels, strict=True)
                )
            )
        object.__setattr__(self, "placed", tuple(placed))

    @property
    def objects(self) -> list[Placed]:
        return [p for box in self.placed for p in box]

    @property
    def is_towers(self) -> bool:
        """True when every box holds exactly one stack of tower blocks."""
        return all(
            box and sorted(p.level for p in box) == list(range(len(box))) for box in self.placed
        )

    def structured_rep(self) -> list[list[dict]]:
        """The scene in NLVR's JSON format."""
        return [
            [
                {"x_loc": o.x, "y_loc": o.y, "size": o.size, "type": o.shape, "color": o.colour}
                for o in box
            ]
            for box in self.boxes
        ]


def tower_scene(rng: random.Random) -> Scene:
    """One stack of 1-4 blocks of random colours per box.

    Parameters
    ----------
    rng
        The random stream drawn from.
    """
    boxes = []
    for _ in range(N_BOXES):
        height = rng.randint(1, MAX_TOWER)
        boxes.append(
            tuple(
                SceneObject(
                    TOWER_X,
                    TOWER_BASE_Y - TOWER_STEP * lv,
                    TOWER_BLOCK,
                    "square",
                    rng.choice(COLOURS),
                )
                for lv in range(height)
            )
        )
    return Scene(tuple(boxes))


def _overlaps(a: SceneObject, b: SceneObject) -> bool:
    return a.x < b.x + b.size and b.x < a.x + a.size and a.y < b.y + b.size and b.y < a.y + a.size


def scattered_scene(
    rng: random.Random,
    objects_per_box: Sequence[int] = OBJECTS_PER_BOX,
    placement_tries: int = 60,
) -> Scene:
    """Non-overlapping objects in each box, as many as ``rng.choice(objects_per_box)`` if they
    fit in ``placement_tries`` random placements (by default 1-8, mostly 1-4, as in NLVR);
    about a third of them pushed against a wall, most often the bottom.

    Parameters
    ----------
    rng
        The random stream drawn from.
    objects_per_box, placement_tries
        As above.
    """
    boxes = []
    for _ in range(N_BOXES):
        target = rng.choice(objects_per_box)
        objects: list[SceneObject] = []
        for _ in range(placement_tries):
            if len(objects) == target:
                break
            size = rng.choice([10, 20, 20, 20, 30])
            x, y = rng.randint(0, BOX_SIZE - size), rng.randint(0, BOX_SIZE - size)
            if rng.random() < 0.35:
                wall = rng.choice(["bottom", "bottom", "right", "left", "top"])
                x = {"left": 0, "right": BOX_SIZE - size}.get(wall, x)
                y = {"top": 0, "bottom": BOX_SIZE - size}.get(wall, y)
            candidate = SceneObject(x, y, size, rng.choice(SHAPES), rng.choice(COLOURS))
            if not any(_overlaps(candidate, o) for o in objects):
                objects.append(candidate)
        boxes.append(tuple(objects))
    return Scene(tuple(boxes))


# --------------------------------------------------------------------------- grammar pieces
ObjectTest = Callable[[Placed], bool]
SceneTest = Callable[[Scene], bool]


@dataclass(frozen=True)
class Noun:
    """A description of objects: text in the singular and plural, a test, its categories.

    Parameters
    ----------
    singular, plural, test, categories
        As above.
    """

    singular: str
    plural: str
    test: ObjectTest
    categories: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Sentence:
    """A sentence, its logical form (a test on scenes) and its reasoning categories.

    Parameters
    ----------
    text, holds, categories
        As above.
    towers
        The sentence is about tower scenes.
    """

    text: str
    holds: SceneTest
    categories: frozenset[str]
    towers: bool  # paired with tower scenes (True) or scattered ones (False)

    def label(self, scene: Scene) -> bool:
        return self.holds(scene)


def _phrase(count: Count, noun: Noun) -> str:
    """ "a black square", "exactly two yellow items", "an item" ..."""
    text = noun.singular if count.singular else noun.plural
    return f"{article(count.words, text)} {text}"


def _counted(count: Count, noun: Noun, objects: list[Placed]) -> bool:
    return count.holds(sum(1 for p in objects if noun.test(p)))


def _relation(rng: random.Random) -> tuple[str, ObjectTest, frozenset[str]]:
    """A wall relation: its words, its test, its categories."""
    choice = rng.randrange(4)
    if choice == 0:
        words = rng.choice(
            ["touching the edge", "touching the wall", "touching an edge", "touching the side"]
        )
        return words, lambda p: bool(p.walls), frozenset({SPATIAL})
    if choice == 1:
        words = rng.choice(["touching the base", "touching the bottom", "touching the floor"])
        return words, lambda p: "bottom" in p.walls, frozenset({SPATIAL})
    if choice == 2:
        wall = rng.choice(["right", "left", "top"])
        return f"touching the {wall} wall", lambda p: wall in p.walls, frozenset({SPATIAL})
    words = rng.choice(["not touching any edge", "not touching the wall", "not touching an edge"])
    return words, lambda p: not p.walls, frozenset({SPATIAL, NOT})


def _noun(
    rng: random.Random, towers: bool, *, relation: float = 0.3, colour: str | None = None
) -> Noun:
    """A random description of objects: [size] [colour] shape-or-item [wall relation]."""
    if colour is None and rng.random() < 0.8:
        colour = rng.choice(COLOURS)
    # every tower block is a square: "block" and "square" mean the same there
    shape = "square" if towers else None if rng.random() < 0.4 else rng.choice(SHAPES)
    size = rng.choice(SIZES) if not towers and rng.random() < 0.1 else None
    if towers:
        head = rng.choice(["block", "block", "block", "square"])
    else:
        head = shape or rng.choice(["item", "object", "shape"])
    words = [SIZE_WORDS[size]] if size else []
    words += [COLOUR_WORDS[colour]] if colour else []
    singular, plural = " ".join([*words, head]), " ".join([*words, head + "s"])

    def test(p: Placed) -> bool:
        return (
            (colour is None or p.colour == colour)
            and (shape is None or p.shape == shape)
            and (size is None or p.obj.size == size)
        )

    if towers or rng.random() >= relation:
        return Noun(singular, plural, test)
    rel_words, rel_test, rel_categories = _relation(rng)
    return Noun(
        f"{singular} {rel_words}",
        f"{plural} {rel_words}",
        lambda p: test(p) and rel_test(p),
        rel_categories,
    )


SCENE_COUNTS = ["exists", "exists", "exactly", "bare", "at_least", "at_most", "more_than", "no"]
BOX_COUNTS = ["exists", "exists", "exactly", "bare", "at_least", "at_most"]


def _there_is(count: Count) -> str:
    return "There is" if count.singular else "There are"


# --------------------------------------------------------------------------- scattered scenes
def _scene_count(rng: random.Random, towers: bool) -> Sentence:
    """There are exactly two black squares touching the edge."""
    count, noun = random_quantity(rng, SCENE_COUNTS), _noun(rng, towers)
    return Sentence(
        f"{_there_is(count)} {_phrase(count, noun)}",
        lambda s: _counted(count, noun, s.objects),
        count.categories | noun.categories,
        towers,
    )


def _box_word(rng: random.Random) -> str:
    return rng.choice(["box", "box", "grey box", "square"])


def _box_with(rng: random.Random) -> Sentence:
    """There is a box with a yellow triangle and at least two black items."""
    parts = [(random_quantity(rng, BOX_COUNTS), _noun(rng, False, relation=0.15))]
    if rng.random() < 0.4:
        parts.append((random_quantity(rng, BOX_COUNTS), _noun(rng, False, relation=0.1)))
    text = " and ".join(_phrase(c, n) for c, n in parts)
    intro = rng.choice(
        [
            f"There is a {_box_word(rng)} with",
            "One of the boxes has",
            "There is a box that contains",
        ]
    )
    categories = frozenset({EXISTS}).union(*(c.categories | n.categories for c, n in parts))
    if len(parts) > 1:
        categories |= {COORD}
    return Sentence(
        f"{intro} {text}",
        lambda s: any(all(_counted(c, n, list(box)) for c, n in parts) for box in s.placed),
        categories,
        False,
    )


def _box_total(rng: random.Random) -> Sentence:
    """One of the boxes contains exactly three objects."""
    count = random_quantity(rng, ["exactly", "exactly", "bare", "at_least", "at_most"], 1, 5)
    noun = Noun(
        *rng.choice([("item", "items"), ("object", "objects"), ("shape", "shapes")]), lambda p: True
    )
    intro = rng.choice(
        ["There is a box with", "One of the boxes contains", "There is a box that has"]
    )
    return Sentence(
        f"{intro} {_phrase(count, noun)}",
        lambda s: any(count.holds(len(box)) for box in s.placed),
        count.categories | {EXISTS},
        False,
    )


def _box_only(rng: random.Random) -> Sentence:
    """There is a box with only black items / with items of only black and blue colour."""
    colours = rng.sample(COLOURS, rng.choice([1, 1, 2]))
    names = " and ".join(COLOUR_WORDS[c] for c in colours)
    if len(colours) == 1 or rng.random() < 0.5:
        text = f"There is a box with only {names} {rng.choice(['items', 'objects', 'shapes'])}"
    else:
        text = f"There is a box with items of only {names} color"
    categories = frozenset({EXISTS, ALL} | ({COORD} if len(colours) > 1 else set()))
    return Sentence(
        text,
        lambda s: any(box and all(p.colour in colours for p in box) for box in s.placed),
        categories,
        False,
    )


def _each_box(rng: random.Random, towers: bool) -> Sentence:
    """Each box has at least one black item."""
    count = random_quantity(rng, ["exists", "at_least", "exactly", "at_least"], 1, 2)
    noun = _noun(rng, towers, relation=0.15)
    intro = rng.choice(["Each box has", "Every box has", "All boxes have", "Each box contains"])
    if towers:
        intro = rng.choice(["Each tower has", "Every tower has", "All towers have"])
    return Sentence(
        f"{intro} {_phrase(count, noun)}",
        lambda s: all(_counted(count, noun, list(box)) for box in s.placed),
        count.categories | noun.categories | {ALL},
        towers,
    )


def _all_are(rng: random.Random) -> Sentence:
    """All black circles are touching the edge / None of the squares are touching an edge."""
    noun = _noun(rng, False, relation=0.0)
    rel_words, rel_test, rel_categories = _relation(rng)
    # "all/none of the X": presupposes that some X exists
    if rng.random() < 0.6:
        quant = rng.choice(["All", "All the", "Every one of the", "Each of the"])
        verb = "is" if quant.startswith(("Every", "Each")) else "are"
        return Sentence(
            f"{quant} {noun.plural} {verb} {rel_words}",
            lambda s: (
                any(noun.test(p) for p in s.objects)
                and all(rel_test(p) for p in s.objects if noun.test(p))
            ),
            rel_categories | {ALL},
            False,
        )
    return Sentence(
        f"None of the {noun.plural} are {rel_words}",
        lambda s: (
            any(noun.test(p) for p in s.objects)
            and not any(rel_test(p) for p in s.objects if noun.test(p))
        ),
        rel_categories | {NOT},
        False,
    )


def _above(a: Placed, b: Placed) -> bool:
    """``a`` is higher than ``b`` in the same box (entirely, or the next block in a tower)."""
    if a.box != b.box or a is b:
        return False
    if a.level >= 0 and b.level >= 0:
        return a.level > b.level
    return a.obj.y + a.obj.size <= b.obj.y


def _relation_sentence(rng: random.Random, towers: bool) -> Sentence:
    """There is a black circle above a blue square / in the same box as ..."""
    first, second = _noun(rng, towers, relation=0.0), _noun(rng, towers, relation=0.0)
    kind = rng.choice(["above", "below", "same"] if not towers else ["above", "below", "on"])
    relations: dict[str, tuple[list[str], Callable[[Placed, Placed], bool]]] = {
        "above": (["above"], _above),
        "below": (["below", "under"], lambda a, b: _above(b, a)),
        "same": (["in the same box as"], lambda a, b: a.box == b.box and a is not b),
        "on": (
            ["on top of", "directly above", "over", "on"],
            lambda a, b: a.box == b.box and a.level == b.level + 1 and b.level >= 0,
        ),
    }
    words, related = relations[kind]

    def holds(s: Scene) -> bool:
        objects = s.objects
        return any(
            first.test(a) and any(second.test(b) and related(a, b) for b in objects)
            for a in objects
        )

    return Sentence(
        f"There is {_phrase(quantity(rng, 'exists', 1), first)} {rng.choice(words)} "
        f"{_phrase(quantity(rng, 'exists', 1), second)}",
        holds,
        frozenset({EXISTS, SPATIAL}),
        towers,
    )


def _comparison(rng: random.Random, towers: bool) -> Sentence:
    """There are more black items than yellow squares / as many ... as ..."""
    first = _noun(rng, towers, relation=0.0)
    second = _noun(rng, towers, relation=0.0)
    while second.plural == first.plural:
        second = _noun(rng, towers, relation=0.0)
    kind = rng.choice(["more", "fewer", "same"])
    compare = {
        "more": (lambda a, b: a > b),
        "fewer": (lambda a, b: a < b),
        "same": (lambda a, b: a == b),
    }[kind]
    if kind == "same":
        text = rng.choice(
            [
                f"There are as many {first.plural} as {second.plural}",
                f"There is the same number of {first.plural} and {second.plural}",
            ]
        )
    else:
        text = f"There are {kind} {first.plural} than {second.plural}"
    in_box = not towers and rng.random() < 0.4
    if in_box:
        text = text.replace("There are", "There is a box with", 1).replace(
            "There is the", "There is a box with the", 1
        )

    def counts(objects: list[Placed]) -> bool:
        return compare(sum(map(first.test, objects)), sum(map(second.test, objects)))

    return Sentence(
        text,
        (lambda s: any(counts(list(box)) for box in s.placed))
        if in_box
        else (lambda s: counts(s.objects)),
        frozenset({COMPARE} | ({EXISTS} if in_box else set())),
        towers,
    )


# --------------------------------------------------------------------------- towers
@dataclass(frozen=True)
class TowerProperty:
    """Something a tower (the blocks of one box, base first) may have."""

    words: str
    holds: Callable[[list[Placed]], bool]
    categories: frozenset[str]


def _colour(rng: random.Random) -> tuple[str, str]:
    colour = rng.choice(COLOURS)
    return colour, COLOUR_WORDS[colour]


def _tower_property(rng: random.Random) -> TowerProperty:
    """exactly three blocks / a yellow block at the top / a blue block over a black block ..."""
    kind = rng.choice(["height", "top", "base", "over", "colour_count", "only"])
    block = rng.choice(["block", "block", "square", "item"])
    if kind == "height":
        count = random_quantity(rng, ["exactly", "bare", "at_least", "at_most", "more_than"], 1, 3)
        noun = Noun(block, block + "s", lambda p: True)
        return TowerProperty(_phrase(count, noun), lambda t: count.holds(len(t)), count.categories)
    if kind in ("top", "base"):
        colour, name = _colour(rng)
        where = {
            "top": ["at the top", "on top", "as the top"],
            "base": ["at the base", "at the bottom", "as the base"],
        }[kind]
        words = rng.choice([f"a {name} {block} {rng.choice(where)}", f"a {name} {kind}"])
        index = -1 if kind == "top" else 0
        return TowerProperty(words, lambda t: t[index].colour == colour, frozenset({SPATIAL}))
    if kind == "over":
        (upper, upper_name), (lower, lower_name) = _colour(rng), _colour(rng)
        directly = rng.random() < 0.6
        word = rng.choice(["over", "on top of", "on"]) if directly else "above"

        def holds(t: list[Placed]) -> bool:
            return any(
                a.colour == upper and b.colour == lower and (a.level == b.level + 1 or not directly)
                for a in t
                for b in t
                if a.level > b.level
            )

        return TowerProperty(
            f"a {upper_name} {block} {word} a {lower_name} {block}", holds, frozenset({SPATIAL})
        )
    if kind == "colour_count":
        colour, name = _colour(rng)
        count = random_quantity(rng, ["exactly", "bare", "at_least"], 1, 3)
        noun = Noun(f"{name} {block}", f"{name} {block}s", lambda p: p.colour == colour)
        return TowerProperty(
            _phrase(count, noun), lambda t: _counted(count, noun, t), count.categories
        )
    colours = rng.sample(COLOURS, rng.choice([1, 1, 2]))
    names = " and ".join(COLOUR_WORDS[c] for c in colours)
    return TowerProperty(
        f"only {names} {block}s",
        lambda t: all(p.colour in colours for p in t),
        frozenset({ALL} | ({COORD} if len(colours) > 1 else set())),
    )


def _towers(scene: Scene) -> list[list[Placed]]:
    return [sorted(box, key=lambda p: p.level) for box in scene.placed if box]


def _tower_sentence(rng: random.Random) -> Sentence:
    """There are exactly two towers with a yellow block at the top (and ...)."""
    props = [_tower_property(rng)]
    if rng.random() < 0.25:
        props.append(_tower_property(rng))
    text = " and ".join(p.words for p in props)
    categories = frozenset().union(*(p.categories for p in props))
    if len(props) > 1:
        categories |= {COORD}

    def has(t: list[Placed]) -> bool:
        return all(p.holds(t) for p in props)

    form = rng.choice(["exists", "exists", "count", "count", "each", "no"])
    if form == "each":
        intro = rng.choice(["Each tower has", "Every tower has", "All towers have"])
        return Sentence(
            f"{intro} {text}", lambda s: all(map(has, _towers(s))), categories | {ALL}, True
        )
    if form == "no":
        return Sentence(
            f"There is no tower with {text}",
            lambda s: not any(map(has, _towers(s))),
            categories | {NOT},
            True,
        )
    if form == "exists":
        return Sentence(
            f"There is a tower with {text}",
            lambda s: any(map(has, _towers(s))),
            categories | {EXISTS},
            True,
        )
    count = random_quantity(rng, ["exactly", "bare", "at_least"], 1, 3)
    noun = Noun("tower", "towers", lambda p: True)
    return Sentence(
        f"{_there_is(count)} {_phrase(count, noun)} with {text}",
        lambda s: count.holds(sum(map(has, _towers(s)))),
        categories | count.categories,
        True,
    )


def _block_of_tower(rng: random.Random) -> Sentence:
    """There is a black block as the base of a tower with at least two blocks."""
    colour, name = _colour(rng)
    kind = rng.choice(["top", "base"])
    count = random_quantity(rng, ["exactly", "at_least", "more_than"], 1, 3)
    index = -1 if kind == "top" else 0
    blocks = _phrase(count, Noun("block", "blocks", lambda p: True))
    return Sentence(
        f"There is a {name} block as the {kind} of a tower with {blocks}",
        lambda s: any(t[index].colour == colour and count.holds(len(t)) for t in _towers(s)),
        count.categories | {EXISTS, SPATIAL},
        True,
    )


# --------------------------------------------------------------------------- sentences
def _simple(rng: random.Random, towers: bool) -> Sentence:
    """A short clause, for coordination."""
    if towers:
        return rng.choice([_scene_count, _tower_like])(rng, towers)
    return rng.choice([_scene_count, _scene_count, _each_box])(rng, towers)


def _tower_like(rng: random.Random, towers: bool) -> Sentence:
    return _tower_sentence(rng)


def _coordination(rng: random.Random, towers: bool) -> Sentence:
    """<clause> and <clause> / <clause> or <clause>."""
    first, second = _simple(rng, towers), _simple(rng, towers)
    conjunction = rng.choice(["and", "and", "or"])
    combine = (lambda a, b: a and b) if conjunction == "and" else (lambda a, b: a or b)
    return Sentence(
        f"{first.text} {conjunction} {second.text[0].lower()}{second.text[1:]}",
        lambda s: combine(first.holds(s), second.holds(s)),
        first.categories | second.categories | {COORD},
        towers,
    )


# a grammar's sentence forms: (weight, maker) pairs
Forms = list[tuple[float, Callable[[random.Random], Sentence]]]

SCATTERED_FORMS: Forms = [
    (4, lambda r: _scene_count(r, False)),
    (3, _box_with),
    (1, _box_total),
    (1, _box_only),
    (1.5, lambda r: _each_box(r, False)),
    (1.5, _all_are),
    (1.5, lambda r: _relation_sentence(r, False)),
    (1, lambda r: _comparison(r, False)),
    (1, lambda r: _coordination(r, False)),
]
TOWER_FORMS: Forms = [
    (2, lambda r: _scene_count(r, True)),
    (5, _tower_sentence),
    (1, _block_of_tower),
    (1.5, lambda r: _relation_sentence(r, True)),
    (0.7, lambda r: _each_box(r, True)),
    (0.7, lambda r: _comparison(r, True)),
    (0.7, lambda r: _coordination(r, True)),
]


def _surface(rng: random.Random, text: str) -> str:
    """Vary case and final punctuation as NLVR's writers do."""
    if rng.random() < 0.3:
        text = text[0].lower() + text[1:]
    return text + "." if rng.random() < 0.5 else text


def sentence_from_forms(
    rng: random.Random, towers: bool | None, scattered_forms: Forms, tower_forms: Forms
) -> Sentence:
    """A sentence from one of ``tower_forms`` (``towers=True``) or ``scattered_forms`` (False;
    None: either), drawn by the forms' weights, its surface varied as NLVR's writers vary it.

    Parameters
    ----------
    rng
        The random stream drawn from.
    towers, scattered_forms, tower_forms
        As above.
    """
    if towers is None:
        towers = rng.random() < 0.5
    forms = tower_forms if towers else scattered_forms
    weights, makers = zip(*forms, strict=True)
    sentence = rng.choices(makers, weights=weights)[0](rng)
    return Sentence(_surface(rng, sentence.text), sentence.holds, sentence.categories, towers)


def random_sentence(rng: random.Random, towers: bool | None = None) -> Sentence:
    """A sentence about a tower scene (``towers=True``), a scattered one (False) or either.

    Parameters
    ----------
    rng
        The random stream drawn from.
    towers
        As above.
    """
    return sentence_from_forms(rng, towers, SCATTERED_FORMS, TOWER_FORMS)


def random_scene(
    rng: random.Random,
    towers: bool,
    objects_per_box: Sequence[int] = OBJECTS_PER_BOX,
    placement_tries: int = 60,
) -> Scene:
    """A tower scene, or a scattered one (``objects_per_box``, ``placement_tries``: see
    ``scattered_scene``).

    Parameters
    ----------
    rng
        The random stream drawn from.
    towers
        A tower scene (else a scattered one).
    objects_per_box, placement_tries
        As above.
    """
    if towers:
        return tower_scene(rng)
    return scattered_scene(rng, objects_per_box, placement_tries)


@dataclass(frozen=True)
class WorldExample:
    """A sentence, a scene, the sentence's truth on the scene, and its reasoning categories.

    Parameters
    ----------
    sentence, scene, label, categories
        As above.
    """

    sentence: str
    scene: Scene
    label: bool
    categories: tuple[str, ...]

    def to_nlvr(self, identifier: str) -> NLVRExample:
        return NLVRExample(identifier, self.sentence, self.label, self.scene.boxes)

    def to_json(self, identifier: str) -> dict:
        """One line of a file in NLVR's official format."""
        return {
            "identifier": identifier,
            "sentence": self.sentence,
            "label": "true" if self.label else "false",
            "structured_rep": self.scene.structured_rep(),
        }


class WorldGenerator:
    """Seeded examples with labels balanced per sentence.

    Up to ``max_tries`` scenes are drawn for a sentence to reach the label drawn for it. A random
    sentence that does not reach it (e.g. "there are exactly six yellow triangles" asked to be
    true) is replaced by a new one; a given sentence gets ``50 * max_tries`` draws, then keeps the
    other label (a sentence that rare should not be in a training pool: see
    ``circuitlab.worlds.tasks.nlvr.sentence_pool``). ``objects_per_box`` and ``placement_tries``
    shape the scattered scenes (``scattered_scene``); the out-of-distribution split crowds them with
    OOD_OBJECTS_PER_BOX.

    Parameters
    ----------
    tower_fraction
        Share of sentences about tower scenes.
    max_tries, objects_per_box, placement_tries
        As above.
    """

    def __init__(
        self,
        tower_fraction: float = 0.5,
        max_tries: int = 40,
        objects_per_box: Sequence[int] = OBJECTS_PER_BOX,
        placement_tries: int = 60,
    ) -> None:
        if not 0.0 <= tower_fraction <= 1.0:
            raise ValueError(f"tower_fraction must be in [0, 1], got {tower_fraction}")
        if not objects_per_box or min(objects_per_box) < 0:
            raise ValueError(f"objects_per_box must be counts >= 0, got {objects_per_box!r}")
        self.tower_fraction = tower_fraction
        self.max_tries = max_tries
        self.objects_per_box = tuple(objects_per_box)
        self.placement_tries = placement_tries

    def _draw(
        self, rng: random.Random, sentence: Sentence, wanted: bool, tries: int
    ) -> Scene | None:
        def draw(rng: random.Random) -> Scene:
            return random_scene(rng, sentence.towers, self.objects_per_box, self.placement_tries)

        return balanced_scene(rng, sentence.label, draw, wanted, tries)

    def example(self, seed: int, sentence: Sentence | None = None) -> WorldExample:
        """The example of ``seed`` (for a given ``sentence``, or a random one)."""
        rng = random.Random(seed)
        wanted = rng.random() < 0.5  # drawn once, so that redrawn sentences keep labels balanced
        if sentence is not None:
            scene = self._draw(rng, sentence, wanted, 50 * self.max_tries)
            if scene is None:
                wanted = not wanted
                scene = self._draw(rng, sentence, wanted, 50 * self.max_tries)
            if scene is None:
                raise ValueError(f"no scene makes {sentence.text!r} true or false")
            return WorldExample(sentence.text, scene, wanted, tuple(sorted(sentence.categories)))
        while True:
            chosen = random_sentence(rng, rng.random() < self.tower_fraction)
            scene = self._draw(rng, chosen, wanted, self.max_tries)
            if scene is not None:
                return WorldExample(chosen.text, scene, wanted, tuple(sorted(chosen.categories)))

    def examples(self, n: int, seed: int) -> list[WorldExample]:
        return [self.example(seed * 1_000_003 + i) for i in range(n)]
