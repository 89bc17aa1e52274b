"""The export buttons: the shown circuit as PNG/SVG (drawn by the browser), as a CSV of links,
as JSON (modules and links), or as the analysis layer's figure (PNG, ``-figure.png``). File
names carry the store, the circuit and a short hash of what is drawn (the view and the edit),
so two exports of different states never share a name; the CSV and JSON mark cut
and forced links and knocked-out modules; the figure numbers the modules and names the
threshold and the edit."""

from __future__ import annotations

import hashlib
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
    DECIDES,
    DRAWING_CONTROLS,
    edit_of,
    shows_circuit,
    store_view,
    threshold_of,
)
from circuitlab.app.callbacks.drawing import ViewSettings, drawing, drawn_mode
from circuitlab.app.elements_export import drawn_table, elements_figure, is_drawn_view
from circuitlab.app.store_view import StoreView
from circuitlab.app.stores import AppStores
from circuitlab.app.view_notes import ViewNotes, page_view
from circuitlab.edits import CircuitEdit

__all__ = ["circuit_figure", "file_safe_store", "register", "state_hash"]

NO_EDIT = CircuitEdit()
# the controls a view is drawn from: threshold, mode, k, colour, the minimal-circuit switch and
# the pins, groups and notes
VIEW_STATES = (
    *[State(control, "value") for control in DRAWING_CONTROLS],
    State("color-by", "value"),
    State("minimal-only", "value"),
    State("view-notes", "data"),
)


def edit_words(edit: CircuitEdit) -> str:
    """An edit in a few words: "cut 1-2, 3-4; knocked out 5; forced 6-7"."""
    parts = []
    if edit.cut:
        parts.append("cut " + ", ".join(f"{i}-{j}" for i, j in edit.cut))
    if edit.knocked_out:
        parts.append("knocked out " + ", ".join(map(str, edit.knocked_out)))
    if edit.forced:
        parts.append("forced " + ", ".join(f"{i}-{j}" for i, j in edit.forced))
    return "; ".join(parts)


def store_label(view: StoreView, key: str | None) -> str:
    """The store's key under the app's root (e.g. ``nlvr/nlvr``), or its folder's name when
    the app serves that one store (key ".")."""
    return key if key not in (None, "", ".") else view.store.path.name


def file_safe_store(view: StoreView, key: str | None) -> str:
    """The store's label (``store_label``) with anything but letters, digits, '-' and '.' as
    '_', for a download's file name (``nlvr/nlvr`` -> ``nlvr_nlvr``).

    Parameters
    ----------
    view
        The store's view.
    key
        The page's store key.
    """
    return "".join(c if c.isalnum() or c in "-." else "_" for c in store_label(view, key))


def state_hash(edit: CircuitEdit, view: str, notes: ViewNotes | None = None) -> str:
    """8 hex digits naming a drawn state: the edit (cut, forced links and knocked-out modules,
    in any order), the view (``"P > 0.7"``, ``"top-3 per module"``) and its pins, groups and
    notes (none: the hash of a view without them, as before they were drawn).

    Parameters
    ----------
    edit, view, notes
        As above.
    """
    state = {
        "cut": sorted(sorted(link) for link in edit.cut),
        "forced": sorted(sorted(link) for link in edit.forced),
        "knocked_out": sorted(edit.knocked_out),
        "view": view,
    }
    if notes is not None and notes != ViewNotes():
        state["notes"] = notes.to_json("", None)
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:8]


def file_stem(
    view: StoreView,
    circuit: dict | None,
    key: str | None,
    edit: CircuitEdit,
    setting: str,
    notes: ViewNotes | None = None,
) -> str:
    """The download's name: the store, the circuit's id (or the typed sentence's number) and
    the hash of the drawn state (``state_hash``), e.g. ``nlvr_nlvr-circuit-3-1f0c9a2e``: exports
    of other stores, circuits, views or edits never overwrite each other (knocking out modules
    1 and 9, then 3 and 4, gives two names)."""
    store = file_safe_store(view, key)
    if circuit and "typed" in circuit:
        stem = f"{store}-circuit-typed-{circuit['typed']}"
    elif circuit and "index" in circuit:
        stem = f"{store}-circuit-{view.id_of(circuit['index'])}"
    else:
        stem = f"{store}-circuit"
    return f"{stem}-{state_hash(edit, setting, notes)}"


def view_setting(
    threshold: float | None,
    mode: str | None,
    top_k: int | None,
    color: str | None = None,
    minimal: list | None = None,
) -> str:
    """The view in words, as the export's figure and JSON name it: ``"P > 0.7"``,
    ``"top-3 per module"`` or ``"what decides"``, with ``", coloured by attribution"`` and
    ``", the minimal circuit"`` where the view draws them.

    Parameters
    ----------
    threshold, mode, top_k, color, minimal
        The page's view controls.
    """
    if mode == DECIDES:
        return "what decides"
    k = top_k if mode == "top-k" and isinstance(top_k, int) else None
    setting = f"top-{k} per module" if k else f"P > {threshold_of(threshold):g}"
    if color == "attribution":
        setting += ", the minimal circuit" if minimal else ", coloured by attribution"
    return setting


def circuit_figure(
    view: StoreView, graph: nx.Graph, edit: CircuitEdit = NO_EDIT, title: str = ""
) -> Figure:
    """The shown graph drawn by the analysis layer's figure code, the way the app shows it,
    modules numbered and the edit marked: cytoscape's y axis points down, matplotlib's up, so
    the layout's y is flipped. The object API, not pyplot: the server answers requests on
    several threads.

    Parameters
    ----------
    view
        The store's view (its layout).
    graph
        The drawn graph.
    edit
        The visitor's edit.
    title
        The figure's title.
    """
    fig = Figure(figsize=(5, 5))
    draw_circuit(
        fig.add_subplot(),
        graph,
        view.positions * np.array([1.0, -1.0]),
        title=title,
        labels=True,
        cut=edit.cut,
        knocked=edit.knocked_out,
        forced=edit.forced,
    )
    return fig


def figure_png(figure: Figure, buffer: IO[bytes]) -> None:
    """A figure as PNG bytes."""
    figure.savefig(buffer, format="png", dpi=200, bbox_inches="tight")


def links_frame(graph: nx.Graph, edit: CircuitEdit = NO_EDIT) -> pd.DataFrame:
    """One row per shown link: source, target, p, both ends' roles and ``edit`` ("cut",
    "forced" or ""); an edited link the view does not show is a row of its own (p empty)."""
    cut = {(min(i, j), max(i, j)) for i, j in edit.cut}
    forced = {(min(i, j), max(i, j)) for i, j in edit.forced} - cut
    rows, shown = [], set()
    for u, v, d in graph.edges(data=True):
        ends = (min(u, v), max(u, v))
        shown.add(ends)
        tag = "cut" if ends in cut else "forced" if ends in forced else ""
        rows.append((u, v, d["p"], graph.nodes[u]["role"], graph.nodes[v]["role"], tag))
    for tag, edited in (("cut", cut), ("forced", forced)):  # edited links the view hides
        for u, v in sorted(edited - shown):
            rows.append((u, v, None, graph.nodes[u]["role"], graph.nodes[v]["role"], tag))
    columns = ["source", "target", "p", "source_role", "target_role", "edit"]
    return pd.DataFrame(rows, columns=columns)


def _elements_export(
    button: str,
    elements: list[dict],
    stem: str,
    store: str,
    setting: str,
    notes: dict | None = None,
) -> dict:
    """A drawn view's download for ``button``: its edges as CSV, its nodes and edges as JSON
    (with the view's pins, groups and notes, ``notes``), or the figure of what is drawn, all
    from its ``elements``."""
    if button == "export-figure":
        figure = elements_figure(elements, f"{stem}: {setting}")
        return dcc.send_bytes(lambda buffer: figure_png(figure, buffer), f"{stem}-figure.png")
    edges = drawn_table(elements)
    if button == "export-csv":
        return dcc.send_data_frame(edges.to_csv, f"{stem}.csv", index=False)
    keys = ("id", "label", "role", "members", "note")  # a group's members, a node's note
    nodes = [
        {k: e["data"][k] for k in keys if e["data"].get(k) is not None}
        for e in elements
        if "source" not in e["data"]
    ]
    payload = {
        "circuit": stem,
        "store": store,
        "view": setting,
        "notes": notes,
        "nodes": nodes,
        "edges": json.loads(edges.to_json(orient="records")),
    }
    return {"content": json.dumps(payload, indent=1), "filename": f"{stem}.json"}


def register(app: dash.Dash, stores: AppStores) -> None:
    """The export buttons' callbacks.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_image(app, stores)
    _register_data(app, stores)


def _register_image(app: dash.Dash, stores: AppStores) -> None:
    """The PNG and SVG of the graph as drawn."""

    @app.callback(
        Output("graph", "generateImage"),
        Input("export-png", "n_clicks"),
        Input("export-svg", "n_clicks"),
        State("circuit", "data"),
        *VIEW_STATES,
        State("edits", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_image(
        _png, _svg, circuit, threshold, mode, top_k, color, minimal, notes, actions, key
    ):
        kind = "png" if ctx.triggered_id == "export-png" else "svg"
        mode = drawn_mode(stores, key, circuit, mode)  # named as the data exports name it
        setting = view_setting(threshold, mode, top_k, color, minimal)
        view = store_view(stores, key)
        drawn = page_view(notes, view.n_modules)
        stem = file_stem(view, circuit, key, edit_of(actions), setting, drawn)
        return {"type": kind, "action": "download", "filename": stem}


def _register_data(app: dash.Dash, stores: AppStores) -> None:
    """The CSV, JSON and figure of the shown circuit."""

    @app.callback(
        Output("download", "data"),
        *[Input(f"export-{kind}", "n_clicks") for kind in ("csv", "json", "figure")],
        State("circuit", "data"),
        *VIEW_STATES,
        State("edits", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_data(
        _csv, _json, _figure, circuit, threshold, mode, top_k, color, minimal, notes, actions, key
    ):
        if not shows_circuit(circuit):
            return no_update
        view = store_view(stores, key)
        mode = drawn_mode(stores, key, circuit, mode)  # what decides may draw by threshold
        settings = ViewSettings(threshold, mode, top_k, color, minimal, notes)
        elements = drawing(stores, circuit, settings, None, actions, key)[0]  # as the page drew
        drawn = page_view(notes, view.n_modules)
        notes_json = drawn.to_json(key, None) if drawn != ViewNotes() else None
        # what decides, attribution, minimal, groups, pinned only: what is drawn
        if is_drawn_view(elements) or drawn.reshapes:
            setting = view_setting(threshold, mode, top_k, color, minimal)
            stem = file_stem(view, circuit, key, edit_of(actions), setting, drawn)
            store = store_label(view, key)
            return _elements_export(ctx.triggered_id, elements, stem, store, setting, notes_json)
        k = top_k if mode == "top-k" and isinstance(top_k, int) else None
        try:
            graph = view.visible_graph(circuit, threshold_of(threshold), k)
        except ValueError:  # a typed sentence this view cannot take (a forged page state)
            return no_update
        edit = edit_of(actions)
        setting = view_setting(threshold, mode, top_k)
        stem = file_stem(view, circuit, key, edit, setting, drawn)
        if ctx.triggered_id == "export-figure":
            # its own name: the PNG button's STEM.png is the browser's drawing
            title = f"{stem}: {setting}" + (f"; {edit_words(edit)}" if edit else "")
            figure = circuit_figure(view, graph, edit, title)
            return dcc.send_bytes(lambda buffer: figure_png(figure, buffer), f"{stem}-figure.png")
        edges = links_frame(graph, edit)
        if ctx.triggered_id == "export-csv":
            return dcc.send_data_frame(edges.to_csv, f"{stem}.csv", index=False)
        knocked, noted = set(edit.knocked_out), dict(drawn.notes)
        nodes = [
            {"module": int(i), **d, "knocked_out": int(i) in knocked, "pinned": i in drawn.pinned}
            | ({"note": noted[f"module {i}"]} if f"module {i}" in noted else {})
            for i, d in graph.nodes(data=True)
        ]
        payload = {
            "circuit": stem,
            "store": store_label(view, key),
            "view": setting,
            "edit": {
                "cut": [list(x) for x in edit.cut],
                "knocked_out": list(edit.knocked_out),
                "forced": [list(x) for x in edit.forced],
            },
            "notes": notes_json,
            "nodes": nodes,
            "links": json.loads(edges.to_json(orient="records")),
        }
        return {"content": json.dumps(payload, indent=1), "filename": f"{stem}.json"}
