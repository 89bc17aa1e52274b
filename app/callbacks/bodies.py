"""Which body the page shows: the NAC panels, a Neural Interpreter's routing panel (kind "ni"),
a Modular Network's path panel (kind "mn") or an NFM network's read panel (kind "nfm"), by
the kind of the page's store; and when its Plotly graphs are rendered (``page.PLOTS``): a
NAC's once its circuit is drawn, so that plotly.js loads after the circuit, another kind's
with its body."""

from __future__ import annotations

import dash
from dash import Input, Output, no_update
from dash.exceptions import PreventUpdate

from circuitlab.app.page import PLOTS, SLOT_OPEN, kind_key, plot_slot
from circuitlab.app.stores import AppStores

SHOWN, HIDDEN = {}, {"display": "none"}
BODIES = {"nac": "nac-body", "ni": "ni-body", "mn": "mn-body", "nfm": "nfm-body"}
OTHER_KINDS = [kind for kind in BODIES if kind != "nac"]
# the slots the body's own callback opens: every kind's but the NAC's
OPENED_WITH_BODY = [(kind, graph) for kind in OTHER_KINDS for graph in PLOTS[kind]]
OPEN_NAC_PLOTS = f"""
function(elements) {{
    return Array({len(PLOTS["nac"])}).fill("{SLOT_OPEN}");
}}
"""


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        *[Output(body, "style") for body in BODIES.values()],
        *[Output(kind_key(kind), "data") for kind in OTHER_KINDS],
        *[Output(plot_slot(graph), "value") for _, graph in OPENED_WITH_BODY],
        Input("store-key", "data"),
    )
    def show_body(key):
        """The bodies' styles; on a page of another kind than the NAC's, its kind's key and
        its plots opened (the rest left as they are: their callbacks never run)."""
        if key is None:
            raise PreventUpdate
        kind = stores.kind(key)
        styles = [SHOWN if kind == shown else HIDDEN for shown in BODIES]
        keys = [key if kind == other else no_update for other in OTHER_KINDS]
        slots = [SLOT_OPEN if kind == owner else no_update for owner, _ in OPENED_WITH_BODY]
        return (*styles, *keys, *slots)

    app.clientside_callback(
        OPEN_NAC_PLOTS,
        *[Output(plot_slot(graph), "value") for graph in PLOTS["nac"]],
        Input("graph", "elements"),
        prevent_initial_call=True,
    )
