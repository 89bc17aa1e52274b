"""A NAC's store (kind ``circuitlab.kinds.nac``): the page's own panels, search (left), the
circuit (middle), details (right), compare and the map (below); their layouts are in
``circuitlab.app.layout``, their callbacks in ``circuitlab.app.callbacks``."""

from __future__ import annotations

import dash_bootstrap_components as dbc

from circuitlab.app.layout.circuit import circuit_panel
from circuitlab.app.layout.compare import compare_row
from circuitlab.app.layout.details import details_panel
from circuitlab.app.layout.map import map_row
from circuitlab.app.layout.search import search_panel
from circuitlab.app.panels.base import KindPanel
from circuitlab.kinds import nac

__all__ = ["PANEL"]


def body() -> dbc.Container:
    """The NAC panels, shown unless the page's store is of another kind."""
    panels = dbc.Row([search_panel(), circuit_panel(), details_panel()], className="mt-2")
    return dbc.Container([panels, compare_row(), map_row()], id="nac-body", fluid=True)


PANEL = KindPanel(
    kind=nac.NAME,
    prefix=nac.NAME,
    body=body,
    plots=("degree", "prior-matrix", "faithfulness", "embedding"),
    first_graph="graph",
    title_id="circuit-title",
)
