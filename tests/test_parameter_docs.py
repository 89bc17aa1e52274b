"""Public names document their parameters: each parameter of a function (each field of a
dataclass, each argument of a class's ``__init__``) is named in its docstring's ``Parameters``
section (numpydoc; ``a, b`` documents two). Every public module declares ``__all__`` (what
other modules may import from it); every class and function in it, and every name the API
reference shows, does."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from api_reference import PACKAGES  # noqa: E402


def documented_names(doc: str) -> set[str]:
    """The names a numpydoc ``Parameters`` section of ``doc`` documents."""
    lines = inspect.cleandoc(doc or "").split("\n")
    names: set[str] = set()
    for k, line in enumerate(lines[:-1]):
        if line.strip() == "Parameters" and set(lines[k + 1].strip()) == {"-"}:
            indent = len(line) - len(line.lstrip())
            section = lines[k + 2 :]
            for n, entry in enumerate(section):
                if n + 1 < len(section) and re.fullmatch(r"-+", section[n + 1].strip()):
                    break  # the next section's header
                if entry.strip() and len(entry) - len(entry.lstrip()) == indent:
                    head = entry.strip().split(" : ")[0]
                    names |= {name.strip().lstrip("*") for name in head.split(",")}
    return names


def parameters(obj: object) -> list[str]:
    """What a caller passes: a dataclass's init fields, a class's own ``__init__``'s
    arguments, a function's arguments (self and cls left out)."""
    if inspect.isclass(obj):
        if getattr(obj, "_is_protocol", False):
            return []  # a Protocol is not built: its implementations are
        if dataclasses.is_dataclass(obj):
            return [f.name for f in dataclasses.fields(obj) if f.init]
        init = obj.__dict__.get("__init__")
        if init is None:
            return []
        obj = init
    signature = inspect.signature(obj)
    return [name for name in signature.parameters if name not in ("self", "cls")]


@functools.cache
def public_names() -> dict[str, object]:
    """Every class and function in the ``__all__`` of the packages the API reference shows,
    by its dotted name there."""
    found = {}
    for package, _ in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) or inspect.isfunction(value):
                found[f"{package}.{name}"] = value
    return found


def missing(obj: object) -> list[str]:
    """The parameters of ``obj`` its docstring (or its own ``__init__``'s) does not name."""
    named = documented_names(inspect.getdoc(obj) or "")
    if inspect.isclass(obj) and "__init__" in obj.__dict__:
        named |= documented_names(inspect.getdoc(obj.__init__) or "")
    return [name for name in parameters(obj) if name not in named]


@pytest.mark.parametrize("name", sorted(public_names()))
def test_a_public_name_documents_each_parameter(name):
    lacking = missing(public_names()[name])
    assert not lacking, f"{name}'s docstring has no Parameters entry for {lacking}"


LAYERS = {"circuitlab": "circuitlab", "analysis": "circuitlab.analysis", "app": "circuitlab.app"}


def public_modules() -> dict[str, Path]:
    """Every module of the three layers whose path has no part starting with "_" (packages'
    ``__init__`` aside), by its import name."""
    found = {}
    for folder, package in LAYERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if path.name == "__init__.py" or any(part.startswith("_") for part in parts):
                continue
            found[".".join((package, *parts))] = path
    return found


def test_every_public_module_declares_all_of_names_it_has():
    for name, path in public_modules().items():
        tree = ast.parse(path.read_text())
        declared = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(getattr(target, "id", None) == "__all__" for target in node.targets)
        ]
        assert len(declared) == 1, f"{name} declares no __all__"
        listed = ast.literal_eval(declared[0])
        defined = {
            target.id
            for node in tree.body
            for target in (
                [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
            )
            if isinstance(target, ast.Name)
        } | {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        }
        imported = {  # a module may re-export (circuitlab.train: from loading, predict, ...)
            alias.asname or alias.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert set(listed) <= defined | imported, f"{name}.__all__ lists {set(listed) - defined}"


@functools.cache
def module_names() -> dict[str, object]:
    """The classes and functions of every public module's ``__all__``, by dotted name."""
    found = {}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            defined_here = getattr(value, "__module__", None) == module_name  # not re-exported
            if (inspect.isclass(value) or inspect.isfunction(value)) and defined_here:
                found[f"{module_name}.{name}"] = value
    return found


@pytest.mark.parametrize("name", sorted(module_names()))
def test_a_modules_public_name_documents_each_parameter(name):
    lacking = missing(module_names()[name])
    assert not lacking, f"{name}'s docstring has no Parameters entry for {lacking}"


def test_the_parameters_section_is_read_as_numpydoc():
    doc = """Summary.

    Parameters
    ----------
    a, b
        Two at once.
    c : int
        Typed.
    **options
        Keywords.

    Returns
    -------
    d
        Not a parameter.
    """
    assert documented_names(doc) == {"a", "b", "c", "options"}
