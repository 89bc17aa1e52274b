"""The search panel: which store the page shows, its filters, and the matching sentences."""

from __future__ import annotations

from urllib.parse import urlencode

import dash
from dash import Input, Output, State
from dash.exceptions import PreventUpdate

from circuitlab.app.callbacks.common import query_of, store_view
from circuitlab.app.callbacks.map_view import color_columns, default_map_color
from circuitlab.app.store_view import FILTER_COLUMNS, StoreView
from circuitlab.app.stores import AppStores

__all__ = ["page_shape", "register", "result_count"]


def result_count(shown: int, total: int) -> str:
    """The line above the results: how many match, and how many of them the table lists.

    Parameters
    ----------
    shown, total
        Rows listed, and rows that match.
    """
    if shown < total:
        return f"{total:,} matching circuits (the first {shown:,} listed)"
    return f"{total:,} matching circuit{'' if total == 1 else 's'}"


def register(app: dash.Dash, stores: AppStores) -> None:
    """The search panel's callbacks: the store shown, its filters, the matches.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_open(app, stores)
    _register_find(app, stores)
    _register_shape(app, stores)


def page_shape(view: StoreView) -> tuple[str, dict, dict, dict]:
    """The search panel's title and the styles of the filters, the example card and the map:
    a store of conditional circuits has sentences to search, examples and a map of them; a
    store of unconditional models (one circuit each, the priors store) lists its models and
    hides the rest.

    Parameters
    ----------
    view
        The store's view.
    """
    if view.has_sentences:
        return "Find a sentence", {}, {}, {}
    hidden = {"display": "none"}
    return "Models (one circuit each)", hidden, hidden, hidden


def _register_shape(app: dash.Dash, stores: AppStores) -> None:
    """What of the page a store has: sentences, examples and a map, or a list of models."""

    @app.callback(
        Output("search-title", "children"),
        Output("search-filters", "style"),
        Output("example-card", "style"),
        Output("map-row", "style"),
        Input("store-key", "data"),
    )
    def shape_page(key):
        if key is None or not stores.has_circuit_view(key):
            raise PreventUpdate
        return page_shape(store_view(stores, key))


def _register_open(app: dash.Dash, stores: AppStores) -> None:
    """Which store is shown and its filters."""

    @app.callback(
        Output("store-key", "data"),
        Output("store-choice", "value"),
        Output("navbar", "brand"),
        Output("category", "options"),
        Output("compare-category", "options"),
        Output("compare-category", "value"),
        *[Output(f"filter-{c}", "options") for c in FILTER_COLUMNS],
        *[Output(f"filter-{c}", "disabled") for c in FILTER_COLUMNS],
        Output("embedding-color", "options"),
        Output("embedding-color", "value"),
        Input("url-read", "search"),
        State("store-key", "data"),
    )
    def open_store(search, current):
        query = query_of(search)
        key, _ = stores.resolve(query.get("store"))
        if key == current:
            raise PreventUpdate
        name = stores.paths[key].name if key == "." else key
        if not stores.has_circuit_view(key):  # its kind's input panel shows it (app/panels)
            empty = ([],) * len(FILTER_COLUMNS)
            disabled = (True,) * len(FILTER_COLUMNS)
            return key, key, f"circuitlab: {name}", [], [], None, *empty, *disabled, [], None
        view = stores.view(key)
        categories, options, colors = view.categories(), view.filter_options(), color_columns(view)
        # the URL's map colour and compared category where this store has them (set here,
        # with their options, so that no dropdown holds a value before its options exist)
        color = query["map"] if query.get("map") in colors else default_map_color(colors)
        compared = query.get("compare_category")
        return (
            key,
            key,
            f"circuitlab: {name}",
            categories,
            categories,
            compared if compared in categories else None,
            *[options.get(c, []) for c in FILTER_COLUMNS],
            *[c not in options for c in FILTER_COLUMNS],
            colors,
            color,
        )


def _register_find(app: dash.Dash, stores: AppStores) -> None:
    """Another store chosen, and the sentences that match."""

    @app.callback(
        Output("url-switch", "search"),
        Input("store-choice", "value"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def switch_store(choice, current):
        if choice is None or choice == current:
            raise PreventUpdate
        return "?" + urlencode({"store": choice})

    @app.callback(
        Output("results", "data"),
        Output("result-count", "children"),
        # a new list drops the old selection: a click on the cell left active would change
        # nothing, so the row clicked would be highlighted and the old circuit left drawn
        Output("results", "active_cell"),
        Output("results", "selected_cells"),
        Input("search", "value"),
        Input("category", "value"),
        Input("filter-split", "value"),
        Input("filter-label", "value"),
        Input("filter-correct", "value"),
        Input("store-key", "data"),
    )
    def find(text, category, split, label, correct, key):
        view = store_view(stores, key)
        rows, total = view.search(
            text or "", category, {"split": split, "label": label, "correct": correct}
        )
        return rows.to_dict("records"), result_count(len(rows), total), None, []
