"""The map panel: every circuit of the store on its embedding (t-SNE of P), coloured by a
column; sentences typed by the user as stars; the lasso selection as a table."""

from __future__ import annotations

import dash
import plotly.graph_objects as go
from dash import Input, Output, State, no_update

from circuitlab.analysis.embedding import single_category_labels
from circuitlab.analysis.figures import embedding_plotly
from circuitlab.app.callbacks.common import row_of, store_view
from circuitlab.app.store_view import StoreView
from circuitlab.app.stores import AppStores


def color_columns(view: StoreView) -> list[str]:
    """The columns the embedding can be coloured by: the category, and any with <= 30 values."""
    columns = ["category"] if "categories" in view.frame else []
    for c in view.frame.columns:
        if c not in ("id", "text", "categories") and view.frame[c].nunique() <= 30:
            columns.append(c)
    return columns


def embedding_figure(view: StoreView, color: str | None) -> go.Figure | dict:
    """The store's embedding, points carrying their row index, typed sentences as stars."""
    if view.embedding is None:
        return {}
    frame = view.embedding.copy()
    frame["id"] = range(len(frame))  # customdata: the row index
    if "text" in view.frame:
        frame["text"] = view.frame["text"].astype(str).to_numpy()
    if color == "category":
        labels = single_category_labels(view.frame)
        frame["category"] = "several or none"
        frame.loc[labels.index, "category"] = labels
    elif color:
        frame[color] = view.frame[color].astype(str).to_numpy()
    figure = embedding_plotly(frame, color)
    if view.typed:
        figure.add_trace(
            go.Scattergl(
                x=[xy[0] for _, _, xy in view.typed],
                y=[xy[1] for _, _, xy in view.typed],
                text=[t for t, _, _ in view.typed],
                mode="markers",
                name="typed",
                customdata=[-1 - k for k in range(len(view.typed))],
                marker={"size": 12, "symbol": "star", "color": "black"},
            )
        )
    return figure


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        Output("embedding", "figure"),
        Input("embedding-color", "value"),
        Input("typed-version", "data"),
        Input("store-key", "data"),
    )
    def draw_embedding(color, _typed_version, key):
        return embedding_figure(store_view(stores, key), color)

    @app.callback(
        Output("circuit", "data", allow_duplicate=True),
        Output("typed-message", "children"),
        Output("typed-version", "data"),
        Input("generate", "n_clicks"),
        Input("typed", "n_submit"),
        State("typed", "value"),
        State("typed-version", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def type_sentence(_clicks, _submit, text, version, key):
        try:
            k = store_view(stores, key).add_sentence(text)
        except ValueError as err:
            return no_update, str(err), no_update
        return {"typed": k}, "", (version or 0) + 1

    @app.callback(
        Output("selection", "data"),
        Output("selection-count", "children"),
        Input("embedding", "selectedData"),
        State("embedding", "figure"),
        State("store-key", "data"),
    )
    def select(selected, figure, key):
        if not selected or not selected.get("points"):
            return [], "selection: lasso points on the map"
        rows = sorted({r for p in selected["points"] if (r := row_of(p, figure)) >= 0})
        table = store_view(stores, key).table_rows(rows).to_dict("records")
        return table, f"selection: {len(rows)} circuits"
