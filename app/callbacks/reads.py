"""The read panel: an NFM network's store (kind "nfm") in place of the NAC panels.

Every callback waits for ``nfm-key``, the page's store key set only on a page of that kind
(``bodies``): on other pages none of them runs."""

from __future__ import annotations

import dash
from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from circuitlab.app.callbacks.common import register_input_choice
from circuitlab.app.read_view import ReadView
from circuitlab.app.stores import AppStores


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(Output("nfm-inputs", "data"), Input("nfm-key", "data"), prevent_initial_call=True)
    def fill_inputs(key):
        if key is None:
            raise PreventUpdate
        return stores.read_view(key).rows() if stores.kind(key) == "nfm" else []

    register_input_choice(app, "nfm", lambda key: stores.read_view(key).frame)

    @app.callback(
        Output("nfm-image", "figure"),
        Output("nfm-graph", "elements"),
        Output("nfm-heatmap", "figure"),
        Output("nfm-title", "children"),
        Output("nfm-map", "figure"),
        Input("nfm-input", "data"),
        State("nfm-key", "data"),
        prevent_initial_call=True,
    )
    def show_input(index, key):
        if index is None or key is None:
            raise PreventUpdate
        view = stores.read_view(key)
        figure = view.map_figure(index) if ctx.triggered_id == "nfm-input" else no_update
        return (
            view.image_figure(index),
            view.graph_elements(index),
            view.heatmap(index),
            read_title(view, index),
            figure,
        )


def read_title(view: ReadView, index: int) -> str:
    """The read panel's title for the input in row ``index``: its id, text and label."""
    frame = view.frame
    title = f"Input {frame['id'].iloc[index]}: {frame['text'].iloc[index]}"
    if "label" in frame:
        title += f" ({frame['label'].iloc[index]})"
    return title
