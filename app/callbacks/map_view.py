"""The map panel: every circuit of the store on its embedding (t-SNE of P), coloured by a
column; the sentences this visitor typed as stars; the lasso selection as a table."""

from __future__ import annotations

from functools import lru_cache

import dash
import pandas as pd
from dash import Input, Output, State, no_update
from dash.exceptions import PreventUpdate

from circuitlab.analysis.embedding import single_category_labels
from circuitlab.analysis.figures import embedding_plotly
from circuitlab.app.callbacks.common import query_of, row_of, store_view, typing_controls
from circuitlab.app.store_view import StoreView
from circuitlab.app.stores import AppStores

__all__ = ["color_columns", "default_map_color", "register", "summary_text"]


def color_columns(view: StoreView) -> list[str]:
    """The columns the embedding can be coloured by: the category, and any with <= 30 values.

    Parameters
    ----------
    view
        The store's view.
    """
    columns = ["category"] if "categories" in view.frame else []
    for c in view.frame.columns:
        if c not in ("id", "text", "categories") and view.frame[c].nunique() <= 30:
            columns.append(c)
    return columns


def default_map_color(columns: list[str]) -> str | None:
    """The map's colour on a fresh page: the category where the store has one.

    Parameters
    ----------
    columns
        ``color_columns``'s answer.
    """
    return "category" if "category" in columns else None


METHOD_NAMES = {"tsne": "t-SNE", "pca": "PCA", "umap": "UMAP"}


@lru_cache(maxsize=16)
def _base_map(view: StoreView, color: str | None, method: str) -> tuple[dict, pd.DataFrame]:
    """The map's points coloured by ``color`` (a plotly figure as a dict) and the frame they
    were drawn from (x, y, id = row index, text), made once per store, colour and method: a
    circuit switch or a search only changes the rings drawn over them."""
    frame = view.map_frame(method).copy()
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
    return figure.to_plotly_json(), frame


def _marks(x: list, y: list, text: list, rows: list, name: str, marker: dict) -> dict:
    """A trace of marks drawn over the map's points, as a dict."""
    # a plain dict: go.Scattergl validates every property (about 1.6 ms a trace)
    return {
        "type": "scattergl",
        "x": x,
        "y": y,
        "text": text,
        "customdata": rows,
        "mode": "markers",
        "name": name,
        "marker": marker,
    }


def embedding_figure(
    view: StoreView,
    color: str | None,
    typed: list[str],
    method: str = "tsne",
    shown: int | None = None,
    hits: list[int] | None = None,
) -> dict:
    """The store's circuits on the ``method`` map, points carrying their row index; the
    search's listed hits ringed, the shown circuit ``shown`` marked, and the sentences this
    visitor typed (``typed``) as stars."""
    if view.embedding is None:
        return {}
    base, frame = _base_map(view, color, method)
    traces = list(base["data"])
    text = frame["text"] if "text" in frame else pd.Series([""] * len(frame))
    if hits:
        rows = frame.iloc[hits]
        ring = {"size": 9, "symbol": "circle-open", "color": "#111", "line": {"width": 1}}
        traces.append(
            _marks(
                rows["x"].tolist(),
                rows["y"].tolist(),
                text.iloc[hits].tolist(),
                rows["id"].tolist(),
                "search hits",
                ring,
            )
        )
    if shown is not None and 0 <= shown < len(frame):
        row = frame.iloc[shown]
        ring = {"size": 16, "symbol": "circle-open", "color": "#d62728", "line": {"width": 3}}
        traces.append(_marks([row["x"]], [row["y"]], [text.iloc[shown]], [shown], "shown", ring))
    if typed:
        positions = [view.typed_position(t, method) for t in typed]
        star = {"size": 12, "symbol": "star", "color": "black"}
        rows = [-1 - k for k in range(len(typed))]
        traces.append(
            _marks([x for x, _ in positions], [y for _, y in positions], typed, rows, "typed", star)
        )
    # uirevision: zoom and pan survive redraws of one map
    return {"data": traces, "layout": {**base["layout"], "uirevision": method}}


def register(app: dash.Dash, stores: AppStores) -> None:
    """The map's callbacks: the map and its neighbours, typed sentences, the lasso.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_map(app, stores)
    _register_typing(app, stores)


def _register_map(app: dash.Dash, stores: AppStores) -> None:
    """The map, the shown circuit's neighbours and the lasso's selection."""

    @app.callback(
        Output("embedding", "figure"),
        Output("map-title", "children"),
        Input("embedding-color", "value"),
        Input("typed-sentences", "data"),
        Input("map-method", "value"),
        Input("circuit", "data"),
        Input("results", "data"),
        Input("search", "value"),
        Input("category", "value"),
        Input("store-key", "data"),
    )
    def draw_embedding(color, typed, method, circuit, results, text, category, key):
        view = store_view(stores, key)
        method = method if method in view.map_methods() else "tsne"
        shown = circuit.get("index") if circuit else None
        hits = [r["index"] for r in results or []] if (text or category) else []
        title = f"All circuits ({METHOD_NAMES[method]} of P); lasso to select"
        try:
            return embedding_figure(view, color, list(typed or []), method, shown, hits), title
        except ValueError:  # a page's typed list this view cannot take (forged, or no model)
            return embedding_figure(view, color, [], method, shown, hits), title

    @app.callback(
        Output("neighbours", "data"),
        Output("map-method", "options"),
        Input("circuit", "data"),
        Input("store-key", "data"),
    )
    def list_neighbours(circuit, key):
        """The shown circuit's 5 nearest circuits (PCA space of P), and the maps offered."""
        view = store_view(stores, key)
        options = [{"label": METHOD_NAMES[m], "value": m} for m in view.map_methods()]
        if not circuit or "index" not in circuit or view.embedding is None:
            return [], options
        return view.table_rows(view.nearest(circuit["index"])).to_dict("records"), options

    @app.callback(
        Output("selection", "data"),
        Output("selection-count", "children"),
        Output("selection-summary", "children"),
        Input("embedding", "selectedData"),
        State("embedding", "figure"),
        State("store-key", "data"),
    )
    def select(selected, figure, key):
        if not selected or not selected.get("points"):
            return [], "selection: lasso points on the map", ""
        rows = sorted({r for p in selected["points"] if (r := row_of(p, figure)) >= 0})
        view = store_view(stores, key)
        table = view.table_rows(rows).to_dict("records")
        summary = summary_text(view.statistics.selection_summary(rows))
        return table, f"selection: {len(rows)} circuits", summary


def _register_typing(app: dash.Dash, stores: AppStores) -> None:
    """The sentence box, a typed sentence's circuit and a URL's typed sentence."""

    @app.callback(
        Output("typed-group", "style"),
        Output("typed-unavailable", "children"),
        Input("store-key", "data"),
    )
    def show_typing(key):
        """The sentence box, or why there is none (``common.typing_controls``)."""
        if key is None or not stores.has_circuit_view(key):
            raise PreventUpdate
        return typing_controls(store_view(stores, key))

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


def summary_text(summary: dict) -> str:
    """A selection against the rest of the store, in words.

    Parameters
    ----------
    summary
        ``StoreStatistics.selection_summary``'s answer.
    """
    parts = []
    if summary["categories"]:
        shares = ", ".join(f"{c} {a:.0%} (rest {b:.0%})" for c, a, b in summary["categories"])
        parts.append(f"categories against the rest: {shares}")
    for name in ("stronger", "weaker"):
        if summary[name]:
            links = ", ".join(f"{i}-{j} ({d:+.2f} sd)" for i, j, d in summary[name])
            parts.append(f"links {name} in the selection: {links}")
    return "; ".join(parts)
