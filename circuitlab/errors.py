"""The project's own error types for bad input from outside the library.

Every error circuitlab raises for a researcher's own tensors, ids, files or numbers is a
``CircuitlabError``; its message names the input and says how to fix it. It is a ``ValueError``,
so code that catches ``ValueError`` keeps working, and the CLI turns it into a one-line message
with exit code 2.
"""

from __future__ import annotations

__all__ = ["CircuitlabError", "InputError"]


class CircuitlabError(ValueError):
    """Bad input from outside the library (a tensor, an id, a file, a number)."""


class InputError(CircuitlabError):
    """An argument of a public function that cannot be used: ``argument`` names it, the
    message says what is wrong with it and what to pass instead.

    Parameters
    ----------
    argument
        The argument's name, as the caller wrote it.
    problem
        What is wrong with the value given.
    fix
        What to pass instead ("" when the problem says it).
    """

    def __init__(self, argument: str, problem: str, fix: str = "") -> None:
        self.argument = argument
        super().__init__(f"{argument}: {problem}" + (f"; {fix}" if fix else ""))
