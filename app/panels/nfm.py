"""An NFM network's store (kind ``circuitlab.kinds.nfm``): its questions, the chosen one's
image, the graph of which layer reads what each layer wrote (top-down reads in red), the reads
as a heatmap and the map of all inputs (``ReadView``)."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import html

from circuitlab.app.layout.parts import arrow_style, graph_view, inputs_table, kind_body, plot
from circuitlab.app.panels.base import KindPanel, input_title
from circuitlab.app.read_view import ReadView
from circuitlab.kinds import nfm

__all__ = ["PANEL"]

READ_STYLE = [
    *arrow_style(
        {"background-color": "#9ecae1", "color": "#222", "font-size": 11, "width": 44, "height": 44}
    ),
    {
        "selector": "edge.top-down",
        "style": {"line-color": "#d62728", "target-arrow-color": "#d62728"},
    },
]


def body() -> dbc.Container:
    """The read panel, hidden unless the page's store is an NFM network's."""
    inputs = dbc.Col(
        [
            html.H6("Questions (click one)"),
            inputs_table("nfm-inputs", ("id", "text", "label", "split", "answered", "top-down")),
        ],
        width=4,
    )
    image = dbc.Col(
        [html.H6(id="nfm-title", children="Input"), plot("nfm-image", "260px")], width=3
    )
    graph = dbc.Col(
        [
            html.H6("Layer reads (left: first pass; right: second pass; red: top-down)"),
            graph_view(
                "nfm-graph",
                READ_STYLE,
                "380px",
                layout={"name": "preset", "fit": True, "padding": 30},
            ),
        ],
        width=5,
    )
    heatmap = plot("nfm-heatmap", "320px")
    overview = plot("nfm-map", "420px")
    return kind_body(
        "nfm-body", [dbc.Row([inputs, image, graph], className="mt-2"), heatmap, overview]
    )


def show(view: ReadView, index: int) -> tuple[dict, list[dict], dict]:
    """Question ``index``'s image, its layer-read graph and its reads as a heatmap."""
    return view.image_figure(index), view.graph_elements(index), view.heatmap(index)


def title(view: ReadView, index: int) -> str:
    """The read panel's title for the input in row ``index``: its id, text and label."""
    frame = view.frame
    return input_title(frame, index, f" ({frame['label'].iloc[index]})" if "label" in frame else "")


PANEL = KindPanel(
    kind=nfm.NAME,
    prefix=nfm.NAME,
    body=body,
    plots=("nfm-image", "nfm-heatmap", "nfm-map"),
    first_graph="nfm-graph",
    title_id="nfm-title",
    view=ReadView,
    shown=(("nfm-image", "figure"), ("nfm-graph", "elements"), ("nfm-heatmap", "figure")),
    show=show,
    title=title,
    first_elements=lambda view, index: view.graph_elements(index),
)
