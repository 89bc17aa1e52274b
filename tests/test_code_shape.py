"""The shape of the code a newcomer reads: no function in the package's three layers runs over
80 lines (a longer one is split by what its parts do), and no app panel registers more than 60
lines of callbacks in one ``register`` function."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80
MAX_REGISTER_LINES = 60


def _functions(folders: tuple[str, ...]):
    """(path, node, lines) of every function under ``folders``."""
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield path, node, node.end_lineno - node.lineno + 1


def test_no_function_is_over_80_lines():
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})"
        for path, node, lines in _functions(("circuitlab", "app", "analysis"))
        if lines > MAX_LINES
    ]
    assert not long, long


def test_no_register_function_is_over_60_lines():
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} ({lines})"
        for path, node, lines in _functions(("circuitlab", "app", "analysis"))
        if node.name == "register" and lines > MAX_REGISTER_LINES
    ]
    assert not long, long
