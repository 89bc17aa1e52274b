"""The extra phrasings of NLVR dev: each one's truth on hand-built scenes, a reference count on
random scenes, and the extra training pool leaving validation as it was."""

from __future__ import annotations

import random
import re

import pytest

from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.world import Scene, scattered_scene
from circuitlab.worlds.world_extra import random_extra_sentence
from tests.test_world import SCATTERED, TOWERS, TOWERS_2, assert_construct, first_by_text, obj


@pytest.fixture(scope="module")
def extra() -> dict:
    """Sentences the extra forms produce, by normalised text."""
    return first_by_text(random_extra_sentence, 20000)


THREE_COLOURS = Scene(
    (
        (obj(0, 0, 20, "square", "black"), obj(50, 50, 20, "circle", "yellow")),
        (
            obj(0, 0, 10, "circle", "blue"),
            obj(30, 30, 10, "circle", "yellow"),
            obj(60, 60, 10, "square", "black"),
        ),
        (obj(30, 30, 20, "triangle", "yellow"),),
    )
)

CASES = [
    # (sentence, scene, truth, a category it must carry)
    ("there is a yellow item in each box", SCATTERED, False, "universal quantifier"),
    ("there is a yellow item in each box", THREE_COLOURS, True, "universal quantifier"),
    ("there are yellow items in each box", THREE_COLOURS, True, "universal quantifier"),
    ("there is a black block in every tower", TOWERS, True, "universal quantifier"),
    ("there is a black block in every tower", TOWERS_2, False, "universal quantifier"),
    ("there is a box with only 2 items", SCATTERED, True, "hard cardinality"),
    ("there is a box with only 2 items", THREE_COLOURS, True, "hard cardinality"),
    ("there is a box with only four items", SCATTERED, False, "hard cardinality"),
    ("there is a tower with only two blocks", TOWERS_2, True, "hard cardinality"),
    ("there is a tower with only two blocks", TOWERS, False, "hard cardinality"),
    (
        "there is a box with items of all 3 different colors",
        THREE_COLOURS,
        True,
        "universal quantifier",
    ),
    (
        "there is a box with items of all 3 different colors",
        SCATTERED,
        False,
        "universal quantifier",
    ),
    ("there is a tower with blocks of all three colors", TOWERS, True, "universal quantifier"),
    ("there is a tower with blocks of all three colors", TOWERS_2, False, "universal quantifier"),
    ("there are 2 boxes with only black objects", SCATTERED, False, "universal quantifier"),
    ("there is 1 box with only black items", SCATTERED, True, "universal quantifier"),
]


@pytest.mark.parametrize("text, scene, truth, category", CASES)
def test_extra_phrasings_on_hand_built_scenes(extra, text, scene, truth, category):
    assert_construct(extra, text, scene, truth, category)


ONLY_N = re.compile(
    r"^there is a (?:grey )?box (?:with|which has) only (one|two|three|four|five|1|2|3|4|5) "
    r"(?:items?|objects?)$"
)
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def test_only_n_means_exactly_n_in_some_box_on_random_scenes(extra):
    """'there is a box with only N items' agrees with a count of each box's objects done here."""
    rng = random.Random(1)
    checked = 0
    for text, sentence in extra.items():
        m = ONLY_N.match(text)
        if not m:
            continue
        n = NUMBERS.get(m.group(1)) or int(m.group(1))
        for _ in range(20):
            scene = scattered_scene(rng)
            assert sentence.label(scene) == any(len(box) == n for box in scene.boxes), text
            checked += 1
    assert checked >= 200


def test_extra_forms_reach_every_phrasing_and_tower_sentences_only_talk_of_towers(extra):
    texts = list(extra)
    assert any(" in each box" in t or " in every box" in t for t in texts)
    assert any(" with only " in t and re.search(r"only (two|2) items", t) for t in texts)
    assert any("of all 3 different colors" in t for t in texts)
    assert any(t.startswith("there are 2 boxes with only") for t in texts)
    for sentence in extra.values():
        words = sentence.text.lower()
        assert ("tower" in words) == sentence.towers, sentence.text


def test_extra_pool_adds_training_sentences_and_leaves_validation_alone():
    base = make_task("nlvr", text_encoder="words", pool_size=40, val_pool_size=20)
    more = make_task(
        "nlvr", text_encoder="words", pool_size=40, val_pool_size=20, extra_pool_size=15
    )
    assert [s.text for s in more.val_pool] == [s.text for s in base.val_pool]
    assert [s.text for s in more.pool[:40]] == [s.text for s in base.pool]
    added = [s.text for s in more.pool[40:]]
    assert len(added) == len(set(added)) == 15
    assert not set(added) & {s.text for s in [*base.pool, *base.val_pool]}
    assert more.sample(32, seed=0).labels.shape == (32,)
    with pytest.raises(ValueError, match="extra_pool_size"):
        make_task("nlvr", text_encoder="words", pool_size=5, val_pool_size=5, extra_pool_size=-1)
