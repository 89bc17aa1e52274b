"""Each model kind's panel (circuitlab.app.panels): found through the kind registry, and its
body holds every component its callbacks read and write."""

from __future__ import annotations

import dash_cytoscape as cyto
import pytest
from dash import dcc

from circuitlab.app.layout.parts import plot_slot
from circuitlab.app.panels import panel_of, panels
from circuitlab.kinds import KINDS


def _ids(component) -> dict:
    return {c.id: c for c in component._traverse() if getattr(c, "id", None)}


def test_every_built_in_kind_has_a_panel_whose_kind_is_its_own():
    assert list(panels()) == list(KINDS)
    assert all(panel.kind == name for name, panel in panels().items())
    assert sum(not panel.is_input_panel for panel in panels().values()) == 1  # the NAC's


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_panels_body_holds_what_its_callbacks_use(kind):
    panel = panel_of(kind)
    body = panel.body()
    ids = _ids(body)
    assert body.id == panel.body_id
    assert isinstance(ids[panel.first_graph], cyto.Cytoscape) and panel.title_id in ids
    for graph in panel.plots:  # each Plotly graph waits in its closed slot
        assert isinstance(ids[graph], dcc.Graph) and plot_slot(graph) in ids
    if panel.is_input_panel:
        for name in ("inputs", "map"):
            assert f"{panel.prefix}-{name}" in ids
        for component, _ in (*panel.filled, *panel.shown, *panel.controls):
            assert component in ids, component
        assert len(panel.filled) == 0 or panel.fill is not None
        assert (panel.first_graph, "elements") in panel.shown


def test_an_unregistered_kind_has_no_panel():
    with pytest.raises(ValueError, match="model kind 'nope'"):
        panel_of("nope")
