"""A Modular Network's store (kind ``circuitlab.kinds.mn``): its inputs, the layered module
graph with the chosen input's path in red, that input's controller probabilities, module usage
by class and the map of all inputs (``PathView``)."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import html

from circuitlab.app.layout.parts import arrow_style, graph_view, inputs_table, kind_body, plot
from circuitlab.app.panels.base import KindPanel, input_title
from circuitlab.app.path_view import PathView
from circuitlab.kinds import mn

__all__ = ["PANEL"]

PATH_STYLE = [
    *arrow_style(
        {
            "background-color": "#9ecae1",
            "color": "#222",
            "font-size": 12,
            "width": "data(size)",
            "height": "data(size)",
        },
        edge_color="#ccc",
    ),
    {"selector": "node.picked", "style": {"background-color": "#d62728", "color": "#fff"}},
    {
        "selector": "edge.picked",
        "style": {"line-color": "#d62728", "target-arrow-color": "#d62728", "z-index": 10},
    },
]


def body() -> dbc.Container:
    """The path panel, hidden unless the page's store is a Modular Network's."""
    inputs = dbc.Col(
        [
            html.H6("Inputs (click one)"),
            inputs_table("mn-inputs", ("id", "text", "label", "path", "error")),
        ],
        width=4,
    )
    graph = dbc.Col(
        [
            html.H6(id="mn-title", children="Path"),
            graph_view(
                "mn-graph",
                PATH_STYLE,
                "420px",
                layout={"name": "preset", "fit": True, "padding": 20},
            ),
        ],
        width=5,
    )
    probabilities = dbc.Col(plot("mn-probabilities", "300px"), width=3)
    usage = plot("mn-usage", "380px")
    overview = plot("mn-map", "420px")
    return kind_body(
        "mn-body", [dbc.Row([inputs, graph, probabilities], className="mt-2"), usage, overview]
    )


def show(view: PathView, index: int) -> tuple[list[dict], dict]:
    """Input ``index``'s path through the module graph and its controller probabilities."""
    return view.graph_elements(index), view.probabilities_figure(index)


def title(view: PathView, index: int) -> str:
    """The path panel's title for the input in row ``index``: its id, text and path."""
    return input_title(view.frame, index, f", path {view.path_text(index)}")


PANEL = KindPanel(
    kind=mn.NAME,
    prefix=mn.NAME,
    body=body,
    plots=("mn-probabilities", "mn-usage", "mn-map"),
    first_graph="mn-graph",
    title_id="mn-title",
    view=PathView,
    filled=(("mn-usage", "figure"),),
    fill=lambda view: (view.usage_figure(),),
    shown=(("mn-graph", "elements"), ("mn-probabilities", "figure")),
    show=show,
    title=title,
    first_elements=lambda view, index: view.graph_elements(index),
)
