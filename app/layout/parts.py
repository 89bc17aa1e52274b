"""Pieces every panel's layout is built from: the circuit stylesheets, spinners, radio buttons,
tables, graph views, and the closed slots Plotly graphs wait in."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import dash_cytoscape as cyto
from dash import dash_table, dcc, html

__all__ = [
    "COMPARE_STYLE",
    "DIFF_STYLE",
    "GRAPH_STYLE",
    "arrow_style",
    "graph_panel",
    "graph_view",
    "inputs_table",
    "kind_body",
    "kind_key",
    "loading",
    "plot",
    "plot_slot",
    "radio",
    "table",
]


def graph_style(font_size: float, node_size: float, edge_color: str = "#888") -> list[dict]:
    """A cytoscape stylesheet; sizes are in the layout's units, so each view passes those that
    its usual zoom renders legibly (labels about 11 px: the main view opens at about 0.74x,
    the compare views at about 0.48x)."""
    return [
        {
            "selector": "node",
            "style": {
                "background-color": "data(color)",
                "label": "data(label)",
                "font-size": font_size,
                "text-valign": "center",
                "text-outline-color": "#fff",
                "text-outline-width": font_size / 8,
                "width": node_size,
                "height": node_size,
                "border-width": 1,
                "border-color": "#333",
            },
        },
        {"selector": ".readout", "style": {"shape": "square"}},
        # an object the decisive circuit reads (``circuit_elements.decisive_elements``): its
        # name on the left, its reads arrows into the processors
        {
            "selector": ".token",
            "style": {"shape": "diamond", "text-halign": "left", "text-margin-x": -node_size / 4},
        },
        {
            "selector": "edge",
            "style": {
                "width": "data(width)",
                "line-color": edge_color,
                "opacity": 0.45 if edge_color == "#888" else 0.8,
                "curve-style": "haystack",
            },
        },
        {
            "selector": "edge.read",
            "style": {"curve-style": "bezier", "target-arrow-shape": "triangle"},
        },
        {"selector": "node:selected", "style": {"border-width": 3, "border-color": "#d62728"}},
        # coloured by attribution (``circuitlab.app.callbacks.attribution``)
        {"selector": "edge.attributed", "style": {"line-color": "data(color)", "opacity": 0.9}},
        # what the visitor cut or knocked out (``circuitlab.app.callbacks.intervene``)
        {
            "selector": "edge.cut",
            "style": {"line-style": "dashed", "line-color": "#d62728", "opacity": 0.9},
        },
        {
            "selector": "edge.forced",
            "style": {"line-style": "dashed", "line-color": "#2ca02c", "opacity": 0.9},
        },
        {
            "selector": "node.knocked",
            "style": {"background-color": "#f0f0f0", "border-style": "dashed", "opacity": 0.6},
        },
        # the view's pins, groups and notes (``circuitlab.app.view_drawing``)
        {"selector": "node.pinned", "style": {"border-width": 3, "border-color": "#1f77b4"}},
        {"selector": "edge.pinned", "style": {"line-color": "#1f77b4", "opacity": 0.9}},
        {
            "selector": "node.group",
            "style": {
                "shape": "round-rectangle",
                "width": "label",
                "height": node_size,
                "padding": node_size / 4,
            },
        },
        {"selector": "node.noted", "style": {"border-style": "double", "border-width": 4}},
    ]


GRAPH_STYLE = graph_style(font_size=15, node_size=24)
COMPARE_STYLE = graph_style(font_size=24, node_size=30)
DIFF_STYLE = graph_style(font_size=24, node_size=30, edge_color="data(color)")
TABLE_COLUMNS = ["id", "text", "label", "split", "categories"]


def loading(child, loading_id: str) -> dcc.Loading:
    """``child`` under a spinner shown while a callback it waits on runs longer than half a
    second (the first open of a store computes its map; a first typed sentence loads the
    model's text encoder).

    Parameters
    ----------
    child
        The component.
    loading_id
        The spinner's id.
    """
    return dcc.Loading(child, id=loading_id, delay_show=500, type="circle")


def radio(radio_id: str, options: list[str] | list[dict], small: bool = False) -> dcc.RadioItems:
    """Inline radio buttons (options as values, or label/value dicts), the first one chosen;
    ``small``: in a line of small text.

    Parameters
    ----------
    radio_id
        The component's id.
    options, small
        As above.
    """
    first = options[0]["value"] if isinstance(options[0], dict) else options[0]
    return dcc.RadioItems(
        id=radio_id,
        options=options,
        value=first,
        inline=True,
        inputStyle={"marginRight": 4, "marginLeft": 8},
        className="small d-inline" if small else None,
    )


def table(table_id: str, page_size: int) -> dash_table.DataTable:
    """A table of store rows (id, text, label, split, categories), ``page_size`` a page.

    Parameters
    ----------
    table_id
        The component's id.
    page_size
        Rows per page.
    """
    return dash_table.DataTable(
        id=table_id,
        columns=[{"name": c, "id": c} for c in TABLE_COLUMNS],
        data=[],
        page_size=page_size,
        style_cell={
            "textAlign": "left",
            "fontSize": 12,
            "whiteSpace": "normal",
            "height": "auto",
            "maxWidth": 320,
        },
        style_table={"overflowX": "auto"},
    )


def graph_view(
    graph_id: str, stylesheet: list[dict], height: str = "320px", layout: dict | None = None
) -> cyto.Cytoscape:
    """An empty cytoscape view, full width and ``height`` high, on ``layout`` (default: the
    preset positions its elements carry).

    Parameters
    ----------
    graph_id
        The component's id.
    stylesheet
        Its cytoscape stylesheet.
    height, layout
        As above.
    """
    return cyto.Cytoscape(
        id=graph_id,
        elements=[],
        layout=layout or {"name": "preset"},
        stylesheet=stylesheet,
        style={"width": "100%", "height": height, "border": "1px solid #ddd"},
    )


def graph_panel(graph_id: str, caption: str, stylesheet: list[dict], width: int) -> dbc.Col:
    """A captioned ``graph_view``.

    Parameters
    ----------
    graph_id, stylesheet
        As ``graph_view`` takes them.
    caption
        The line above it.
    width
        Its column's width (of 12).
    """
    return dbc.Col(
        [html.Div(caption, className="small text-muted"), graph_view(graph_id, stylesheet)],
        width=width,
    )


def arrow_style(node: dict, edge_color: str = "#888") -> list[dict]:
    """A cytoscape stylesheet of labelled nodes (``node``: their own style) and arrows whose
    width is their data's ``width``.

    Parameters
    ----------
    node
        As above.
    edge_color
        The arrows' colour.
    """
    return [
        {"selector": "node", "style": {"label": "data(label)", "text-valign": "center", **node}},
        {
            "selector": "edge",
            "style": {
                "width": "data(width)",
                "line-color": edge_color,
                "target-arrow-color": edge_color,
                "target-arrow-shape": "triangle",
                "curve-style": "bezier",
            },
        },
    ]


# Each of the page's Plotly graphs sits in a slot that
# renders it only once opened (``plot_slot``): a mounted dcc.Graph loads plotly.js (4.8 MB) and
# draws itself even in a hidden body, and on a NAC page that held the circuit back by ~2 s.
# The NAC's slots open once its circuit is drawn, another kind's once its body is shown.
SLOT_OPEN, SLOT_CLOSED = "open", "closed"


def kind_key(kind: str) -> str:
    """The id of the store holding the page's store key on a page of ``kind`` ("ni", "mn",
    "nfm") alone.

    Parameters
    ----------
    kind
        The panel's id prefix (``KindPanel.prefix``).
    """
    return f"{kind}-key"


def plot_slot(graph_id: str) -> str:
    """The id of the slot holding the graph ``graph_id``; its ``value`` SLOT_OPEN renders it.

    Parameters
    ----------
    graph_id
        The graph's id.
    """
    return f"{graph_id}-slot"


def plot(graph_id: str, height: str, config: dict | None = None, hidden: bool = False) -> dcc.Tabs:
    """The Plotly graph ``graph_id`` in its closed slot: a dcc.Tabs without headers whose one
    tab is rendered only when the slot's value is SLOT_OPEN. Closed, the graph is still in the
    layout: callbacks read and write its props, and it shows their latest values once open.

    Parameters
    ----------
    graph_id
        The graph's id.
    height
        Its height (CSS).
    config
        Plotly's config (default: no logo).
    hidden
        Whether the graph starts hidden (``display: none``) until a callback sets its style.
    """
    style = {"display": "none"} if hidden else {"height": height}
    graph = dcc.Graph(id=graph_id, style=style, config=config or {"displaylogo": False})
    return dcc.Tabs(
        id=plot_slot(graph_id),
        value=SLOT_CLOSED,
        children=[dcc.Tab(value=SLOT_OPEN, children=graph)],
        style={"display": "none"},
    )


def kind_body(body_id: str, children: list) -> dbc.Container:
    """The body of one store kind's panels, hidden until a store of that kind is shown.

    Parameters
    ----------
    body_id
        The body's id (``KindPanel.body_id``).
    children
        Its rows.
    """
    return dbc.Container(children, id=body_id, fluid=True, style={"display": "none"})


def inputs_table(table_id: str, columns: tuple[str, ...]) -> dash_table.DataTable:
    """The clickable table of a store's inputs (Neural Interpreter, Modular Network).

    Parameters
    ----------
    table_id
        The component's id.
    columns
        The columns shown.
    """
    return dash_table.DataTable(
        id=table_id,
        columns=[{"name": c, "id": c} for c in columns],
        data=[],
        page_size=15,
        style_cell={"textAlign": "left", "fontSize": 12},
    )
