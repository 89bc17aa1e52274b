"""The compare row: the shown circuit against another one or a category's mean circuit;
``callbacks.compare`` fills it."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from circuitlab.app.layout.parts import COMPARE_STYLE, graph_panel, loading

__all__ = ["compare_row"]


def compare_row() -> dbc.Row:
    """Compare the shown circuit with another one or with a category's mean circuit."""
    return dbc.Row(
        [
            dbc.Col(
                [
                    html.H6("Compare"),
                    dbc.Input(
                        id="compare-id",
                        placeholder="with circuit id",
                        type="text",
                        debounce=True,
                        size="sm",
                    ),
                    dcc.Dropdown(
                        id="compare-category",
                        options=[],
                        placeholder="or a category's mean circuit",
                    ),
                    html.Div(id="compare-summary", className="small mt-1"),
                    loading(html.Div(id="swap-outcome", className="small mt-1"), "swap-loading"),
                    html.Div(id="compare-hover", className="small text-muted mt-1"),
                ],
                width=4,
            ),
            graph_panel("graph-b", "reference", COMPARE_STYLE, width=8),
        ],
        className="mt-3",
    )
