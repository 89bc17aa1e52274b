"""Lazy package attributes: a package's public names, each imported from its module on first use.

``circuitlab`` and ``circuitlab.analysis`` list their public API here instead of importing it
eagerly, so that ``import circuitlab.analysis`` or ``circuitlab.CircuitStore`` costs only what
they use (no torch for reading a store or fitting a prior).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` from {name: module it lives in}.

    A name that is the module's own (``{"prior_targets": "circuitlab.prior_targets"}``) exports
    the module itself.
    """

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(exports[name])
        value = module if module.__name__.rsplit(".", 1)[-1] == name else getattr(module, name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(importlib.import_module(package).__dict__) | set(exports))

    return __getattr__, __dir__
