"""The example panel: the shown circuit's example (an NLVR scene, drawn), its label, the model's
prediction and p(true); what is known for other rows; a line for typed sentences."""

from __future__ import annotations

import dash
from dash import Input, Output

from circuitlab.app.callbacks.common import shows_circuit, store_view
from circuitlab.app.example_view import example_summary
from circuitlab.app.stores import AppStores

HIDDEN = {"display": "none"}
SHOWN = {"maxWidth": "100%", "display": "block"}


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        Output("example-scene", "src"),
        Output("example-scene", "style"),
        Output("example-facts", "children"),
        Input("circuit", "data"),
        Input("store-key", "data"),  # an Input: on a fresh page it may land after the circuit
    )
    def show_example(circuit, key):
        if not shows_circuit(circuit):
            return "", HIDDEN, "no circuit selected"
        if "typed" in circuit:
            return "", HIDDEN, "a typed sentence: no scene, no answer (the model reads scenes)"
        row = store_view(stores, key).frame.iloc[circuit["index"]]
        uri, facts = example_summary(row)
        return uri or "", SHOWN if uri else HIDDEN, facts
