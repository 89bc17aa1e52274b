"""The circuit panel's callbacks: which circuit is shown (a search result, a map point, a
selection row or the URL's ``id``), its drawing (``drawing``: at the chosen threshold, top-k or
as what decides the answer), and (a callback of its own) its prior fit and degrees."""

from __future__ import annotations

import dash
import numpy as np
from dash import Input, Output, State, ctx, html, no_update

from circuitlab.app.callbacks.attribution import attribution_table
from circuitlab.app.callbacks.common import (
    page_store,
    query_of,
    row_of,
    shows_circuit,
    store_view,
)
from circuitlab.app.callbacks.drawing import ViewSettings, drawing
from circuitlab.app.stores import AppStores

__all__ = [
    "edge_text",
    "matrix_figure",
    "node_text",
    "prior_summary",
    "register",
]


# The prior card's two figures are written as plain Plotly dicts: go.Figure's validation took
# about 28 ms of a prior reading's callback (of ~70), the dicts 0.4.


def degree_figure(fit: dict) -> dict:
    """The circuit's degree histogram with the best prior's fitted degree distribution, as a
    Plotly figure dict."""
    degrees = list(range(len(fit["observed"])))
    bars = {
        "type": "bar",
        "x": degrees,
        "y": fit["observed"],
        "name": "drawn from P",
        "marker": {"color": "#9ecae1"},
    }
    fitted = {
        "type": "scatter",
        "x": degrees,
        "y": fit["fitted"],
        "name": fit["best"],
        "mode": "lines+markers",
        "line": {"color": "#d62728"},
    }
    layout = {
        "margin": {"l": 30, "r": 0, "t": 0, "b": 30},
        "showlegend": True,
        "legend": {"orientation": "h", "y": 1.15},
        "xaxis": {"title": {"text": "degree"}},
    }
    return {"data": [bars, fitted], "layout": layout}


def matrix_figure(fit: dict) -> dict:
    """P among the processors ordered by the best family's fitted blocks (``block_order``), as
    the paper's Fig. 3 draws a learned graph; each cell hovers as its two modules and P. A
    Plotly figure dict (``go.Figure(matrix_figure(fit))`` for the object).

    Parameters
    ----------
    fit
        ``StoreView.prior_fit``'s answer.
    """
    names = [str(m) for m in fit["order"]]
    heatmap = {
        "type": "heatmap",
        "z": fit["matrix"],
        "x": names,
        "y": names,
        "zmin": 0,
        "zmax": 1,
        "colorscale": "Viridis",
        "colorbar": {"thickness": 8, "len": 0.9},
        "hovertemplate": "modules %{y} and %{x}: P %{z:.2f}<extra></extra>",
    }
    layout = {
        "margin": {"l": 0, "r": 0, "t": 24, "b": 0},
        "title": {"text": f"P ordered by the {fit['best']} fit's blocks", "font": {"size": 11}},
        "xaxis": {"showticklabels": False, "type": "category"},
        "yaxis": {"showticklabels": False, "type": "category", "autorange": "reversed"},
    }
    return {"data": [heatmap], "layout": layout}


def prior_summary(fit: dict) -> list:
    """The prior-fit card's lines: verdict, what was read, the null's band, best family, gap,
    parameters.

    Parameters
    ----------
    fit
        ``StoreView.prior_fit``'s answer.
    """
    params = ", ".join(
        f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in fit["params"].items()
    )
    lines = [
        html.B(fit["family"]),
        html.Div(f"read: {fit['reading']} (weighted, as expected links)", className="small"),
    ]
    null = fit.get("null")
    if null is not None:
        band = "; ".join(
            f"{name} {null['observed'][name]:.3g} against {null['mean'][name]:.3g} "
            f"+- {null['sd'][name]:.2g} (z {null['z_scores'][name]:+.1f})"
            for name in null["observed"]
        )
        word = "distinguishable from" if null["distinguishable"] else "like"
        lines.append(html.Div(f"{word} the null, {null['source']}: {band}", className="small"))
    lines += [
        html.Div(f"best by length: {fit['best']}"),
        html.Div(
            f"gap to runner-up: {fit['gap']:.1f} nats"
            if np.isfinite(fit["gap"])
            else "no other family describes this graph"
        ),
        html.Div(params, className="small text-muted"),
    ]
    return lines


def node_text(node: dict | None) -> str:
    """What hovering a module says: its number (a group's name and members), role and degree
    in the view, and its pin and note.

    Parameters
    ----------
    node
        The hovered node's data (None: nothing hovered).
    """
    if not node:
        return ""
    if node.get("role") == "object":
        return f"{node['label']}: an object the decisive circuit reads"
    if node.get("role") == "group":
        members = ", ".join(map(str, node["members"]))
        text = f"group {node['label']} (modules {members}): {node['degree']} links in this view"
    else:
        text = f"module {node['id']} ({node['role']}): {node['degree']} links in this view"
    if node.get("effect") is not None:
        text += f"; knocked out, p(answer) {-node['effect']:+.3f}"
    if node.get("pinned"):
        text += "; pinned"
    return text + (f" · note: {node['note']}" if node.get("note") else "")


def register(app: dash.Dash, stores: AppStores) -> None:
    """The circuit's callbacks: which circuit is shown, its drawing, prior fit and hover line.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_circuit(app, stores)
    _register_details(app, stores)


def _register_circuit(app: dash.Dash, stores: AppStores) -> None:
    """Which circuit is shown, and its drawing."""

    @app.callback(
        Output("circuit", "data"),
        Input("results", "active_cell"),
        Input("selection", "active_cell"),
        Input("neighbours", "active_cell"),
        Input("embedding", "clickData"),
        Input("url-read", "search"),
        State("circuit", "data"),
        State("embedding", "figure"),
        State("typed-sentences", "data"),
        State("store-key", "data"),
    )
    def choose_circuit(
        result_cell, selection_cell, neighbour_cell, click, search, current, figure, typed, key
    ):
        if key is None:  # a fresh page: the store key has not landed yet, the URL names it
            key = stores.resolve(query_of(search).get("store"))[0]
        view = store_view(stores, key)
        trigger = ctx.triggered_id
        cells = {"results": result_cell, "selection": selection_cell, "neighbours": neighbour_cell}
        if trigger in cells:
            cell = cells[trigger]
            index = view.index_of(cell["row_id"]) if cell else None
        elif trigger == "embedding":
            index = row_of(click["points"][0], figure) if click else None
            if index is not None and index < 0:  # a typed sentence's star
                k = -1 - index
                return {"typed": k, "text": typed[k]} if k < len(typed or []) else no_update
        else:
            query = query_of(search)
            if "typed" in query and "id" not in query:  # open_typed (map_view) shows it
                return no_update
            if "id" not in query:  # a fresh page opens on the store's first circuit
                return {"index": 0} if not shows_circuit(current) and len(view.frame) else no_update
            index = view.index_of(query["id"])
            if index is None:
                return {"error": f"no circuit with id {query['id'][:40]!r} in this store"}
        if index is None or (current and current.get("index") == index):
            return no_update
        return {"index": index}

    @app.callback(
        Output("graph", "elements"),
        Output("circuit-title", "children"),
        Output("edge-count", "children"),
        Output("graph-message", "children"),
        Output("graph-message", "is_open"),
        Output("attribution-table", "children"),
        Input("circuit", "data"),
        Input("threshold", "value"),
        Input("mode", "value"),
        Input("top-k", "value"),
        Input("color-by", "value"),
        Input("url-read", "search"),
        Input("edits", "data"),
        Input("minimal-only", "value"),
        Input("view-notes", "data"),
        State("store-key", "data"),
    )
    def draw(circuit, threshold, mode, top_k, color, search, actions, minimal, notes, key):
        settings = ViewSettings(threshold, mode, top_k, color, minimal, notes)
        drawn = drawing(stores, circuit, settings, search, actions, key)
        table = attribution_table(stores, page_store(stores, key, search), circuit, color)
        return *drawn, table


def _register_details(app: dash.Dash, stores: AppStores) -> None:
    """The prior fit, the top-k box and the hover line."""

    @app.callback(
        Output("prior-fit", "children"),
        Output("degree", "figure"),
        Output("prior-matrix", "figure"),
        Input("circuit", "data"),
        Input("url-read", "search"),
        State("store-key", "data"),
    )
    def fit_prior(circuit, search, key):
        """The shown circuit's prior fit and degree plot: a callback of their own, so that the
        drawing never waits for a fit (about 0.4 s on the demo's NLVR stores, most of it the
        goodness-of-fit check's Louvain communities on 12 simulated graphs; seconds on the priors
        store's 132-module graphs; memoised per stored circuit)."""
        view = store_view(stores, page_store(stores, key, search))
        if shows_circuit(circuit) and "typed" in circuit:
            try:
                view.checked_sentence(circuit["text"])
            except ValueError:  # only a forged page state gets here; draw says why
                circuit = None
        if not shows_circuit(circuit):
            return "select a circuit", {}, {}
        try:
            fit = view.prior_fit(circuit)
        except ValueError as err:  # e.g. fewer than 3 processors: no prior can be fitted
            return [f"no prior fit: {err}"], {}, {}
        return prior_summary(fit), degree_figure(fit), matrix_figure(fit)

    @app.callback(Output("top-k-box", "style"), Input("mode", "value"))
    def show_top_k(mode):
        return (
            {"display": "flex", "alignItems": "center"} if mode == "top-k" else {"display": "none"}
        )

    @app.callback(
        Output("edge-hover", "children"),
        Input("graph", "mouseoverEdgeData"),
        Input("graph", "mouseoverNodeData"),
    )
    def hover(edge, node):
        """The link or module under the pointer, whichever it entered last."""
        if ctx.triggered_prop_ids and "graph.mouseoverNodeData" in ctx.triggered_prop_ids:
            return node_text(node)
        return edge_text(edge) if edge else ""


def edge_text(edge: dict) -> str:
    """A drawn link in words: its ends, p and any edit of it.

    Parameters
    ----------
    edge
        The hovered edge's data.
    """
    estimated = " (estimated)" if edge.get("estimated") else ""
    if edge.get("object") is not None:
        return (
            f"processor {edge['target']} reads {edge['object']}; cut, p(answer) "
            f"{-edge['effect']:+.3f}{estimated}"
        )
    text = f"link {edge['source']}-{edge['target']}: "
    edit = {"cut": "cut", "forced": "forced on"}.get(edge.get("edit"))
    if edge.get("p") is None:
        return text + (edit or "no p")
    text += f"p = {edge['p']:.3f}" + (f" ({edit})" if edit else "")
    if edge.get("effect") is not None:
        text += f"; cut, p(answer) {-edge['effect']:+.3f}{estimated}"
    return text
