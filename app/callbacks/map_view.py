"""The map panel: every circuit of the store on its embedding (t-SNE of P), coloured by a
column; the sentences this visitor typed as stars; the lasso selection as a table."""

from __future__ import annotations

import dash
import plotly.graph_objects as go
from dash import Input, Output, State, no_update
from dash.exceptions import PreventUpdate

from circuitlab.analysis.embedding import single_category_labels
from circuitlab.analysis.figures import embedding_plotly
from circuitlab.app.callbacks.common import query_of, row_of, store_view
from circuitlab.app.store_view import StoreView
from circuitlab.app.stores import AppStores


def color_columns(view: StoreView) -> list[str]:
    """The columns the embedding can be coloured by: the category, and any with <= 30 values."""
    columns = ["category"] if "categories" in view.frame else []
    for c in view.frame.columns:
        if c not in ("id", "text", "categories") and view.frame[c].nunique() <= 30:
            columns.append(c)
    return columns


def default_map_color(columns: list[str]) -> str | None:
    """The map's colour on a fresh page: the category where the store has one."""
    return "category" if "category" in columns else None


def embedding_figure(view: StoreView, color: str | None, typed: list[str]) -> go.Figure | dict:
    """The store's embedding, points carrying their row index, and the sentences this visitor
    typed (``typed``) as stars."""
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
    figure.update_traces(marker_color="#c7c7c7", selector={"name": "several or none"})
    if typed:
        positions = [view.typed_position(text) for text in typed]
        figure.add_trace(
            go.Scattergl(
                x=[x for x, _ in positions],
                y=[y for _, y in positions],
                text=typed,
                mode="markers",
                name="typed",
                customdata=[-1 - k for k in range(len(typed))],
                marker={"size": 12, "symbol": "star", "color": "black"},
            )
        )
    return figure


def register(app: dash.Dash, stores: AppStores) -> None:
    @app.callback(
        Output("embedding", "figure"),
        Input("embedding-color", "value"),
        Input("typed-sentences", "data"),
        Input("store-key", "data"),
    )
    def draw_embedding(color, typed, key):
        view = store_view(stores, key)
        try:
            return embedding_figure(view, color, list(typed or []))
        except ValueError:  # a page's typed list this view cannot take (forged, or no model)
            return embedding_figure(view, color, [])

    @app.callback(
        Output("circuit", "data", allow_duplicate=True),
        Output("typed-message", "children"),
        Output("typed-sentences", "data"),
        Input("generate", "n_clicks"),
        Input("typed", "n_submit"),
        State("typed", "value"),
        State("typed-sentences", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def type_sentence(_clicks, _submit, text, typed, key):
        """The typed sentence's circuit, shown; the sentence joins this page's own list (the
        server keeps no list of what visitors typed)."""
        view = store_view(stores, key)
        try:
            view.typed_circuit(text)
        except ValueError as err:
            return no_update, str(err), no_update
        text, typed = view.checked_sentence(text), list(typed or [])
        if text not in typed:
            typed.append(text)
        return {"typed": typed.index(text), "text": text}, "", typed

    @app.callback(
        Output("circuit", "data", allow_duplicate=True),
        Output("typed-message", "children", allow_duplicate=True),
        Output("typed-sentences", "data", allow_duplicate=True),
        Output("typed", "value"),
        Input("url-read", "search"),
        State("typed-sentences", "data"),
        State("circuit", "data"),
        State("store-key", "data"),
        prevent_initial_call="initial_duplicate",
    )
    def open_typed(search, typed, current, key):
        """A URL's ``typed`` sentence: its circuit shown and the sentence on this page's map."""
        text = query_of(search).get("typed")
        if text is None or (current or {}).get("text") == text.strip():
            raise PreventUpdate
        view = store_view(stores, key)
        try:
            text = view.checked_sentence(text)
            view.typed_circuit(text)
        except ValueError as err:
            return no_update, f"typed sentence from the URL: {err}", no_update, no_update
        typed = list(typed or [])
        if text not in typed:
            typed.append(text)
        return {"typed": typed.index(text), "text": text}, "", typed, text

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
