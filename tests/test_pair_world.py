import random
import re

import pytest

from circuitlab.data.pair_scenes import (
    PairObject,
    PairScene,
    read_pair_examples,
    write_pair_examples,
)
from circuitlab.worlds.grammar import ALL, COMPARE, HARD, PRESUPPOSITION, SOFT, SPATIAL
from circuitlab.worlds.nlvr2_vocab import object_nouns, word_coverage, words
from circuitlab.worlds.pair_world import (
    HELD_OUT_EVERY,
    RELATIONS,
    PairWorld,
    noun_forms,
    noun_split,
    random_pair,
    random_pair_sentence,
    world_nouns,
)
from circuitlab.worlds.pair_world_extra import random_pair_extra_sentence


def obj(noun="dog", x=0.5, depth=0.5, on=None, colour="white", pose="standing", facing="left"):
    return PairObject(noun, colour, "medium", pose, facing, x, depth, on)


# ---------------------------------------------------------------- NLVR2's nouns
def test_object_nouns_are_nlvr2s_counted_nouns_with_their_plurals():
    nouns = {f.singular: f.plural for f in object_nouns(80)}
    assert object_nouns(1)[0].singular == "dog"  # NLVR2's most counted object
    expected = {
        "dog": "dogs",
        "person": "people",
        "puppy": "puppies",
        "wolf": "wolves",
        "glass": "glasses",
        "bus": "buses",
        "woman": "women",
    }
    assert {k: nouns.get(k) for k in expected} == expected
    # verbs, numbers, image words and body parts are not objects
    for word in ("show", "contain", "include", "four", "image", "side", "leg", "paw"):
        assert word not in nouns


def test_object_nouns_on_a_small_corpus():
    sentences = [
        "There are two cats and a cat.",
        "Two cats sit. The cat runs.",
        "There are three cats here and a cat there.",
        "The image shows two images of one image.",
        "Two shows, a show, the show.",
        "The picture shows it; it shows two shows.",
    ]
    found = [(f.singular, f.plural) for f in object_nouns(10, sentences, min_counted=2)]
    # "shows" follows a quantity twice and an article twice, but follows a subject as often:
    # a verb; "images" names the pictures
    assert found == [("cat", "cats")]


def test_word_coverage_counts_running_words():
    assert word_coverage(["two dogs"], ["Two dogs, two cats."]) == pytest.approx(3 / 4)
    assert words("Each image's dog") == ["each", "image", "s", "dog"]
    with pytest.raises(ValueError, match="no words"):
        word_coverage(["a"], ["..."])


def test_held_out_nouns_are_every_sixth_and_disjoint_from_training():
    nouns = world_nouns()
    train, held_out = noun_split(nouns)
    assert held_out == [f.singular for f in nouns[HELD_OUT_EVERY - 1 :: HELD_OUT_EVERY]]
    assert not set(train) & set(held_out)
    assert len(train) + len(held_out) == len(nouns)
    world = PairWorld()
    rng = random.Random(0)
    named = {n for _ in range(300) for n in world.sentence(rng).nouns}
    assert named <= set(train)
    with pytest.raises(ValueError, match="zzz"):
        PairWorld(["dog", "zzz"])


# ---------------------------------------------------------------- scenes and relations
def test_relations_on_a_hand_built_image():
    image = (
        obj("dog", x=0.1, depth=0.2),
        obj("ball", x=0.3, depth=0.3),
        obj("cup", x=0.3, depth=0.8, on=None),
        obj("bowl", x=0.32, depth=0.3, on=1),
    )
    holds = {name: relation(image, 0, 1) for name, relation in RELATIONS.items()}
    assert holds == {
        "to the left of": True,
        "to the right of": False,
        "next to": True,
        "on top of": False,
        "in front of": False,
        "behind": False,
    }
    assert RELATIONS["on top of"](image, 3, 1) and not RELATIONS["next to"](image, 3, 1)
    assert RELATIONS["in front of"](image, 1, 2) and RELATIONS["behind"](image, 2, 1)
    assert not RELATIONS["next to"](image, 1, 2)  # same x, but far apart in depth


def test_scenes_refuse_what_no_photo_holds():
    with pytest.raises(ValueError, match="rests on 0"):
        PairScene(((obj(on=0),), ()))
    with pytest.raises(ValueError, match="at most 6"):
        PairScene((tuple(obj() for _ in range(7)), ()))
    with pytest.raises(ValueError, match="colour"):
        obj(colour="mauve")
    with pytest.raises(ValueError, match="x must lie"):
        obj(x=1.5)


# ---------------------------------------------------------------- the grammar's logic
def _sentences_by_text(draw, n: int) -> dict:
    """``n`` sentences ``draw(rng, training nouns)`` makes, by their text (lower case, no full
    stop)."""
    train = noun_split(world_nouns())[0]
    rng = random.Random(0)
    sentences = {}
    for _ in range(n):
        s = draw(rng, train)
        sentences[s.text.lower().rstrip(".")] = s
    return sentences


@pytest.fixture(scope="module")
def grammar():
    """20,000 sentences about the training nouns, by their text."""
    return _sentences_by_text(random_pair_sentence, 20_000)


NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
QUANTITY_TESTS = {
    "": lambda k, n: k == n,
    "exactly ": lambda k, n: k == n,
    "at least ": lambda k, n: k >= n,
    "more than ": lambda k, n: k > n,
    "no more than ": lambda k, n: k <= n,
    "at most ": lambda k, n: k <= n,
}
QUANTITY = (
    r"(exactly |at least |more than |no more than |at most )?(one|two|three|four|five|six|\d)"
)
PLURALS = {f.plural: f.singular for f in object_nouns(600)}


def _number(word: str) -> int:
    return NUMBERS.get(word) or int(word)


def _count(image, noun: str) -> int:
    return sum(o.noun == noun for o in image)


def _singular(word: str) -> str:
    return PLURALS.get(word, word)


def _side(word: str) -> int:
    return 0 if word == "left" else 1


def _reference_count_in_image(m, scene):
    side, quantity, number, noun = m.groups()
    return QUANTITY_TESTS[quantity or ""](
        _count(scene.images[_side(side)], _singular(noun)), _number(number)
    )


def _reference_comparison(m, scene):
    word, noun, first, second = m.groups()
    a = _count(scene.images[_side(first)], _singular(noun))
    b = _count(scene.images[_side(second)], _singular(noun))
    return a > b if word == "more" else a < b


def _reference_total(m, scene):
    quantity, number, noun = m.groups()
    total = sum(_count(image, _singular(noun)) for image in scene.images)
    return QUANTITY_TESTS[quantity or ""](total, _number(number))


def _reference_the_one(m, scene):
    noun, side, pose = m.groups()
    found = [o for o in scene.images[_side(side)] if o.noun == noun]
    return len(found) == 1 and found[0].pose == pose.split()[0]


def _reference_all(m, scene):
    noun, pose = m.groups()
    found = [o for image in scene.images for o in image if o.noun == _singular(noun)]
    return bool(found) and all(o.pose == pose.split()[0] for o in found)


def _described(o, colour: str | None, noun: str) -> bool:
    return o.noun == noun and (colour is None or o.colour == colour)


def _reference_next_to(m, scene):
    side, first_colour, first, second_colour, second = m.groups()
    image = scene.images[_side(side)]
    for i, a in enumerate(image):
        for j, b in enumerate(image):
            if i == j or a.on == j or b.on == i:
                continue
            if not (_described(a, first_colour, first) and _described(b, second_colour, second)):
                continue
            if abs(a.x - b.x) <= 0.3 and abs(a.depth - b.depth) <= 0.3:
                return True
    return False


VERB = r"(?:contains|shows|includes|has|features)"
COLOUR = r"(?:(white|black|brown|gray|red|blue|green|yellow) )?"
NEXT_TO = r"(?:next to|beside|near)"


def _count_category(m) -> str:
    return HARD if m.group(2) in (None, "exactly ") else SOFT


REFERENCES = [
    (
        rf"^the (left|right) image {VERB} {QUANTITY} ([a-z]+)$",
        _reference_count_in_image,
        _count_category,
    ),
    (
        r"^there are (more|fewer) ([a-z]+) in the (left|right) image than in the (left|right) "
        r"image$",
        _reference_comparison,
        COMPARE,
    ),
    (rf"^there are {QUANTITY} ([a-z]+) in total$", _reference_total, None),
    (
        r"^the ([a-z]+) in the (left|right) image is (standing|sitting|lying down)$",
        _reference_the_one,
        PRESUPPOSITION,
    ),
    (r"^all (?:of the |the )?([a-z]+) are (standing|sitting|lying down)$", _reference_all, None),
    (
        rf"^the (left|right) image {VERB} an? {COLOUR}([a-z]+) {NEXT_TO} an? {COLOUR}([a-z]+)$",
        _reference_next_to,
        SPATIAL,
    ),
]


@pytest.mark.parametrize(("pattern", "reference", "category"), REFERENCES)
def test_sentences_agree_with_a_reference_reading_of_their_words(
    grammar, pattern, reference, category
):
    """Each family of sentences, read from its words here and executed on random pairs around
    its nouns, gets the label the grammar's logical form gives; both labels occur."""
    _agrees_with_reference(grammar, pattern, reference, category)


def _agrees_with_reference(grammar, pattern, reference, category) -> None:
    regex = re.compile(pattern)
    rng = random.Random(1)
    vocabulary = noun_split(world_nouns())[0]
    matched = [(regex.match(text), sentence) for text, sentence in grammar.items()]
    matched = [(m, sentence) for m, sentence in matched if m]
    assert len(matched) >= 3, pattern
    labels = []
    for m, sentence in matched:
        if category is not None:
            expected_category = category(m) if callable(category) else category
            assert expected_category in sentence.categories, sentence.text
        for _ in range(max(4, 600 // len(matched))):
            scene = random_pair(rng, list(sentence.nouns), vocabulary)
            expected = reference(m, scene)
            assert sentence.label(scene) == expected, sentence.text
            labels.append(expected)
    assert min(sum(labels), len(labels) - sum(labels)) >= 10, pattern  # both labels, often


# ---------------------------------------------------------------- the extra phrasings
@pytest.fixture(scope="module")
def extra_grammar():
    """8,000 sentences of the extra phrasings, by their text."""
    return _sentences_by_text(random_pair_extra_sentence, 8_000)


def _reference_the_one_said_first(m, scene):
    side, other_side, noun, pose = m.groups()
    found = [o for o in scene.images[_side(side or other_side)] if o.noun == noun]
    return len(found) == 1 and found[0].pose == pose.split()[0]


def _reference_count_in_some_image(m, scene, combine=any):
    quantity, number, noun = m.groups()
    test = QUANTITY_TESTS[quantity or ""]
    return combine(test(_count(image, _singular(noun)), _number(number)) for image in scene.images)


EXTRA_REFERENCES = [
    (
        r"^the ([a-z]+) in the image (?:on|to) the (left|right) is (standing|sitting|lying down)$",
        _reference_the_one,
        PRESUPPOSITION,
    ),
    (
        r"^in (?:the (left|right) image|the image (?:on|to) the (left|right)),? the ([a-z]+) is "
        r"(standing|sitting|lying down)$",
        _reference_the_one_said_first,
        PRESUPPOSITION,
    ),
    (
        rf"^the image to the (left|right) {VERB} {QUANTITY} ([a-z]+)$",
        _reference_count_in_image,
        _count_category,
    ),
    (
        rf"^the (left|right) (?:photo|picture) {VERB} {QUANTITY} ([a-z]+)$",
        _reference_count_in_image,
        _count_category,
    ),
    (
        rf"^(?:an image|one of the two images|one picture) {VERB} {QUANTITY} ([a-z]+)$",
        _reference_count_in_some_image,
        None,
    ),
    (
        rf"^(?:each of the images|each picture) {VERB} {QUANTITY} ([a-z]+)$",
        lambda m, scene: _reference_count_in_some_image(m, scene, all),
        ALL,
    ),
]


@pytest.mark.parametrize(("pattern", "reference", "category"), EXTRA_REFERENCES)
def test_extra_phrasings_agree_with_a_reference_reading_of_their_words(
    extra_grammar, pattern, reference, category
):
    _agrees_with_reference(extra_grammar, pattern, reference, category)


def test_extra_phrasings_are_ones_the_base_grammar_never_says(grammar, extra_grammar):
    new_words = [
        r"^an image ",
        r"the image to the (left|right)",
        r"^in the (left|right) image,? the ",
        r"^the [a-z ]+ in the image on the (left|right) is ",
        r"the (left|right) (photo|picture)",
        r"each of the images",
    ]
    for pattern in new_words:
        regex = re.compile(pattern)
        assert not any(regex.search(text) for text in grammar), pattern
        assert sum(bool(regex.search(text)) for text in extra_grammar) >= 50, pattern


# ---------------------------------------------------------------- examples and files
def test_examples_are_seeded_and_balanced():
    world = PairWorld()
    first = [world.example(seed) for seed in range(200)]
    again = [world.example(seed) for seed in range(200)]
    assert first == again
    assert 0.4 < sum(e.label for e in first) / len(first) < 0.6
    for e in first:
        assert all(len(image) <= 6 for image in e.scene.images)
    rng = random.Random(3)
    sentence = world.sentence(rng)
    labels = [world.example(seed, sentence).label for seed in range(60)]
    assert 15 < sum(labels) < 45  # labels balanced per sentence, by redrawing pairs


def test_examples_round_trip_through_a_file(tmp_path):
    world = PairWorld()
    examples = [world.example(seed) for seed in range(50)]
    for name in ("pairs.jsonl", "pairs.jsonl.gz"):
        path = write_pair_examples(examples, tmp_path / name)
        assert read_pair_examples(path) == examples
    bad = tmp_path / "bad.jsonl"
    bad.write_text(path.read_bytes() and '{"sentence": "x"}\n')
    with pytest.raises(ValueError, match="line 1"):
        read_pair_examples(bad)


def test_noun_forms_names_an_unknown_noun():
    assert noun_forms("wolf").plural == "wolves"
    with pytest.raises(ValueError, match="'unicorn'"):
        noun_forms("unicorn")


def test_pair_figure_draws_each_object_in_its_panel_with_its_name():
    from matplotlib.patches import Rectangle

    from circuitlab.analysis import pair_figure

    left = (obj("dog", x=0.2, colour="brown"), obj("ball", x=0.2, on=0, colour="red"))
    right = (obj("cup", x=0.8, colour="blue", pose="lying"),)
    fig = pair_figure(PairScene((left, right)), "The ball is on top of the dog.", True)
    panels = fig.axes
    assert [len([p for p in ax.patches if isinstance(p, Rectangle)]) for ax in panels] == [2, 1]
    names = [[t.get_text() for t in ax.texts] for ax in panels]
    assert names == [["medium brown dog", "medium red ball"], ["medium blue cup"]]
    dog, ball = (p for p in panels[0].patches if isinstance(p, Rectangle))
    assert ball.get_y() == pytest.approx(dog.get_y() + dog.get_height())  # resting on it
    cup = next(p for p in panels[1].patches if isinstance(p, Rectangle))
    assert cup.get_width() > cup.get_height()  # lying: a flat glyph
    assert fig._suptitle.get_text() == "The ball is on top of the dog.  [true]"


def test_a_disjunction_joins_two_clauses_by_or_and_holds_when_either_does():
    from circuitlab.worlds.pair_world import _image_contains
    from circuitlab.worlds.pair_world_extra import _disjunction, random_pair_disjunction

    vocabulary = noun_split(world_nouns())[0]
    nouns = (vocabulary[0], vocabulary[1])
    seen = set()
    for seed in range(40):
        either = _disjunction(random.Random(seed), nouns)
        rng = random.Random(seed)  # the same draws: the two clauses it joined
        first, second = _image_contains(rng, nouns), _image_contains(rng, nouns)
        assert either.text == f"{first.text}, or {second.text[0].lower()}{second.text[1:]}"
        scenes = random.Random(1000 + seed)
        for _ in range(25):
            scene = random_pair(scenes, list(nouns), vocabulary)
            a, b = first.label(scene), second.label(scene)
            assert either.label(scene) == (a or b)
            seen.add((a, b))
    assert seen == {(False, False), (False, True), (True, False), (True, True)}
    drawn = random_pair_disjunction(random.Random(0), vocabulary)
    assert ", or " in drawn.text


def test_one_image_or_the_other_holds_when_either_clause_does_for_one_naming_of_the_images():
    """The "or" form draws what the base grammar's "and" form draws (the same clauses, "or"
    for "and"), so on any scene "and" implies "or", and "or" is true where one clause alone is."""
    from circuitlab.worlds.pair_world import _one_and_other
    from circuitlab.worlds.pair_world_extra import DISJUNCTION_FORMS

    vocabulary = noun_split(world_nouns())[0]
    nouns = (vocabulary[0], vocabulary[1])
    labels = set()
    for seed in range(40):
        both = _one_and_other(random.Random(seed), nouns)
        either = _one_and_other(random.Random(seed), nouns, conjunction="or")
        assert either.text == both.text.replace(", and the other", ", or the other", 1)
        scenes = random.Random(2000 + seed)
        for _ in range(25):
            scene = random_pair(scenes, list(nouns), vocabulary)
            a, b = both.label(scene), either.label(scene)
            assert b or not a  # "and" implies "or"
            labels.add((a, b))
    assert labels == {(False, False), (False, True), (True, True)}
    assert len(DISJUNCTION_FORMS) == 2
