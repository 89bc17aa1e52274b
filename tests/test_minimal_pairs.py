"""Minimal pairs: wording variants keep the logic, logic variants keep the words."""

import random

from circuitlab.data.minimal_pairs import logic_variant, minimal_pairs, wording_variant
from circuitlab.data.world import random_sentence


def _changed_words(a: str, b: str) -> set[str]:
    return set(a.lower().rstrip(".").split()) ^ set(b.lower().rstrip(".").split())


def test_logic_variants_change_an_operator_and_keep_the_content_words():
    rng = random.Random(0)
    assert logic_variant("There are at least two yellow squares", rng) in {
        "There are at most two yellow squares",
        "There are at least three yellow squares",
    }
    assert logic_variant("There is a blue circle above a black square.", random.Random(1)) in {
        "There is no blue circle above a black square.",
        "There is a blue circle below a black square.",
    }
    assert logic_variant("none of the yellow triangles are touching the floor", rng) == (
        "none of the yellow triangles are not touching the floor"
    )
    assert logic_variant("Blue squares", rng) is None  # nothing to change
    content = {"black", "yellow", "blue", "square", "squares", "circle", "circles", "triangle"}
    sentences = [random_sentence(random.Random(s)).text for s in range(300)]
    for text in sentences:
        variant = logic_variant(text, rng)
        if variant is not None:
            assert variant != text
            assert not (_changed_words(text, variant) & content), (text, variant)


def test_wording_variants_change_content_words_only():
    rng = random.Random(0)
    assert wording_variant("There is a box with only blue and yellow objects.", rng) in {
        "There is a box with only blue and yellow items.",
        "There is a box with only black and yellow objects.",
    }  # never "blue and blue": a colour already named is not written again
    logic_words = {"at", "least", "most", "more", "fewer", "exactly", "no", "not", "above"}
    logic_words |= {"below", "and", "or", "two", "three", "four", "2", "3", "each", "every"}
    sentences = [random_sentence(random.Random(s)).text for s in range(300)]
    for text in sentences:
        variant = wording_variant(text, rng)
        if variant is not None:
            assert variant != text
            assert not (_changed_words(text, variant) & logic_words), (text, variant)


def test_minimal_pairs_are_seeded_and_complete():
    texts = [random_sentence(random.Random(s)).text for s in range(200)]
    pairs = minimal_pairs(texts, seed=3)
    assert pairs.equals(minimal_pairs(texts, seed=3))
    assert len(pairs) > 100
    assert (pairs["text"] != pairs["wording"]).all() and (pairs["text"] != pairs["logic"]).all()
    assert set(pairs["text"]) <= set(texts)
