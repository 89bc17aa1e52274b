"""``create_app``: the Dash app over one circuit store, built in a factory (callbacks on the
app object, never the global ``dash.callback``)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import dash
import dash_cytoscape as cyto
import flask

from circuitlab.app.callbacks import register_all
from circuitlab.app.callbacks.first_view import first_view
from circuitlab.app.page import page
from circuitlab.app.store_view import MAX_EDGES
from circuitlab.app.stores import AppStores, Checkpoints

__all__ = ["create_app"]

ASSETS = Path(__file__).resolve().parent / "assets"


def _page_search() -> str | None:
    """The query string of the page whose layout is asked for: the layout request's referrer
    (the page's own URL), None outside a request or without one."""
    if not flask.has_request_context() or not flask.request.referrer:
        return None
    return "?" + urlsplit(flask.request.referrer).query


def create_app(
    path: str | os.PathLike,
    *,
    root: str | os.PathLike | None = None,
    checkpoint: Checkpoints = None,
    max_edges: int = MAX_EDGES,
) -> dash.Dash:
    """The app over the circuit stores under ``root`` (default: ``path``). ``path`` is the store
    shown when the URL names none, or a folder of stores (its first is then the default); the
    URL's ``?store=`` picks another store under the root, opened (and its embedding computed and
    cached, the first time) when a page first asks for it. With ``checkpoint`` (the conditional
    NLVR or pair-world model of the stores, or several models: each store gets the one it was
    exported from) typed sentences get circuits live, and stored scenes take interventions.

    Parameters
    ----------
    path
        A store, or a folder of stores.
    root
        The folder whose stores the app serves (default: ``path``); a URL reaches none outside it.
    checkpoint
        A run directory or checkpoint file, or several, as above (None: no model).
    max_edges
        The most links a drawn circuit may have (a denser one asks for a higher threshold).

    Raises
    ------
    FileNotFoundError
        ``path`` is not a folder, or holds no store.
    ValueError
        ``path`` is outside ``root``.
    """
    stores = AppStores(path, root=root, checkpoint=checkpoint, max_edges=max_edges)
    stores.open(stores.default)  # open the default store now: a bad store fails at start
    cyto.load_extra_layouts()  # the bundle with cytoscape-svg: the SVG export needs cy.svg()
    app = dash.Dash(
        __name__,
        assets_folder=str(ASSETS),
        title="circuitlab",
        serve_locally=True,
        suppress_callback_exceptions=False,
    )

    def layout() -> dash.html.Div:
        """Each page's layout, carrying the graph its URL opens on (``first_view``)."""
        search = _page_search()
        return page(stores.keys, None if search is None else first_view(stores, search))

    app.layout = layout
    app.circuit_stores = stores  # what the CLI prints; tests read it too
    register_all(app, stores)
    return app
