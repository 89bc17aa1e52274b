"""Each model kind's body on the page (``KindPanel``), found through the kind registry: a
``ModelKind`` names its panel by import path (``app_panel``), so a new kind's page is one
module here and one field there. ``circuitlab.app`` asks ``panel_of`` and ``panels``, never a
kind's name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from circuitlab.kinds import KINDS, model_kind
from circuitlab.kinds.base import load

if TYPE_CHECKING:
    from circuitlab.app.panels.base import KindPanel

__all__ = ["panel_of", "panels"]


def panel_of(kind: str) -> KindPanel:
    """The panel of model kind ``kind``.

    Raises
    ------
    ValueError
        ``kind`` is not registered, or its ``ModelKind`` names no app panel.
    """
    path = model_kind(kind).app_panel
    if path is None:
        raise ValueError(f"model kind {kind!r} has no panel in the app (ModelKind.app_panel)")
    return load(path)


def panels() -> dict[str, KindPanel]:
    """Every registered kind's panel that has one, by kind name, in the registry's order."""
    return {name: panel_of(name) for name, kind in KINDS.items() if kind.app_panel is not None}
