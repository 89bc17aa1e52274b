"""The map row (below): the embedding of every circuit, the nearest circuits and the lasso
selection; ``callbacks.map_view`` fills it."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from circuitlab.app.layout.parts import loading, plot, radio, table

__all__ = ["map_row"]


def map_row() -> dbc.Row:
    """Below: the embedding of every circuit, and the lasso selection."""
    embedding = dbc.Col(
        [
            html.H6(id="map-title", children="All circuits (t-SNE of P); lasso to select"),
            dbc.Row(
                [
                    dbc.Col(
                        dcc.Dropdown(id="embedding-color", options=[], placeholder="colour by"),
                        width=8,
                    ),
                    dbc.Col(radio("map-method", ["tsne"]), width=4),
                ]
            ),
            loading(
                plot("embedding", "420px"),
                "embedding-loading",
            ),
        ],
        width=7,
    )
    selection = dbc.Col(
        [
            html.H6("Nearest circuits to the shown one (PCA space of P)"),
            table("neighbours", page_size=5),
            html.H6(id="selection-count", children="selection", className="mt-2"),
            html.Div(id="selection-summary", className="small mb-1"),
            table("selection", page_size=10),
        ],
        width=5,
    )
    # hidden on a store of unconditional models (``callbacks.search.shape_page``)
    return dbc.Row([embedding, selection], id="map-row", className="mt-3")
