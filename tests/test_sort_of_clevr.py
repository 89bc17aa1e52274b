"""Sort-of-CLEVR: questions answered right on hand-built scenes, the rendering, the held-out
split disjoint from training."""

import numpy as np
import pytest

from circuitlab.worlds.sort_of_clevr import (
    ANSWERS,
    COLOURS,
    RGB,
    Scene,
    SortOfClevr,
    answer,
    encode_question,
    held_out_pairs,
    render,
)

SQUARE, CIRCLE = 0, 1


def hand_scene() -> Scene:
    # red square top-left, green circle next to it, blue square bottom-right, orange circle
    # bottom-left, gray square top-right, yellow square middle-right
    centres = np.array([[4, 4], [10, 4], [28, 28], [4, 28], [28, 4], [28, 16]], dtype=np.float32)
    shapes = np.array([SQUARE, CIRCLE, SQUARE, CIRCLE, SQUARE, SQUARE])
    return Scene(shapes, centres, size=32, radius=2.5)


@pytest.mark.parametrize(
    ("colour", "question", "expected"),
    [
        ("red", 0, "square"),
        ("green", 0, "circle"),
        ("red", 1, "yes"),  # left
        ("gray", 1, "no"),
        ("red", 2, "yes"),  # top
        ("blue", 2, "no"),
        ("red", 3, "circle"),  # closest to red: green
        ("blue", 3, "square"),  # closest to blue: yellow
        ("red", 4, "square"),  # furthest from red: blue
        ("orange", 4, "square"),  # furthest from orange (4, 28): gray (28, 4)
        ("red", 5, "4"),  # squares: red, blue, gray, yellow
        ("green", 5, "2"),
    ],
)
def test_questions_on_a_hand_built_scene(colour, question, expected):
    assert ANSWERS[answer(hand_scene(), COLOURS.index(colour), question)] == expected


def test_render_paints_each_object_in_its_colour():
    scene = hand_scene()
    image = render(scene)
    assert image.shape == (3, 32, 32)
    for colour, (x, y) in enumerate(scene.centres.astype(int)):
        np.testing.assert_allclose(image[:, y, x], RGB[colour])
    np.testing.assert_allclose(image[:, 16, 16], 1.0)  # background
    # the green circle leaves its bounding box's corner white, a square fills it
    np.testing.assert_allclose(image[:, 1, 7], 1.0)
    np.testing.assert_allclose(image[:, 1, 1], RGB[0])


def test_question_vector_one_hot():
    vector = encode_question(COLOURS.index("blue"), 4)
    assert vector.sum() == 2 and vector[2] == 1 and vector[6 + 4] == 1


def test_draws_are_seeded_and_answers_match_the_scenes():
    data = SortOfClevr().draw(20, seed=3)
    again = SortOfClevr().draw(20, seed=3)
    np.testing.assert_array_equal(data["images"], again["images"])
    assert len(data["answer"]) == 20 * 36 and data["relational"].sum() == 20 * 18
    assert set(data["answer"].tolist()) <= set(range(len(ANSWERS)))


def test_held_out_split_is_disjoint_from_training():
    generator = SortOfClevr()
    held_out = held_out_pairs()
    rng = np.random.default_rng(0)
    for _ in range(300):
        train = generator.scene(rng, "train")
        assert not {(c, int(s)) for c, s in enumerate(train.shapes)} & held_out
        test = generator.scene(rng, "heldout")
        assert {(c, int(s)) for c, s in enumerate(test.shapes)} & held_out
    # every held-out question is about an object of a held-out combination
    data = generator.draw(50, seed=1, split="heldout")
    assert len(data["images"]) == 50 and len(data["answer"]) >= 50 * 6
    shape_answers = data["answer"][data["question"] == 0]
    colours = data["colour"][data["question"] == 0]
    for colour, shape_answer in zip(colours, shape_answers, strict=True):
        shape = ["square", "circle"].index(ANSWERS[shape_answer])
        assert (int(colour), shape) in held_out
