"""Write docs/api.md, the API reference, from the public names (``__all__``) of circuitlab's
packages: one mkdocstrings entry per name, under the module that defines it.

    python scripts/api_reference.py          # rewrite docs/api.md
    python scripts/api_reference.py --check  # exit 1 if docs/api.md is not what it would write

``make test`` runs the check (tests/test_docs.py), so a name added to or removed from an
``__all__`` shows up in the reference or fails the tests.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.md"
# (package, what it is), in the order of the reference
PACKAGES = [
    ("circuitlab", "the model, circuits and stores"),
    ("circuitlab.nn", "the NAC's layers"),
    ("circuitlab.kinds", "model kinds: the registry every part asks"),
    ("circuitlab.task", "the task interface: what a task gives the trainer"),
    ("circuitlab.worlds.tasks", "the tasks: seeded sources of batches on worlds and datasets"),
    ("circuitlab.train", "training, and what it re-exports from loading, predict and run_config"),
    ("circuitlab.analysis", "graphs, prior fits, embeddings and figures (numpy only)"),
    ("circuitlab.app", "the Dash app"),
    ("circuitlab.ni", "Neural Interpreters"),
    ("circuitlab.mn", "Modular Networks"),
    ("circuitlab.nfm", "Neural Function Modules"),
]


def target(package: str, name: str) -> str:
    """The mkdocstrings identifier of ``package.name``: the submodule itself for a module,
    else the name under the module that defines it (a lazy package's table says which without
    importing it; otherwise the object's ``__module__``)."""
    module = importlib.import_module(package)
    if importlib.util.find_spec(f"{package}.{name}") if _is_package(module) else False:
        return f"{package}.{name}"
    exports = getattr(module, "_EXPORTS", None)
    if exports is not None and name in exports:
        return f"{exports[name]}.{name}"
    home = getattr(getattr(module, name), "__module__", None) or package
    return f"{home}.{name}"


def _documented(module: object, name: str) -> bool:
    """Classes, functions and modules get an entry; constants (``TASKS``, ``CONFIG``, ...) are
    described where they are used. A lazy package's names are all classes or functions."""
    if name in (getattr(module, "_EXPORTS", None) or {}):
        return True
    value = getattr(module, name)
    return callable(value) or isinstance(value, type(sys))


def _is_package(module: object) -> bool:
    return hasattr(module, "__path__")


def reference() -> str:
    lines = [
        "# API reference",
        "",
        "The public names of each package (its `__all__`), documented from their docstrings.",
        "Written by `python scripts/api_reference.py`; a test checks it is current.",
        "",
    ]
    for package, about in PACKAGES:
        module = importlib.import_module(package)
        lines += [f"## `{package}`: {about}", ""]
        for name in module.__all__:
            if not _documented(module, name):
                continue
            lines += [f"::: {target(package, name)}", "    options:", "      heading_level: 3", ""]
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    text = reference()
    if args.check:
        if not API.is_file() or API.read_text() != text:
            print(f"{API} is not current: run python scripts/api_reference.py", file=sys.stderr)
            raise SystemExit(1)
        return
    API.write_text(text)
    print(f"wrote {API}")


if __name__ == "__main__":
    main()
