"""A Neural Interpreter's store (kind ``circuitlab.kinds.ni``): its inputs, the routing of the
chosen one per step (tokens x functions), how its functions hand tokens on, and the map of all
inputs (``RoutingView``)."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from circuitlab.app.layout.parts import arrow_style, graph_view, inputs_table, kind_body, plot
from circuitlab.app.panels.base import KindPanel, input_title
from circuitlab.app.routing_view import RoutingView
from circuitlab.kinds import ni

__all__ = ["PANEL"]

TRANSITION_STYLE = arrow_style(
    {"background-color": "#1f77b4", "color": "#fff", "font-size": 14, "width": 34, "height": 34}
)
TRANSITION_STYLE[1]["style"].update({"loop-direction": "0deg", "loop-sweep": "-45deg"})


def body() -> dbc.Container:
    """The routing panel, hidden unless the page's store is a Neural Interpreter's."""
    inputs = dbc.Col(
        [html.H6("Inputs (click one)"), inputs_table("ni-inputs", ("id", "text", "error"))],
        width=3,
    )
    routing = dbc.Col(
        [
            html.H6(id="ni-title", children="Routing"),
            dcc.Dropdown(id="ni-step", options=[], clearable=False),
            plot("ni-heatmap", "360px"),
        ],
        width=6,
    )
    hand_on = dbc.Col(
        [
            html.H6("Functions -> the functions their tokens go to next"),
            graph_view("ni-transitions", TRANSITION_STYLE, "360px", layout={"name": "circle"}),
        ],
        width=3,
    )
    overview = plot("ni-map", "420px")
    return kind_body("ni-body", [dbc.Row([inputs, routing, hand_on], className="mt-2"), overview])


def fill(view: RoutingView) -> tuple[list[dict], int]:
    """The step choice of a store: one option per step, the first chosen."""
    return [{"label": name, "value": k} for k, name in enumerate(view.step_names)], 0


def show(view: RoutingView, index: int, step: int) -> tuple[dict, list[dict]]:
    """Input ``index``'s routing at ``step`` and its function transitions."""
    return view.heatmap(index, step), view.transition_elements(index)


def title(view: RoutingView, index: int) -> str:
    """The routing panel's title for the input in row ``index``: its id and text."""
    return input_title(view.frame, index)


PANEL = KindPanel(
    kind=ni.NAME,
    prefix=ni.NAME,
    body=body,
    plots=("ni-heatmap", "ni-map"),
    first_graph="ni-transitions",
    title_id="ni-title",
    view=RoutingView,
    filled=(("ni-step", "options"), ("ni-step", "value")),
    fill=fill,
    shown=(("ni-heatmap", "figure"), ("ni-transitions", "elements")),
    show=show,
    controls=(("ni-step", "value"),),
    title=title,
    first_elements=lambda view, index: view.transition_elements(index),
)
