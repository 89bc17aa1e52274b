"""Minimal pairs: wording variants keep the logic, logic variants keep the words."""

import random

from circuitlab.worlds.minimal_pairs import logic_variant, minimal_pairs, wording_variant
from circuitlab.worlds.world import random_sentence


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


NOUNS = [("dog", "dogs"), ("bottle", "bottles"), ("person", "people")]


def test_nlvr2_minimal_pairs_swap_a_noun_or_the_logic():
    from circuitlab.worlds.minimal_pairs import nlvr2_minimal_pairs

    texts = [
        "There are exactly two dogs in the left image.",
        "One image shows a dog and two people.",
        "At least one image shows a bottle.",  # "at least one image" keeps its logic words
        "A sunset over the sea.",  # names no counted noun: no pair
    ]
    pairs = nlvr2_minimal_pairs(texts, NOUNS, seed=0).set_index("text")
    first = pairs.loc[texts[0]]
    assert first["wording"] in {
        "There are exactly two bottles in the left image.",
        "There are exactly two people in the left image.",
    }
    assert first["logic"] in {
        "There are at least two dogs in the left image.",
        "There are exactly three dogs in the left image.",
        "There are exactly two dogs in the right image.",
    }
    second = pairs.loc[texts[1]]
    assert second["wording"] in {
        "One image shows a bottle and two people.",
        "One image shows a dog and two bottles.",
    }
    assert second["logic"] in {
        "Each image shows a dog and two people.",
        "One image shows a dog and three people.",
    }
    assert texts[3] not in pairs.index
    at_least = pairs.loc[texts[2]] if texts[2] in pairs.index else None
    assert at_least is None or "each" not in at_least["logic"]


def test_the_logic_kinds_partition_the_nlvr2_rules_and_add_the_missing_ones():
    from collections import Counter

    from circuitlab.worlds.minimal_pairs import NLVR2_LOGIC_KINDS, NLVR2_LOGIC_RULES

    in_kinds = Counter(rule for rules in NLVR2_LOGIC_KINDS.values() for rule in rules)
    assert all(in_kinds[rule] == 1 for rule in NLVR2_LOGIC_RULES)  # each in exactly one kind
    assert max(in_kinds.values()) == 1
    added = {
        kind for kind, rules in NLVR2_LOGIC_KINDS.items() if set(rules) - set(NLVR2_LOGIC_RULES)
    }
    assert {"soft -> hard cardinality", "relation", "connective"} <= added


def test_minimal_pairs_by_kind_change_the_logic_of_that_kind_only():
    from circuitlab.worlds.minimal_pairs import nlvr2_minimal_pairs_by_kind

    texts = [
        "There are exactly two dogs in the left image.",
        "The left image shows at least two bottles, and the other image shows a dog.",
        "A dog is above a bottle.",
        "A sunset over the sea.",  # names no counted noun: no pair
    ]
    pairs = nlvr2_minimal_pairs_by_kind(texts, NOUNS, seed=0)
    logic = {(row.text, row.kind): row.logic for row in pairs.itertuples()}
    first, second, third = texts[:3]
    assert (
        logic[first, "hard -> soft cardinality"] == "There are at least two dogs in the left image."
    )
    assert logic[first, "image side"] == "There are exactly two dogs in the right image."
    assert logic[first, "number"] == "There are exactly three dogs in the left image."
    assert {kind for text, kind in logic if text == first} == {
        "hard -> soft cardinality",
        "image side",
        "number",
    }
    assert logic[second, "soft -> hard cardinality"] == (
        "The left image shows exactly two bottles, and the other image shows a dog."
    )
    assert logic[second, "at least <-> at most"] == (
        "The left image shows at most two bottles, and the other image shows a dog."
    )
    assert logic[second, "connective"] == (
        "The left image shows at least two bottles, or the other image shows a dog."
    )
    assert logic[third, "relation"] == "A dog is below a bottle."
    assert texts[3] not in set(pairs["text"])
    # one noun swap per sentence, the same for each of its kinds
    assert pairs.groupby("text")["wording"].nunique().max() == 1
    assert pairs.equals(nlvr2_minimal_pairs_by_kind(texts, NOUNS, seed=0))  # seeded
