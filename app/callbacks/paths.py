"""The path panel: a Modular Network's store (kind "mn") in place of the NAC panels.

Every callback waits for ``mn-key``, the page's store key set only on a page of that kind
(``bodies``): on other pages none of them runs."""

from __future__ import annotations

import dash
from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from circuitlab.app.callbacks.common import register_input_choice
from circuitlab.app.path_view import PathView
from circuitlab.app.stores import AppStores


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        Output("mn-inputs", "data"),
        Output("mn-usage", "figure"),
        Input("mn-key", "data"),
        prevent_initial_call=True,
    )
    def fill_inputs(key):
        if key is None:
            raise PreventUpdate
        view = stores.path_view(key)
        return view.rows(), view.usage_figure()

    register_input_choice(app, "mn", lambda key: stores.path_view(key).frame)

    @app.callback(
        Output("mn-graph", "elements"),
        Output("mn-probabilities", "figure"),
        Output("mn-title", "children"),
        Output("mn-map", "figure"),
        Input("mn-input", "data"),
        State("mn-key", "data"),
        prevent_initial_call=True,
    )
    def show_input(index, key):
        if index is None or key is None:
            raise PreventUpdate
        view = stores.path_view(key)
        figure = view.map_figure(index) if ctx.triggered_id == "mn-input" else no_update
        return (
            view.graph_elements(index),
            view.probabilities_figure(index),
            path_title(view, index),
            figure,
        )


def path_title(view: PathView, index: int) -> str:
    """The path panel's title for the input in row ``index``: its id, text and path."""
    text = view.frame["text"].iloc[index] if "text" in view.frame else ""
    return f"Input {view.frame['id'].iloc[index]}: {text}, path {view.path_text(index)}"
