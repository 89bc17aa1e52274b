"""The model kinds: one module each (``nac``, ``ni``, ``mn``, ``nfm``) declares its config, model,
how a task shapes its config, its exporter and its store's circuit array (``ModelKind``);
everything else asks this registry. A new kind is one module with a ``KIND`` and one line in
``_BUILT_IN`` (or ``register(kind)`` from outside the package)."""

from __future__ import annotations

from typing import Any

from circuitlab.kinds import mn, nac, nfm, ni
from circuitlab.kinds.base import ModelKind

__all__ = ["DEFAULT", "KINDS", "ModelKind", "kind_of", "model_kind", "register"]

_BUILT_IN = (nac.KIND, ni.KIND, mn.KIND, nfm.KIND)
# name -> kind, in the order they were registered
KINDS: dict[str, ModelKind] = {kind.name: kind for kind in _BUILT_IN}
# the kind of a config, checkpoint or store that names none (they predate the other kinds)
DEFAULT = nac.NAME


def register(kind: ModelKind) -> None:
    """Add ``kind`` to the registry; ValueError if its name is taken.

    Parameters
    ----------
    kind
        The kind to add; ``circuitlab.kinds.base.ModelKind`` says what it declares.

    Raises
    ------
    ValueError
        A kind of that name is registered already.
    """
    if kind.name in KINDS:
        raise ValueError(f"model kind {kind.name!r} is registered already")
    KINDS[kind.name] = kind


def model_kind(name: str) -> ModelKind:
    """The kind called ``name``; ValueError naming the kinds there are.

    Parameters
    ----------
    name
        A kind's name ("nac", or one registered with ``register``).

    Raises
    ------
    ValueError
        No kind is called ``name``; the message lists those there are.
    """
    if name not in KINDS:
        raise ValueError(f"model kind {name!r}: this circuitlab knows kinds {list(KINDS)}")
    return KINDS[name]


def kind_of(model: Any) -> ModelKind:
    """The kind whose model class ``model`` is an instance of; ValueError if none.

    Parameters
    ----------
    model
        A model of any registered kind.

    Raises
    ------
    ValueError
        ``model`` is no registered kind's model.
    """
    path = f"{type(model).__module__}:{type(model).__qualname__}"
    for kind in KINDS.values():
        if kind.model == path or isinstance(model, kind.model_class()):
            return kind
    raise ValueError(f"{type(model).__name__} is no registered model kind's model")
