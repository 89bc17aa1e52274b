"""Which body the page shows: the NAC panels, a Neural Interpreter's routing panel (kind "ni"),
a Modular Network's path panel (kind "mn") or an NFM network's read panel (kind "nfm"), by
the kind of the page's store."""

from __future__ import annotations

import dash
from dash import Input, Output
from dash.exceptions import PreventUpdate

from circuitlab.app.stores import AppStores

SHOWN, HIDDEN = {}, {"display": "none"}
BODIES = {"nac": "nac-body", "ni": "ni-body", "mn": "mn-body", "nfm": "nfm-body"}


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        *[Output(body, "style") for body in BODIES.values()],
        Input("store-key", "data"),
    )
    def show_body(key):
        if key is None:
            raise PreventUpdate
        kind = stores.kind(key)
        return tuple(SHOWN if kind == shown else HIDDEN for shown in BODIES)
