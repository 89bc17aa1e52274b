"""What several panels' callbacks share: the page's store, the URL query, the view settings."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs

import dash
import pandas as pd
from dash import Input, Output, State, ctx
from dash.exceptions import PreventUpdate

from circuitlab.app.store_view import MAX_SENTENCE, StoreView, row_of_id
from circuitlab.app.stores import AppStores

# the view settings a fresh page starts with; the URL carries only those that differ
VIEW_DEFAULTS = {"threshold": 0.5, "mode": "threshold", "top_k": 3, "color": "module"}
# the controls that set how a circuit is drawn: link threshold, threshold or top-k, k
DRAWING_CONTROLS = ("threshold", "mode", "top-k")


def store_view(stores: AppStores, key: str | None) -> StoreView:
    """The view of the page's store; a key the app does not serve answers nothing (keys come
    from the server, so only a forged request has one)."""
    try:
        return stores.view(key)
    except KeyError:
        raise PreventUpdate from None


def page_store(stores: AppStores, key: str | None, search: str | None) -> str:
    """The page's store key; on a fresh page, before the store key has landed, the store its
    URL names (not the default store: a first open of another store would draw the default
    store's circuit of the same row)."""
    return stores.resolve(query_of(search).get("store"))[0] if key is None else key


def input_row(
    prefix: str, frame: pd.DataFrame, cell: dict | None, click: dict | None, figure, search
) -> int:
    """The row to show in the input panel of a store of kind ``prefix`` ("ni", "mn", "nfm"):
    the clicked table cell or map point, else (a fresh page) the URL's id or row 0."""
    if ctx.triggered_id == f"{prefix}-inputs" and cell:
        return row_of_id(frame, cell["row_id"])
    if ctx.triggered_id == f"{prefix}-map" and click:
        return row_of(click["points"][0], figure)
    return row_of_id(frame, query_of(search).get("id")) or 0


def register_input_choice(
    app: dash.Dash, prefix: str, frame_of: Callable[[str], pd.DataFrame]
) -> None:
    """The callback that sets ``PREFIX-input`` (the row shown) on a page of kind ``prefix``
    ("ni", "mn", "nfm"): ``input_row`` of the store's frame (``frame_of(key)``), run when the
    table, the map or the page's store key changes."""

    @app.callback(
        Output(f"{prefix}-input", "data"),
        Input(f"{prefix}-inputs", "active_cell"),
        Input(f"{prefix}-map", "clickData"),
        Input(f"{prefix}-key", "data"),
        State(f"{prefix}-map", "figure"),
        State("url-read", "search"),
        prevent_initial_call=True,
    )
    def choose_input(cell, click, key, figure, search):
        if key is None:
            raise PreventUpdate
        return input_row(prefix, frame_of(key), cell, click, figure, search)


def threshold_of(value: float | None) -> float:
    """The link threshold of the slider, its default while the page has none yet."""
    return VIEW_DEFAULTS["threshold"] if value is None else float(value)


def query_of(search: str | None) -> dict[str, str]:
    """The URL's query string as {name: last value}."""
    return {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}


def parse_view(query: dict[str, str]) -> tuple[dict, list[str]]:
    """Validated view settings from the URL query, and a message per value refused."""
    values, problems = {}, []
    if "threshold" in query:
        try:
            threshold = float(query["threshold"])
            if not 0 <= threshold <= 1:
                raise ValueError
            values["threshold"] = threshold
        except ValueError:
            problems.append(f"threshold {query['threshold'][:40]!r} is not a number in [0, 1]")
    if "mode" in query:
        if query["mode"] in ("threshold", "top-k"):
            values["mode"] = query["mode"]
        else:
            problems.append(f"mode {query['mode'][:40]!r} is not threshold or top-k")
    if "k" in query:
        if query["k"].isdigit() and int(query["k"]) >= 1:
            values["top_k"] = int(query["k"])
        else:
            problems.append(f"k {query['k'][:40]!r} is not a positive integer")
    if "compare" in query:
        values["compare"] = query["compare"][:40]  # checked against the store's ids on use
    if "q" in query:
        values["search"] = query["q"][:MAX_SENTENCE]  # a plain substring, shown as text
    if "color" in query:
        if query["color"] in ("module", "community", "attribution"):
            values["color"] = query["color"]
        else:
            problems.append(
                f"color {query['color'][:40]!r} is not module, community or attribution"
            )
    return values, problems


def shows_circuit(circuit: dict | None) -> bool:
    """Whether the page state names a circuit (a store row or a typed sentence)."""
    if not circuit:
        return False
    return "index" in circuit or ("typed" in circuit and isinstance(circuit.get("text"), str))


def row_of(point: dict, figure: dict) -> int:
    """The store row of a clicked or selected embedding point: its customdata, which WebGL
    traces leave out of selection events, so looked up by trace and point index then."""
    if "customdata" in point:
        return int(point["customdata"])
    trace = figure["data"][point["curveNumber"]]
    return int(trace["customdata"][point["pointIndex"]])
