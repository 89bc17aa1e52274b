"""The input panels' callbacks (``circuitlab.app.panels``: a Neural Interpreter's, a Modular
Network's, an NFM network's store), three per panel, registered from what the panel declares:
fill its table when the page's store key of its kind lands, choose the row shown, draw it.
Each waits for ``PREFIX-key`` (set only on a page of that kind, ``bodies``) or the panel's own
components, so none runs on another kind's page."""

from __future__ import annotations

from typing import Any

import dash
import pandas as pd
from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from circuitlab.app.callbacks.common import query_of, row_of
from circuitlab.app.layout.parts import kind_key
from circuitlab.app.panels import panels
from circuitlab.app.panels.base import KindPanel
from circuitlab.app.store_view import row_of_id
from circuitlab.app.stores import AppStores

__all__ = ["register"]


def register(app: dash.Dash, stores: AppStores) -> None:
    """Every registered input panel's callbacks on ``app``.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    for panel in panels().values():
        if panel.is_input_panel:
            register_input_panel(app, stores, panel)


def input_row(
    prefix: str, frame: pd.DataFrame, cell: dict | None, click: dict | None, figure, search
) -> int:
    """The row to show in the input panel of prefix ``prefix``: the clicked table cell or map
    point, else (a fresh page) the URL's id or row 0."""
    if ctx.triggered_id == f"{prefix}-inputs" and cell:
        return row_of_id(frame, cell["row_id"])
    if ctx.triggered_id == f"{prefix}-map" and click:
        return row_of(click["points"][0], figure)
    return row_of_id(frame, query_of(search).get("id")) or 0


def register_input_panel(app: dash.Dash, stores: AppStores, panel: KindPanel) -> None:
    """The input panel's three callbacks on ``app``: fill the table (and ``panel.filled``) when
    the page's store key of this kind lands, choose the row shown, draw it. Each waits for
    ``PREFIX-key`` or the panel's own components, so none runs on another kind's page."""
    prefix = panel.prefix

    def view_of(key: str | None) -> Any:
        if key is None:
            raise PreventUpdate
        try:
            return stores.kind_view(key, panel)
        except KeyError:
            raise PreventUpdate from None

    @app.callback(
        Output(f"{prefix}-inputs", "data"),
        *[Output(*prop) for prop in panel.filled],
        Input(kind_key(prefix), "data"),
        prevent_initial_call=True,
    )
    def fill_inputs(key):
        view = view_of(key)
        return (view.rows(), *panel.fill(view)) if panel.filled else view.rows()

    @app.callback(
        Output(f"{prefix}-input", "data"),
        Input(f"{prefix}-inputs", "active_cell"),
        Input(f"{prefix}-map", "clickData"),
        Input(kind_key(prefix), "data"),
        State(f"{prefix}-map", "figure"),
        State("url-read", "search"),
        prevent_initial_call=True,
    )
    def choose_input(cell, click, key, figure, search):
        return input_row(prefix, view_of(key).frame, cell, click, figure, search)

    @app.callback(
        *[Output(*prop) for prop in panel.shown],
        Output(panel.title_id, "children"),
        Output(f"{prefix}-map", "figure"),
        Input(f"{prefix}-input", "data"),
        *[Input(*prop) for prop in panel.controls],
        State(kind_key(prefix), "data"),
        State(f"{prefix}-map", "figure"),
        prevent_initial_call=True,
    )
    def show_input(index, *rest):
        *controls, key, shown_map = rest
        if index is None or any(value is None for value in controls):
            raise PreventUpdate
        view = view_of(key)
        # the map follows the input, not the controls; but on a first open a control may land
        # with (or after) the input, and the map must be drawn then too (it stayed blank)
        new_input = f"{prefix}-input.data" in ctx.triggered_prop_ids
        drawn = bool(shown_map and shown_map.get("data"))
        figure = view.map_figure(index) if new_input or not drawn else no_update
        return (*panel.show(view, index, *controls), panel.title(view, index), figure)
