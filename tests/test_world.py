"""The NLVR world: scenes in NLVR's format, and each construct's truth on hand-built scenes."""

from __future__ import annotations

import collections
import gzip
import json
import random
import re

import pytest

from circuitlab.data.nlvr import BOX_SIZE, SceneObject, read_nlvr
from circuitlab.worlds.world import (
    MAX_OBJECTS,
    OOD_OBJECTS_PER_BOX,
    WORLD_CATEGORIES,
    Scene,
    WorldGenerator,
    random_sentence,
    scattered_scene,
    tower_scene,
)


def _normal(text: str) -> str:
    return re.sub(r"\.$", "", text.lower())


def first_by_text(draw, seeds: int) -> dict:
    """Sentences ``draw(rng)`` produces over ``seeds`` seeds, by normalised text (the first seed
    that gives each)."""
    found: dict = {}
    for seed in range(seeds):
        sentence = draw(random.Random(seed))
        found.setdefault(_normal(sentence.text), sentence)
    return found


@pytest.fixture(scope="module")
def grammar() -> dict:
    """Sentences the grammar produces, by normalised text."""
    return first_by_text(random_sentence, 40000)


def obj(x: int, y: int, size: int, shape: str, colour: str) -> SceneObject:
    return SceneObject(
        x, y, size, shape, {"black": "Black", "yellow": "Yellow", "blue": "#0099ff"}[colour]
    )


def tower(*colours: str) -> tuple[SceneObject, ...]:
    return tuple(obj(40, 80 - 21 * level, 20, "square", c) for level, c in enumerate(colours))


SCATTERED = Scene(
    (
        (
            obj(0, 80, 20, "square", "black"),  # touches left and bottom
            obj(40, 40, 20, "square", "black"),  # touches nothing
            obj(50, 5, 10, "circle", "yellow"),  # above the square at (40, 40)
        ),
        (obj(70, 10, 30, "circle", "yellow"), obj(10, 10, 10, "triangle", "blue")),
        (obj(30, 30, 20, "triangle", "black"),),
    )
)
TOWERS = Scene(
    (tower("yellow", "black", "yellow"), tower("black"), tower("blue", "yellow", "black"))
)
TOWERS_2 = Scene((tower("yellow", "black"), tower("blue"), tower("black", "blue", "blue")))

CASES = [
    # (sentence, scene, truth, a category it must carry)
    ("there are exactly two black squares", SCATTERED, True, "hard cardinality"),
    ("there is exactly one yellow circle", SCATTERED, False, "hard cardinality"),
    ("there are at least two yellow squares", SCATTERED, False, "soft cardinality"),
    ("there are more than two black squares", SCATTERED, False, "soft cardinality"),
    ("there is no yellow circle", SCATTERED, False, "negation"),
    ("there are no black squares", SCATTERED, False, "negation"),
    ("there is a black triangle", SCATTERED, True, "existential quantifier"),
    ("every box has a yellow item", SCATTERED, False, "universal quantifier"),
    ("there is a box with only black items", SCATTERED, True, "universal quantifier"),
    ("there is a box with exactly three items", SCATTERED, True, "hard cardinality"),
    ("there is a black square not touching any edge", SCATTERED, True, "spatial relation"),
    ("there is a black square not touching any edge", SCATTERED, True, "negation"),
    ("none of the black circles are touching an edge", SCATTERED, False, "negation"),
    ("there is a tower with a yellow block at the top", TOWERS, True, "spatial relation"),
    ("there is a tower with a yellow block at the top", TOWERS_2, False, "spatial relation"),
    ("there is a tower with a black base", TOWERS, True, "spatial relation"),
    ("there is a tower with a black base", TOWERS_2, True, "spatial relation"),
    ("there is a tower with exactly three blocks", TOWERS, True, "hard cardinality"),
    (
        "there is a tower with exactly three blocks",
        Scene((tower("blue"),) * 3),
        False,
        "hard cardinality",
    ),
    ("there is a yellow block on top of a black block", TOWERS, True, "spatial relation"),
    ("there is a yellow block on top of a black block", TOWERS_2, False, "spatial relation"),
    ("there is a yellow block above a black block", TOWERS, True, "spatial relation"),
    ("there is a yellow block above a black block", TOWERS_2, False, "spatial relation"),
    (
        "there is a tower with a yellow block over a black block",
        TOWERS,
        True,
        "existential quantifier",
    ),
    (
        "there is a tower with a yellow block over a black block",
        TOWERS_2,
        False,
        "existential quantifier",
    ),
]


def assert_construct(sentences: dict, text: str, scene: Scene, truth: bool, category: str) -> None:
    """The sentence ``text`` (from ``first_by_text``) is ``truth`` on ``scene`` and carries
    ``category``."""
    sentence = sentences[text]
    assert sentence.label(scene) is truth
    assert category in sentence.categories


@pytest.mark.parametrize("text, scene, truth, category", CASES)
def test_constructs_on_hand_built_scenes(grammar, text, scene, truth, category):
    assert_construct(grammar, text, scene, truth, category)


def _count(scene: Scene, colour: str, shape: str) -> int:
    return sum(1 for p in scene.objects if p.colour == colour and p.shape == shape)


COUNTING = re.compile(
    r"^there (?:is|are) (exactly|at least|more than|no more than|at most) "
    r"(one|two|three|four|1|2|3|4) (black|yellow|blue) (circle|square|triangle)s?$"
)
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4}
COLOURS = {"black": "Black", "yellow": "Yellow", "blue": "#0099ff"}
TESTS = {
    "exactly": lambda k, n: k == n,
    "at least": lambda k, n: k >= n,
    "more than": lambda k, n: k > n,
    "no more than": lambda k, n: k <= n,
    "at most": lambda k, n: k <= n,
}


def test_counting_sentences_match_a_reference_count(grammar):
    """Every 'there are <quantity> <colour> <shape>s' the grammar made, on random scenes,
    agrees with a count done here."""
    checked = 0
    rng = random.Random(0)
    for text, sentence in grammar.items():
        m = COUNTING.match(text)
        if not m:
            continue
        quantity, number, colour, shape = m.groups()
        n = NUMBERS.get(number) or int(number)
        for _ in range(5):
            scene = scattered_scene(rng)
            expected = TESTS[quantity](_count(scene, COLOURS[colour], shape), n)
            assert sentence.label(scene) == expected, text
            checked += 1
    assert checked > 200


def test_generated_scenes_are_valid_nlvr_scenes():
    rng = random.Random(1)
    for _ in range(300):
        for scene in (scattered_scene(rng), tower_scene(rng)):
            assert len(scene.boxes) == 3
            for box in scene.boxes:
                assert 1 <= len(box) <= MAX_OBJECTS
                for o in box:
                    assert 0 <= o.x <= BOX_SIZE - o.size and 0 <= o.y <= BOX_SIZE - o.size
                for i, a in enumerate(box):
                    for b in box[i + 1 :]:
                        assert not (
                            a.x < b.x + b.size
                            and b.x < a.x + a.size
                            and a.y < b.y + b.size
                            and b.y < a.y + a.size
                        )
    assert tower_scene(rng).is_towers
    touching = sum(bool(p.walls) for _ in range(100) for p in scattered_scene(rng).objects)
    assert touching > 100  # objects against the walls are common, as in NLVR


def test_crowded_scenes_fill_boxes_beyond_training_with_the_same_rules():
    rng = random.Random(2)
    counts = []
    for _ in range(100):
        for box in scattered_scene(rng, OOD_OBJECTS_PER_BOX, placement_tries=200).boxes:
            counts.append(len(box))
            assert all(0 <= o.x <= BOX_SIZE - o.size for o in box)
    assert min(counts) > MAX_OBJECTS and max(counts) <= max(OOD_OBJECTS_PER_BOX)
    with pytest.raises(ValueError, match="objects_per_box"):
        WorldGenerator(objects_per_box=())


def test_examples_are_deterministic_balanced_and_cover_every_category():
    world = WorldGenerator()
    assert world.example(5) == world.example(5)
    assert world.example(5) != world.example(6)
    examples = world.examples(2000, seed=0)
    true = sum(e.label for e in examples) / len(examples)
    assert 0.46 < true < 0.54
    counts = collections.Counter(c for e in examples for c in e.categories)
    assert set(counts) == set(WORLD_CATEGORIES)
    assert min(counts.values()) > 50
    for e in examples[:200]:  # the label is the sentence's logical form on the scene
        assert isinstance(e.label, bool)


def test_world_examples_round_trip_through_the_official_format(tmp_path):
    examples = WorldGenerator().examples(50, seed=3)
    path = tmp_path / "world.json.gz"
    with gzip.open(path, "wt") as f:
        for i, e in enumerate(examples):
            f.write(json.dumps(e.to_json(f"w{i}-0")) + "\n")
    read = read_nlvr(path)
    assert [r.sentence for r in read] == [e.sentence for e in examples]
    assert [r.label for r in read] == [e.label for e in examples]
    assert [r.boxes for r in read] == [e.scene.boxes for e in examples]
