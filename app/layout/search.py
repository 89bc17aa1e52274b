"""The search panel (left): the store choice, the search box and filters, the matching
sentences; ``callbacks.search`` fills it."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from circuitlab.app.layout.parts import loading, table
from circuitlab.app.store_view import FILTER_COLUMNS

__all__ = ["search_panel", "store_choice"]


def _filters() -> list:
    """Search box and filters; their options come from the shown store (``open_store``)."""
    controls = [
        dbc.Input(id="search", placeholder="search sentences", type="search", debounce=True),
        dcc.Dropdown(id="category", options=[], placeholder="category"),
    ]
    for column in FILTER_COLUMNS:
        controls.append(dcc.Dropdown(id=f"filter-{column}", options=[], placeholder=column))
    return controls


def store_choice(store_keys: list[str]) -> dcc.Dropdown:
    """Which store the page shows; hidden when the app serves one.

    Parameters
    ----------
    store_keys
        The stores served.
    """
    return dcc.Dropdown(
        id="store-choice",
        options=store_keys,
        clearable=False,
        searchable=False,
        style={"width": 260, "display": "block" if len(store_keys) > 1 else "none"},
    )


def search_panel() -> dbc.Col:
    """Left: the search box, filters and matching sentences."""
    return dbc.Col(
        [
            html.H6("Find a sentence", id="search-title"),
            # a store's first open takes seconds; no filters on a store of unconditional models
            loading(html.Div(_filters(), id="search-filters"), "store-loading"),
            html.Div(id="result-count", className="small text-muted my-1"),
            table("results", page_size=8),
        ],
        width=3,
    )
