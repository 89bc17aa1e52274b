"""The export buttons: the shown circuit as PNG/SVG (drawn by the browser), as a CSV of links,
as JSON (modules and links), or as the analysis layer's figure (PNG, ``-figure.png``)."""

from __future__ import annotations

import json
from typing import IO

import dash
import networkx as nx
import numpy as np
import pandas as pd
from dash import Input, Output, State, ctx, dcc, no_update
from matplotlib.figure import Figure

from circuitlab.analysis.figures import draw_circuit
from circuitlab.app.callbacks.common import (
    DRAWING_CONTROLS,
    shows_circuit,
    store_view,
    threshold_of,
)
from circuitlab.app.store_view import StoreView
from circuitlab.app.stores import AppStores


def file_stem(view: StoreView, circuit: dict | None) -> str:
    """The download's name: the circuit's id, or the typed sentence's number."""
    if circuit and "typed" in circuit:
        return f"circuit-typed-{circuit['typed']}"
    if circuit and "index" in circuit:
        return f"circuit-{int(view.frame['id'].iloc[circuit['index']])}"
    return "circuit"


def circuit_figure(view: StoreView, graph: nx.Graph) -> Figure:
    """The shown graph drawn by the analysis layer's figure code, the way the app shows it:
    cytoscape's y axis points down, matplotlib's up, so the layout's y is flipped. The object
    API, not pyplot: the server answers requests on several threads."""
    fig = Figure(figsize=(5, 5))
    draw_circuit(fig.add_subplot(), graph, view.positions * np.array([1.0, -1.0]))
    return fig


def figure_png(view: StoreView, graph: nx.Graph, buffer: IO[bytes]) -> None:
    """``circuit_figure`` as PNG bytes."""
    circuit_figure(view, graph).savefig(buffer, format="png", dpi=200, bbox_inches="tight")


def links_frame(graph: nx.Graph) -> pd.DataFrame:
    """One row per shown link: source, target, p and both ends' roles."""
    return pd.DataFrame(
        [
            (u, v, d["p"], graph.nodes[u]["role"], graph.nodes[v]["role"])
            for u, v, d in graph.edges(data=True)
        ],
        columns=["source", "target", "p", "source_role", "target_role"],
    )


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        Output("graph", "generateImage"),
        Input("export-png", "n_clicks"),
        Input("export-svg", "n_clicks"),
        State("circuit", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_image(_png, _svg, circuit, key):
        kind = "png" if ctx.triggered_id == "export-png" else "svg"
        stem = file_stem(store_view(stores, key), circuit)
        return {"type": kind, "action": "download", "filename": stem}

    @app.callback(
        Output("download", "data"),
        *[Input(f"export-{kind}", "n_clicks") for kind in ("csv", "json", "figure")],
        State("circuit", "data"),
        *[State(control, "value") for control in DRAWING_CONTROLS],
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_data(_csv, _json, _figure, circuit, threshold, mode, top_k, key):
        if not shows_circuit(circuit):
            return no_update
        view = store_view(stores, key)
        k = top_k if mode == "top-k" and isinstance(top_k, int) else None
        try:
            graph = view.visible_graph(circuit, threshold_of(threshold), k)
        except ValueError:  # a typed sentence this view cannot take (a forged page state)
            return no_update
        stem = file_stem(view, circuit)
        if ctx.triggered_id == "export-figure":
            # its own name: the PNG button's circuit-ID.png is the browser's drawing
            return dcc.send_bytes(
                lambda buffer: figure_png(view, graph, buffer), f"{stem}-figure.png"
            )
        edges = links_frame(graph)
        if ctx.triggered_id == "export-csv":
            return dcc.send_data_frame(edges.to_csv, f"{stem}.csv", index=False)
        nodes = [{"module": int(i), **d} for i, d in graph.nodes(data=True)]
        payload = {"circuit": stem, "nodes": nodes, "links": edges.to_dict("records")}
        return {"content": json.dumps(payload, indent=1), "filename": f"{stem}.json"}
