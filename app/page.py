"""The page: the state every panel shares (the URL, the store key, the shown circuit, the
visitor's edits and typed sentences), the navbar with the store choice, and one body per model
kind (``circuitlab.app.panels``), the one of the shown store's kind visible."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from circuitlab.app.layout.parts import kind_key
from circuitlab.app.layout.search import store_choice
from circuitlab.app.panels import panel_of, panels

__all__ = ["page"]

HIDDEN = {"display": "none"}


def page(store_keys: list[str], first: dict | None = None) -> html.Div:
    """The whole page; every control starts empty and is filled from the URL and the store it
    names (one of ``store_keys``), but for ``first`` (``callbacks.first_view``): the graph of
    the URL's store drawn before any callback runs, with its ``kind``, ``elements`` and
    ``title`` (a NAC's also its ``circuit``, link ``count`` and ``typing``), its body shown.

    Parameters
    ----------
    store_keys, first
        As above.
    """
    state = [
        dcc.Location(id="url-read"),
        dcc.Location(id="url-write", refresh=False),
        dcc.Location(id="url-switch", refresh=True),  # another store: a fresh page
        dcc.Store(id="store-key"),
        dcc.Store(id="circuit"),
        dcc.Store(id="module"),
        # the visitor's edits in order: ["cut", i, j] or ["knock", m], each a toggle
        dcc.Store(id="edits", data=[]),
        # the sentences typed in this page, in order: the visitor's own, never the server's
        dcc.Store(id="typed-sentences", data=[]),
    ]
    for panel in panels().values():
        if panel.is_input_panel:
            # the row shown; and the page's store key again, set only on a page of that kind:
            # the panel's callbacks wait for it and never run on another kind's page
            state += [dcc.Store(id=f"{panel.prefix}-input"), dcc.Store(id=kind_key(panel.prefix))]
    navbar = dbc.NavbarSimple(
        store_choice(store_keys),
        id="navbar",
        brand="circuitlab",
        color="dark",
        dark=True,
        fluid=True,
    )
    root = html.Div([*state, navbar, *[panel.body() for panel in panels().values()]])
    if first is not None:
        shown = panel_of(first["kind"])
        root[shown.first_graph].elements = first["elements"]
        root[shown.title_id].children = first["title"]
        if "circuit" in first:  # a NAC's
            root["circuit"].data = first["circuit"]
            root["edge-count"].children = first["count"]
            # as show_typing will: the box appearing or leaving moved the graph under the pointer
            root["typed-group"].style, root["typed-unavailable"].children = first["typing"]
        for panel in panels().values():  # as callbacks/bodies.py shows them
            root[panel.body_id].style = {} if panel.kind == shown.kind else HIDDEN
    return root
