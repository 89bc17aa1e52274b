"""ListOps: the grammar's values on hand-made expressions, parsing, draws and the task."""

from __future__ import annotations

import random

import pytest
import torch

from circuitlab.worlds.listops import VOCAB, draw, evaluate, parse, to_tokens
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.listops import ListOps, encode


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[MAX 2 9 [MIN 4 7 ] 0 ]", 9),  # Nangia & Bowman's example
        ("[MIN 3 8 1 ]", 1),
        ("[SM 5 7 ]", 2),
        ("[SM 9 9 9 ]", 7),
        ("[MED 1 5 3 ]", 3),
        ("[MED 1 2 3 4 ]", 2),  # int(median): (2 + 3) / 2 rounded down
        ("[MED 0 9 ]", 4),
        ("[MAX [SM 4 4 ] [MED 7 1 2 ] [MIN 6 [MAX 0 5 ] ] ]", 8),
        ("7", 7),
    ],
)
def test_values_of_hand_made_expressions(text: str, value: int) -> None:
    assert evaluate(parse(text)) == value


def test_parse_and_to_tokens_round_trip() -> None:
    text = "[MAX [SM 4 4 ] [MED 7 1 2 ] [MIN 6 [MAX 0 5 ] ] ]"
    assert " ".join(to_tokens(parse(text))) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[MAX 2 3", "never closed"),
        ("[MAX ]", "no argument"),
        ("[MAX 2 3 ] 4", "tokens left"),
        ("[AVG 2 3 ]", "unexpected token"),
        ("", "empty"),
    ],
)
def test_malformed_expressions_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse(text)


def test_draws_are_seeded_bounded_and_evaluate_to_a_digit() -> None:
    a = [draw(random.Random(1), max_length=120) for _ in range(1)]
    b = [draw(random.Random(1), max_length=120) for _ in range(1)]
    assert a == b
    rng = random.Random(0)
    for _ in range(50):
        tokens = to_tokens(draw(rng, min_length=20, max_length=120))
        assert 20 <= len(tokens) <= 120
        assert tokens[0].startswith("[")
        assert 0 <= evaluate(parse(tokens)) <= 9


def test_impossible_length_bounds_fail_clearly() -> None:
    with pytest.raises(ValueError, match="widen the bounds"):
        draw(random.Random(0), max_depth=1, max_args=2, min_length=50, max_length=60)


def test_encode_one_hot_tokens_with_a_mask() -> None:
    batch = encode([parse("[MAX 2 9 ]"), parse("[SM 1 [MIN 3 4 ] ]")])
    assert batch.inputs.shape == (2, 7, len(VOCAB))
    assert batch.input_mask.sum(1).tolist() == [4, 7]
    assert torch.equal(batch.inputs.sum(-1), batch.input_mask.float())  # one-hot, padding zero
    assert batch.labels.tolist() == [9, 4]


def test_task_draws_are_deterministic_and_never_from_the_test_set() -> None:
    task = make_task("listops", test_size=300, max_length=60)
    a, b = task.sample(32, seed=5), task.sample(32, seed=5)
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.labels, b.labels)
    test = {tuple(to_tokens(e)) for e in task.test_expressions}
    for seed in range(20):
        for expression in task.expressions(32, seed):
            assert tuple(to_tokens(expression)) not in test
    # the validation split is the fixed test set, whatever the seed
    assert torch.equal(task.validation(50, 0).inputs, task.validation(50, 9).inputs)
    assert task.validation(50, 0).labels.tolist() == [
        evaluate(e) for e in task.test_expressions[:50]
    ]


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="no sentences"):
        ListOps(conditional=True)
    with pytest.raises(ValueError, match="min_length"):
        ListOps(min_length=30, max_length=20)
