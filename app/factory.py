"""``create_app``: the Dash app over one circuit store, built in a factory (callbacks on the
app object, never the global ``dash.callback``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import dash
import pandas as pd
import plotly.graph_objects as go
from dash import Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate
from matplotlib.figure import Figure

from circuitlab.analysis.embedding import single_category_labels
from circuitlab.analysis.figures import draw_circuit, embedding_plotly
from circuitlab.app.page import page
from circuitlab.app.store_view import FILTER_COLUMNS, MAX_EDGES, StoreView, TooManyEdges
from circuitlab.app.stores import AppStores

ASSETS = Path(__file__).resolve().parent / "assets"
VIEW_DEFAULTS = {"threshold": 0.5, "mode": "threshold", "top_k": 3, "color": "module"}


def create_app(
    path: str | os.PathLike,
    *,
    root: str | os.PathLike | None = None,
    checkpoint: str | os.PathLike | None = None,
    max_edges: int = MAX_EDGES,
) -> dash.Dash:
    """The app over the circuit stores under ``root`` (default: ``path``). ``path`` is the store
    shown when the URL names none, or a folder of stores (its first is then the default); the
    URL's ``?store=`` picks another store under the root, opened (and its embedding computed and
    cached, the first time) when a page first asks for it. With ``checkpoint`` (the conditional
    NLVR model of the stores) typed sentences get circuits live."""
    stores = AppStores(path, root=root, checkpoint=checkpoint, max_edges=max_edges)
    stores.view(stores.default)  # open the default store now: a bad store fails at start
    app = dash.Dash(
        __name__,
        assets_folder=str(ASSETS),
        title="circuitlab",
        serve_locally=True,
        suppress_callback_exceptions=False,
    )
    app.page = page(stores.keys)
    app.circuit_stores = stores  # what the CLI prints; tests read it too
    _register(app, stores)
    return app


def _color_columns(view: StoreView) -> list[str]:
    columns = ["category"] if "categories" in view.frame else []
    for c in view.frame.columns:
        if c not in ("id", "text", "categories") and view.frame[c].nunique() <= 30:
            columns.append(c)
    return columns


def _query(search: str | None) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}


def _parse_view(query: dict[str, str]) -> tuple[dict, list[str]]:
    """Validated view settings from the URL query, and a message per value refused."""
    values, problems = {}, []
    if "threshold" in query:
        try:
            threshold = float(query["threshold"])
            if not 0 <= threshold <= 1:
                raise ValueError
            values["threshold"] = threshold
        except ValueError:
            problems.append(f"threshold {query['threshold'][:40]!r} is not a number in [0, 1]")
    if "mode" in query:
        if query["mode"] in ("threshold", "top-k"):
            values["mode"] = query["mode"]
        else:
            problems.append(f"mode {query['mode'][:40]!r} is not threshold or top-k")
    if "k" in query:
        if query["k"].isdigit() and int(query["k"]) >= 1:
            values["top_k"] = int(query["k"])
        else:
            problems.append(f"k {query['k'][:40]!r} is not a positive integer")
    if "compare" in query:
        values["compare"] = query["compare"][:40]  # checked against the store's ids on use
    if "color" in query:
        if query["color"] in ("module", "community"):
            values["color"] = query["color"]
        else:
            problems.append(f"color {query['color'][:40]!r} is not module or community")
    return values, problems


def _shows_circuit(circuit: dict | None) -> bool:
    """Whether the page state names a circuit (a store row or a typed sentence)."""
    return bool(circuit) and bool({"index", "typed"} & set(circuit))


def _degree_figure(fit: dict) -> go.Figure:
    degrees = list(range(len(fit["observed"])))
    figure = go.Figure(
        [
            go.Bar(x=degrees, y=fit["observed"], name="observed", marker_color="#9ecae1"),
            go.Scatter(
                x=degrees,
                y=fit["fitted"],
                name=fit["best"],
                mode="lines+markers",
                line={"color": "#d62728"},
            ),
        ]
    )
    figure.update_layout(
        margin={"l": 30, "r": 0, "t": 0, "b": 30},
        showlegend=True,
        legend={"orientation": "h", "y": 1.15},
        xaxis_title="degree",
    )
    return figure


def _file_stem(view: StoreView, circuit: dict | None) -> str:
    if circuit and "typed" in circuit:
        return f"circuit-typed-{circuit['typed']}"
    if circuit and "index" in circuit:
        return f"circuit-{int(view.frame['id'].iloc[circuit['index']])}"
    return "circuit"


def _figure_png(view: StoreView, graph, buffer) -> None:
    """The shown graph drawn by the analysis layer's figure code, as PNG bytes. The object
    API, not pyplot: the server answers requests on several threads."""
    fig = Figure(figsize=(5, 5))
    draw_circuit(fig.add_subplot(), graph, view.positions)
    fig.savefig(buffer, format="png", dpi=200, bbox_inches="tight")


def _row_of(point: dict, figure: dict) -> int:
    """The store row of a clicked or selected embedding point: its customdata, which WebGL
    traces leave out of selection events, so looked up by trace and point index then."""
    if "customdata" in point:
        return int(point["customdata"])
    trace = figure["data"][point["curveNumber"]]
    return int(trace["customdata"][point["pointIndex"]])


def _register(app: dash.Dash, stores: AppStores) -> None:
    def store_view(key: str | None) -> StoreView:
        """The view of the page's store; a key the app does not serve answers nothing (keys
        come from the server, so only a forged request has one)."""
        try:
            return stores.view(key)
        except KeyError:
            raise PreventUpdate from None

    @app.callback(
        Output("store-key", "data"),
        Output("store-choice", "value"),
        Output("navbar", "brand"),
        Output("category", "options"),
        Output("compare-category", "options"),
        *[Output(f"filter-{c}", "options") for c in FILTER_COLUMNS],
        *[Output(f"filter-{c}", "disabled") for c in FILTER_COLUMNS],
        Output("embedding-color", "options"),
        Output("embedding-color", "value"),
        Input("url-read", "search"),
        State("store-key", "data"),
    )
    def open_store(search, current):
        key, _ = stores.resolve(_query(search).get("store"))
        if key == current:
            raise PreventUpdate
        view = stores.view(key)
        categories, options, colors = view.categories(), view.filter_options(), _color_columns(view)
        name = view.store.path.name if key == "." else key
        return (
            key,
            key,
            f"circuitlab: {name}",
            categories,
            categories,
            *[options.get(c, []) for c in FILTER_COLUMNS],
            *[c not in options for c in FILTER_COLUMNS],
            colors,
            "category" if "category" in colors else None,
        )

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
        Input("search", "value"),
        Input("category", "value"),
        Input("filter-split", "value"),
        Input("filter-label", "value"),
        Input("filter-correct", "value"),
        Input("store-key", "data"),
    )
    def find(text, category, split, label, correct, key):
        view = store_view(key)
        rows = view.search(
            text or "", category, {"split": split, "label": label, "correct": correct}
        )
        shown = "first 200 " if len(rows) == 200 else ""
        return rows.to_dict("records"), f"{shown}{len(rows)} matching circuits"

    @app.callback(
        Output("threshold", "value"),
        Output("mode", "value"),
        Output("top-k", "value"),
        Output("color-by", "value"),
        Output("compare-id", "value"),
        Input("url-read", "search"),
        State("threshold", "value"),
        State("mode", "value"),
        State("top-k", "value"),
        State("color-by", "value"),
        State("compare-id", "value"),
    )
    def restore_view(search, threshold, mode, top_k, color, compare_id):
        values, _ = _parse_view(_query(search))
        current = {
            "threshold": threshold,
            "mode": mode,
            "top_k": top_k,
            "color": color,
            "compare": compare_id,
        }
        return tuple(
            values[k] if k in values and values[k] != current[k] else no_update
            for k in ("threshold", "mode", "top_k", "color", "compare")
        )

    @app.callback(
        Output("circuit", "data"),
        Input("results", "active_cell"),
        Input("selection", "active_cell"),
        Input("embedding", "clickData"),
        Input("url-read", "search"),
        State("circuit", "data"),
        State("embedding", "figure"),
        State("store-key", "data"),
    )
    def choose_circuit(result_cell, selection_cell, click, search, current, figure, key):
        view = store_view(key)
        trigger = ctx.triggered_id
        if trigger in ("results", "selection"):
            cell = result_cell if trigger == "results" else selection_cell
            index = view.index_of(cell["row_id"]) if cell else None
        elif trigger == "embedding":
            index = _row_of(click["points"][0], figure) if click else None
            if index is not None and index < 0:  # a typed sentence's star
                return {"typed": -1 - index}
        else:
            query = _query(search)
            if "id" not in query:
                return no_update
            index = view.index_of(query["id"])
            if index is None:
                return {"error": f"no circuit with id {query['id'][:40]!r} in this store"}
        if index is None or (current and current.get("index") == index):
            return no_update
        return {"index": index}

    @app.callback(
        Output("graph", "elements"),
        Output("circuit-title", "children"),
        Output("edge-count", "children"),
        Output("graph-message", "children"),
        Output("graph-message", "is_open"),
        Output("prior-fit", "children"),
        Output("degree", "figure"),
        Input("circuit", "data"),
        Input("threshold", "value"),
        Input("mode", "value"),
        Input("top-k", "value"),
        Input("color-by", "value"),
        Input("url-read", "search"),
        State("store-key", "data"),
    )
    def draw(circuit, threshold, mode, top_k, color, search, key):
        view, query = store_view(key), _query(search)
        _, problems = _parse_view(query)
        _, store_problem = stores.resolve(query.get("store"))
        messages = [store_problem, *problems] if store_problem else list(problems)
        n_modules = view.n_modules
        if not _shows_circuit(circuit):
            if circuit and "error" in circuit:
                messages.insert(0, circuit["error"])
            text = "; ".join(messages)
            return [], "no circuit selected", "", text, bool(text), "select a circuit", {}
        if mode == "top-k" and not (isinstance(top_k, int) and 1 <= top_k < n_modules):
            messages.append(f"top-k must be an integer in [1, {n_modules - 1}]")
            top_k = min(3, n_modules - 1)
        threshold = 0.5 if threshold is None else float(threshold)
        try:
            elements, n_edges = view.graph_elements(
                circuit, threshold, top_k if mode == "top-k" else None, color or "module"
            )
        except TooManyEdges as err:
            elements, n_edges = [], 0
            messages.append(str(err))
        if "typed" in circuit:
            title = f"typed: {view.typed[circuit['typed']][0]}"
        else:
            row = view.frame.iloc[circuit["index"]]
            title = f"#{row['id']}: {row.get('text', '')}"
        setting = f"top-{top_k} per module" if mode == "top-k" else f"P > {threshold:g}"
        count = f"{n_modules} modules, {n_edges} links ({setting})"
        fit = view.prior_fit(circuit, threshold)
        params = ", ".join(
            f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in fit["params"].items()
        )
        prior = [
            html.B(fit["family"]),
            html.Div(f"best by length: {fit['best']}"),
            html.Div(f"gap to runner-up: {fit['gap']:.1f} nats"),
            html.Div(params, className="small text-muted"),
        ]
        text = "; ".join(messages)
        return elements, title, count, text, bool(text), prior, _degree_figure(fit)

    @app.callback(
        Output("graph-b", "elements"),
        Output("graph-diff", "elements"),
        Output("compare-summary", "children"),
        Input("circuit", "data"),
        Input("compare-id", "value"),
        Input("compare-category", "value"),
        Input("threshold", "value"),
        State("store-key", "data"),
    )
    def compare(circuit, other_id, category, threshold, key):
        view = store_view(key)
        if not _shows_circuit(circuit):
            return [], [], ""
        if category:
            reference, name = {"category": category}, f"the mean circuit of {category}"
        elif other_id not in (None, ""):
            index = view.index_of(other_id)
            if index is None:
                return [], [], f"no circuit with id {str(other_id)[:40]!r} in this store"
            reference, name = {"index": index}, f"circuit #{other_id}"
        else:
            return [], [], "pick a circuit id or a category to compare with"
        threshold = 0.5 if threshold is None else float(threshold)
        try:
            elements, n_links = view.reference_elements(reference, threshold)
        except TooManyEdges as err:
            return [], [], str(err)
        difference, gained, lost = view.difference_elements(circuit, reference)
        return (
            elements,
            difference,
            (
                f"against {name}: {n_links} links at P > {threshold:g}; "
                f"{gained} links stronger, {lost} weaker by 0.05 or more"
            ),
        )

    @app.callback(
        Output("module", "data"),
        Input("graph", "tapNodeData"),
        Input("url-read", "search"),
        State("module", "data"),
        State("store-key", "data"),
    )
    def choose_module(node, search, current, key):
        n_modules = store_view(key).n_modules
        if ctx.triggered_id == "graph":
            module = int(node["id"]) if node else None
        else:
            raw = _query(search).get("module")
            module = int(raw) if raw is not None and raw.isdigit() else None
            if module is not None and module >= n_modules:
                module = None
        return no_update if module == current else module

    @app.callback(
        Output("module-details", "children"),
        Input("module", "data"),
        Input("circuit", "data"),
        Input("threshold", "value"),
        State("store-key", "data"),
    )
    def describe_module(module, circuit, threshold, key):
        if module is None or not _shows_circuit(circuit):
            return "click a module"
        d = store_view(key).module_details(circuit, module, 0.5 if threshold is None else threshold)
        links = ", ".join(f"{j} ({p:.2f})" for j, p in d["links"])
        sentences = [html.Li(f"#{r['id']}: {r.get('text', '')}") for r in d["sentences"]]
        return [
            html.B(f"module {module} ({d['role']})", id="module-title"),
            html.Div(f"degree {d['degree']}"),
            html.Div(f"strongest links: {links}", className="small"),
            html.Div("most connected in:", className="small mt-1"),
            html.Ul(sentences, className="small"),
        ]

    @app.callback(Output("edge-hover", "children"), Input("graph", "mouseoverEdgeData"))
    def hover_edge(edge):
        return f"link {edge['source']}-{edge['target']}: p = {edge['p']:.3f}" if edge else ""

    @app.callback(
        Output("embedding", "figure"),
        Input("embedding-color", "value"),
        Input("typed-version", "data"),
        Input("store-key", "data"),
    )
    def draw_embedding(color, _typed_version, key):
        view = store_view(key)
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
            k = store_view(key).add_sentence(text)
        except ValueError as err:
            return no_update, str(err), no_update
        return {"typed": k}, "", (version or 0) + 1

    @app.callback(
        Output("graph", "generateImage"),
        Input("export-png", "n_clicks"),
        Input("export-svg", "n_clicks"),
        State("circuit", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_image(_png, _svg, circuit, key):
        kind = "png" if ctx.triggered_id == "export-png" else "svg"
        stem = _file_stem(store_view(key), circuit)
        return {"type": kind, "action": "download", "filename": stem}

    @app.callback(
        Output("download", "data"),
        Input("export-csv", "n_clicks"),
        Input("export-json", "n_clicks"),
        Input("export-figure", "n_clicks"),
        State("circuit", "data"),
        State("threshold", "value"),
        State("mode", "value"),
        State("top-k", "value"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_data(_csv, _json, _figure, circuit, threshold, mode, top_k, key):
        if not _shows_circuit(circuit):
            return no_update
        view = store_view(key)
        k = top_k if mode == "top-k" and isinstance(top_k, int) else None
        graph = view.visible_graph(circuit, 0.5 if threshold is None else threshold, k)
        stem = _file_stem(view, circuit)
        if ctx.triggered_id == "export-figure":
            return dcc.send_bytes(lambda buffer: _figure_png(view, graph, buffer), f"{stem}.png")
        edges = pd.DataFrame(
            [
                (u, v, d["p"], graph.nodes[u]["role"], graph.nodes[v]["role"])
                for u, v, d in graph.edges(data=True)
            ],
            columns=["source", "target", "p", "source_role", "target_role"],
        )
        if ctx.triggered_id == "export-csv":
            return dcc.send_data_frame(edges.to_csv, f"{stem}.csv", index=False)
        nodes = [{"module": int(i), **d} for i, d in graph.nodes(data=True)]
        payload = {"circuit": stem, "nodes": nodes, "links": edges.to_dict("records")}
        return {"content": json.dumps(payload, indent=1), "filename": f"{stem}.json"}

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
        rows = sorted({r for p in selected["points"] if (r := _row_of(p, figure)) >= 0})
        table = store_view(key).table_rows(rows).to_dict("records")
        return table, f"selection: {len(rows)} circuits"

    @app.callback(
        Output("url-write", "search"),
        Input("circuit", "data"),
        Input("module", "data"),
        Input("threshold", "value"),
        Input("mode", "value"),
        Input("top-k", "value"),
        Input("color-by", "value"),
        Input("compare-id", "value"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def write_url(circuit, module, threshold, mode, top_k, color, compare_id, key):
        view = store_view(key)
        query = {"store": key} if len(stores.keys) > 1 else {}
        if compare_id:
            query["compare"] = compare_id
        if circuit and "index" in circuit:
            query["id"] = int(view.frame["id"].iloc[circuit["index"]])
        if module is not None:
            query["module"] = module
        for key, value in (
            ("threshold", threshold),
            ("mode", mode),
            ("k", top_k),
            ("color", color),
        ):
            default = VIEW_DEFAULTS["top_k" if key == "k" else key]
            if value is not None and value != default:
                query[key] = value
        return "?" + urlencode(query) if query else ""
