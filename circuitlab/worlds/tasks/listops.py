"""``listops``: the value (10 classes) of a ListOps expression (circuitlab/worlds/listops.py).

Inputs are one-hot tokens (B, N, len(VOCAB)) with a mask (B, N) over the real tokens; the model
reads them through the feature tokenizer with learned positions (``max_tokens`` >= the task's
``max_length``). The validation split is a fixed test set of ``test_size`` expressions drawn
once from ``data_seed``; training draws never return one of them.
"""

from __future__ import annotations

import random

import torch

from circuitlab.task import Batch
from circuitlab.worlds.listops import TOKEN_ID, VOCAB, Expression, draw, evaluate, to_tokens

__all__ = ["ListOps", "encode"]


class ListOps:
    """``listops``: 10 classes, one-hot tokens of width len(VOCAB).

    Parameters
    ----------
    conditional
        Must be False: the task has no sentences (ValueError otherwise).
    max_depth, max_args, op_probability, min_length, max_length
        The shape of the expressions drawn (``circuitlab.worlds.listops``): nesting depth, operands
        per operator, the chance an operand is an operator, and token counts.
    test_size
        Expressions of the fixed validation set.
    data_seed
        Seed of the validation set.
    """

    name = "listops"
    conditional = False
    cond_vocab = None
    cond_dim = None
    input_dim = len(VOCAB)
    n_classes = 10

    def __init__(
        self,
        *,
        conditional: bool = False,
        max_depth: int = 6,
        max_args: int = 5,
        op_probability: float = 0.25,
        min_length: int = 10,
        max_length: int = 200,
        test_size: int = 2000,
        data_seed: int = 0,
    ) -> None:
        if conditional:
            raise ValueError("listops has no sentences: train it unconditional")
        if not 1 <= min_length <= max_length:
            raise ValueError(f"need 1 <= min_length <= max_length, got {min_length}, {max_length}")
        if test_size < 1:
            raise ValueError(f"test_size must be >= 1, got {test_size}")
        self.grammar = dict(
            max_depth=max_depth,
            max_args=max_args,
            op_probability=op_probability,
            min_length=min_length,
            max_length=max_length,
        )
        self.max_length = max_length
        rng = random.Random(f"listops-test-{data_seed}")
        self.test_expressions = [draw(rng, **self.grammar) for _ in range(test_size)]
        self._test_keys = {tuple(to_tokens(e)) for e in self.test_expressions}

    def expressions(self, batch_size: int, seed: int) -> list[Expression]:
        """``batch_size`` training expressions drawn from ``seed``, none in the test set."""
        rng = random.Random(f"listops-train-{seed}")
        chosen: list[Expression] = []
        while len(chosen) < batch_size:
            expression = draw(rng, **self.grammar)
            if tuple(to_tokens(expression)) not in self._test_keys:
                chosen.append(expression)
        return chosen

    def sample(self, batch_size: int, seed: int) -> Batch:
        return encode(self.expressions(batch_size, seed))

    def validation(self, batch_size: int, seed: int) -> Batch:
        """The first ``batch_size`` expressions of the fixed test set (seed unused)."""
        return encode(self.test_expressions[:batch_size])

    def circuit_inputs(self, n: int, seed: int):  # noqa: ANN201 (the Task protocol's)
        raise ValueError("an unconditional task has a single circuit; nothing to enumerate")


def encode(expressions: list[Expression]) -> Batch:
    """One-hot tokens (B, N, len(VOCAB)), N the longest expression, padding masked out, and
    the values (B,).

    Parameters
    ----------
    expressions
        Parsed expressions.
    """
    token_lists = [to_tokens(e) for e in expressions]
    n = max(len(t) for t in token_lists)
    ids = torch.zeros(len(token_lists), n, dtype=torch.long)
    for row, tokens in enumerate(token_lists):
        ids[row, : len(tokens)] = torch.tensor([TOKEN_ID[t] for t in tokens])
    mask = ids != TOKEN_ID["<pad>"]
    inputs = torch.nn.functional.one_hot(ids, len(VOCAB)).float() * mask.unsqueeze(-1)
    labels = torch.tensor([evaluate(e) for e in expressions])
    return Batch(inputs, labels, input_mask=mask)
