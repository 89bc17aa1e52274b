"""ListOps (Nangia & Bowman, 2018): nested lists of operations on the digits 0-9.

An expression is a digit or ``[OP a b ... ]`` with 2..``max_args`` arguments, each an
expression, where OP is

- ``MAX`` / ``MIN``: the largest / smallest argument;
- ``MED``: the median, ``int(numpy.median)`` as the original generator computes it (the mean of
  the middle two, rounded down, for an even count);
- ``SM``: the sum modulo 10.

For example ``[MAX 2 9 [MIN 4 7 ] 0 ]`` is 9. Written as tokens: ``[MAX``, ``[MIN``, ``[MED``,
``[SM``, ``]`` and the ten digits. Draws follow the original recursive grammar: below
``max_depth`` a node is an operation with probability ``op_probability`` (the original 0.25),
otherwise a digit; expressions whose token count falls outside [min_length, max_length] are
drawn again.
"""

from __future__ import annotations

import random
from typing import Union

__all__ = ["Expression", "TOKEN_ID", "VOCAB", "draw", "evaluate", "parse", "to_tokens"]

OPERATIONS = ("[MAX", "[MIN", "[MED", "[SM")
CLOSE = "]"
DIGITS = tuple(str(d) for d in range(10))
# token ids: 0 is padding, then the digits, the operations and the closing bracket
VOCAB = ("<pad>", *DIGITS, *OPERATIONS, CLOSE)
TOKEN_ID = {token: i for i, token in enumerate(VOCAB)}

Expression = Union[int, tuple[str, list["Expression"]]]  # noqa: UP007 (recursive alias)


def evaluate(expression: Expression) -> int:
    """The value (0..9) of ``expression``.

    Parameters
    ----------
    expression
        A parsed expression.
    """
    if isinstance(expression, int):
        return expression
    operation, arguments = expression
    values = [evaluate(a) for a in arguments]
    if operation == "[MAX":
        return max(values)
    if operation == "[MIN":
        return min(values)
    if operation == "[SM":
        return sum(values) % 10
    if operation == "[MED":
        ordered = sorted(values)
        middle = len(ordered) // 2
        if len(ordered) % 2:
            return ordered[middle]
        return (ordered[middle - 1] + ordered[middle]) // 2
    raise ValueError(f"unknown operation {operation!r}; expected one of {OPERATIONS}")


def to_tokens(expression: Expression) -> list[str]:
    """The tokens of ``expression``, e.g. ``['[MAX', '2', '9', ']']``.

    Parameters
    ----------
    expression
        A parsed expression.
    """
    if isinstance(expression, int):
        return [str(expression)]
    operation, arguments = expression
    tokens = [operation]
    for argument in arguments:
        tokens += to_tokens(argument)
    return [*tokens, CLOSE]


def parse(text: str | list[str]) -> Expression:
    """The expression written as ``text`` (tokens separated by spaces, or a token list);
    malformed input raises ValueError naming the problem.

    Parameters
    ----------
    text
        As above.
    """
    tokens = text.split() if isinstance(text, str) else list(text)
    if not tokens:
        raise ValueError("empty expression")
    position = 0

    def read() -> Expression:
        nonlocal position
        if position >= len(tokens):
            raise ValueError("expression ends early: a ']' is missing")
        token = tokens[position]
        position += 1
        if token in DIGITS:
            return int(token)
        if token not in OPERATIONS:
            raise ValueError(f"unexpected token {token!r} at position {position - 1}")
        arguments: list[Expression] = []
        while position < len(tokens) and tokens[position] != CLOSE:
            arguments.append(read())
        if position >= len(tokens):
            raise ValueError(f"{token} opened at position {position} is never closed")
        position += 1  # the closing bracket
        if not arguments:
            raise ValueError(f"{token} has no argument")
        return (token, arguments)

    expression = read()
    if position != len(tokens):
        raise ValueError(f"tokens left after the expression: {tokens[position:]}")
    return expression


def draw(
    rng: random.Random,
    *,
    max_depth: int = 6,
    max_args: int = 5,
    op_probability: float = 0.25,
    min_length: int = 10,
    max_length: int = 200,
) -> Expression:
    """One expression from the grammar whose token count lies in [min_length, max_length]
    (the root is always an operation).

    Parameters
    ----------
    rng
        The random stream drawn from.
    max_depth, max_args, op_probability
        Nesting depth, operands per operator, and the chance an operand is an operator.
    min_length, max_length
        Token counts accepted.
    """
    if not 0 < op_probability <= 1:
        raise ValueError(f"op_probability must be in (0, 1], got {op_probability}")
    if max_args < 2 or max_depth < 1:
        raise ValueError(f"need max_args >= 2 and max_depth >= 1, got {max_args}, {max_depth}")

    def node(depth: int) -> Expression:
        if depth > 0 and (depth >= max_depth or rng.random() >= op_probability):
            return rng.randrange(10)
        arguments = [node(depth + 1) for _ in range(rng.randint(2, max_args))]
        return (rng.choice(OPERATIONS), arguments)

    for _ in range(10_000):
        expression = node(0)
        if min_length <= len(to_tokens(expression)) <= max_length:
            return expression
    raise ValueError(
        f"no expression of {min_length}..{max_length} tokens in 10,000 draws; widen the bounds "
        "or change max_depth / op_probability"
    )
