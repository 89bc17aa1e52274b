"""Which body the page shows: the panel of the page's store's model kind
(``circuitlab.app.panels``), the NAC's or an input panel (a Neural Interpreter's routing, a
Modular Network's paths, an NFM network's reads); and when its Plotly graphs are rendered
(``KindPanel.plots``): the NAC's once its circuit is drawn, so that plotly.js loads after the
circuit, an input panel's with its body."""

from __future__ import annotations

import dash
from dash import Input, Output, no_update
from dash.exceptions import PreventUpdate

from circuitlab.app.layout.parts import SLOT_OPEN, kind_key, plot_slot
from circuitlab.app.panels import panels
from circuitlab.app.stores import AppStores

__all__ = ["register"]

SHOWN, HIDDEN = {}, {"display": "none"}


def register(app: dash.Dash, stores: AppStores) -> None:
    """The callbacks that show the body of the store's kind and open its plots.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    every = list(panels().values())
    inputs = [panel for panel in every if panel.is_input_panel]
    # the slots the body's own callback opens: every input panel's
    opened_with_body = [(panel, graph) for panel in inputs for graph in panel.plots]

    @app.callback(
        *[Output(panel.body_id, "style") for panel in every],
        *[Output(kind_key(panel.prefix), "data") for panel in inputs],
        *[Output(plot_slot(graph), "value") for _, graph in opened_with_body],
        Input("store-key", "data"),
    )
    def show_body(key):
        """The bodies' styles; on an input panel's page, its kind's key and its plots opened
        (the rest left as they are: their callbacks never run)."""
        if key is None:
            raise PreventUpdate
        kind = stores.kind(key)
        styles = [SHOWN if panel.kind == kind else HIDDEN for panel in every]
        keys = [key if panel.kind == kind else no_update for panel in inputs]
        slots = [SLOT_OPEN if panel.kind == kind else no_update for panel, _ in opened_with_body]
        return (*styles, *keys, *slots)

    for panel in every:
        if not panel.is_input_panel:  # the NAC's plots open once its circuit is drawn
            app.clientside_callback(
                f'function(elements) {{ return Array({len(panel.plots)}).fill("{SLOT_OPEN}"); }}',
                *[Output(plot_slot(graph), "value") for graph in panel.plots],
                Input(panel.first_graph, "elements"),
                prevent_initial_call=True,
            )
