"""The URL as the page's state: view settings restored from it, and written back to it, so that
a link reproduces what its sender saw (store, circuit or typed sentence, module, threshold, mode,
k, colour, compared circuit or category, search text, map colour, saved view of pins, groups
and notes)."""

from __future__ import annotations

from urllib.parse import urlencode

import dash
from dash import Input, Output, State, no_update

from circuitlab.app.callbacks.common import (
    DRAWING_CONTROLS,
    VIEW_DEFAULTS,
    parse_view,
    query_of,
    store_view,
)
from circuitlab.app.callbacks.intervene import edits_query
from circuitlab.app.callbacks.map_view import default_map_color
from circuitlab.app.stores import AppStores

__all__ = ["register"]

SETTINGS = ("threshold", "mode", "top_k", "color", "compare", "search")
URL_NAMES = {"threshold": "threshold", "mode": "mode", "top_k": "k", "color": "color"}


def register(app: dash.Dash, stores: AppStores) -> None:
    """The callbacks between the page's view settings and its URL.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_restore(app, stores)
    _register_write(app, stores)


def _register_restore(app: dash.Dash, stores: AppStores) -> None:
    """The view settings read from the URL."""

    @app.callback(
        Output("threshold", "value"),
        Output("mode", "value"),
        Output("top-k", "value"),
        Output("color-by", "value"),
        Output("compare-id", "value"),
        Output("search", "value"),
        Input("url-read", "search"),
        State("threshold", "value"),
        State("mode", "value"),
        State("top-k", "value"),
        State("color-by", "value"),
        State("compare-id", "value"),
        State("search", "value"),
    )
    def restore_view(search, threshold, mode, top_k, color, compare_id, text):
        values, _ = parse_view(query_of(search))
        shown = (threshold, mode, top_k, color, compare_id, text)
        current = dict(zip(SETTINGS, shown, strict=True))
        return tuple(
            values[k] if k in values and values[k] != current[k] else no_update for k in SETTINGS
        )


def _register_write(app: dash.Dash, stores: AppStores) -> None:
    """The URL written from the page's settings."""

    @app.callback(
        Output("url-write", "search"),
        Input("circuit", "data"),
        Input("module", "data"),
        *[Input(control, "value") for control in DRAWING_CONTROLS],
        Input("color-by", "value"),
        Input("compare-id", "value"),
        Input("compare-category", "value"),
        Input("search", "value"),
        Input("embedding-color", "value"),
        Input("edits", "data"),
        Input("view-notes", "data"),
        State("embedding-color", "options"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def write_url(
        circuit,
        module,
        threshold,
        mode,
        top_k,
        color,
        compare_id,
        compare_category,
        text,
        map_color,
        actions,
        notes,
        map_colors,
        key,
    ):
        view = store_view(stores, key)
        query = {"store": key} if len(stores.keys) > 1 else {}
        if compare_id:
            query["compare"] = compare_id
        if compare_category:
            query["compare_category"] = compare_category
        if text:
            query["q"] = text
        if map_color and map_color != default_map_color(map_colors or []):
            query["map"] = map_color
        if circuit and "index" in circuit:
            query["id"] = view.id_of(circuit["index"])
        elif circuit and "typed" in circuit:
            query["typed"] = circuit["text"]
        if module is not None:
            query["module"] = module
        query.update(edits_query(actions))
        if notes and notes.get("name"):  # a saved view, as saved: ``callbacks.notes``
            query["view"] = notes["name"]
        settings = {"threshold": threshold, "mode": mode, "top_k": top_k, "color": color}
        for name, value in settings.items():
            if value is not None and value != VIEW_DEFAULTS[name]:
                query[URL_NAMES[name]] = value
        return "?" + urlencode(query) if query else ""
