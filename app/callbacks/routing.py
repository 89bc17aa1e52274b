"""The routing panel: a Neural Interpreter's store (kind "ni") in place of the NAC panels.

Every callback waits for ``ni-key``, the page's store key set only on a page of that kind
(``bodies``): on other pages none of them runs."""

from __future__ import annotations

import dash
from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from circuitlab.app.callbacks.common import register_input_choice
from circuitlab.app.routing_view import RoutingView
from circuitlab.app.stores import AppStores


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        Output("ni-inputs", "data"),
        Output("ni-step", "options"),
        Output("ni-step", "value"),
        Input("ni-key", "data"),
        prevent_initial_call=True,
    )
    def fill_inputs(key):
        if key is None:
            raise PreventUpdate
        view = stores.routing_view(key)
        steps = [{"label": name, "value": k} for k, name in enumerate(view.step_names)]
        return view.rows(), steps, 0

    register_input_choice(app, "ni", lambda key: stores.routing_view(key).frame)

    @app.callback(
        Output("ni-heatmap", "figure"),
        Output("ni-transitions", "elements"),
        Output("ni-title", "children"),
        Output("ni-map", "figure"),
        Input("ni-input", "data"),
        Input("ni-step", "value"),
        State("ni-key", "data"),
        State("ni-map", "figure"),
        prevent_initial_call=True,
    )
    def show_input(index, step, key, shown_map):
        if index is None or step is None or key is None:
            raise PreventUpdate
        view = stores.routing_view(key)
        # the map follows the input, not the step; but on a first open the step may land with
        # (or after) the input, and the map must be drawn then too (it stayed blank)
        new_input = "ni-input.data" in ctx.triggered_prop_ids
        drawn = bool(shown_map and shown_map.get("data"))
        figure = view.map_figure(index) if new_input or not drawn else no_update
        title = routing_title(view, index)
        return view.heatmap(index, step), view.transition_elements(index), title, figure


def routing_title(view: RoutingView, index: int) -> str:
    """The routing panel's title for the input in row ``index``: its id and text."""
    text = view.frame["text"].iloc[index] if "text" in view.frame else ""
    return f"Input {view.frame['id'].iloc[index]}: {text}"
