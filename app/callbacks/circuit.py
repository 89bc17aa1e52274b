"""The circuit panel: which circuit is shown (a search result, a map point, a selection row or
the URL's ``id``), its drawing at the chosen threshold, top-k or as what decides the answer
(``decisive_view``), and (a callback of its own) its prior fit and degrees."""

from __future__ import annotations

import dash
import numpy as np
import plotly.graph_objects as go
from dash import Input, Output, State, ctx, html, no_update

from circuitlab.app.callbacks.attribution import attribution_elements
from circuitlab.app.callbacks.common import (
    DECIDES,
    page_store,
    parse_view,
    query_of,
    row_of,
    shows_circuit,
    store_view,
    threshold_of,
)
from circuitlab.app.callbacks.intervene import edit_of, mark_edits, scene_intervener
from circuitlab.app.callbacks.map_view import color_columns
from circuitlab.app.circuit_elements import TooManyEdges
from circuitlab.app.decisive_view import decisive_count, decisive_elements
from circuitlab.app.store_view import MAX_SENTENCE, StoreView
from circuitlab.app.stores import AppStores

__all__ = [
    "decisive_drawing",
    "drawing",
    "edge_text",
    "matrix_figure",
    "minimal_count",
    "node_text",
    "prior_summary",
    "register",
]


def degree_figure(fit: dict) -> go.Figure:
    """The circuit's degree histogram with the best prior's fitted degree distribution."""
    degrees = list(range(len(fit["observed"])))
    figure = go.Figure(
        [
            go.Bar(x=degrees, y=fit["observed"], name="drawn from P", marker_color="#9ecae1"),
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


def matrix_figure(fit: dict) -> go.Figure:
    """P among the processors ordered by the best family's fitted blocks (``block_order``), as
    the paper's Fig. 3 draws a learned graph; each cell hovers as its two modules and P.

    Parameters
    ----------
    fit
        ``StoreView.prior_fit``'s answer.
    """
    names = [str(m) for m in fit["order"]]
    figure = go.Figure(
        go.Heatmap(
            z=fit["matrix"],
            x=names,
            y=names,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"thickness": 8, "len": 0.9},
            hovertemplate="modules %{y} and %{x}: P %{z:.2f}<extra></extra>",
        )
    )
    figure.update_layout(
        margin={"l": 0, "r": 0, "t": 24, "b": 0},
        title={"text": f"P ordered by the {fit['best']} fit's blocks", "font": {"size": 11}},
        xaxis={"showticklabels": False, "type": "category"},
        yaxis={"showticklabels": False, "type": "category", "autorange": "reversed"},
    )
    return figure


def prior_summary(fit: dict) -> list:
    """The prior-fit card's lines: verdict, what was read, the null's band, best family, gap,
    parameters.

    Parameters
    ----------
    fit
        ``StoreView.prior_fit``'s answer.
    """
    params = ", ".join(
        f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in fit["params"].items()
    )
    lines = [
        html.B(fit["family"]),
        html.Div(f"read: {fit['reading']} (weighted, as expected links)", className="small"),
    ]
    null = fit.get("null")
    if null is not None:
        band = "; ".join(
            f"{name} {null['observed'][name]:.3g} against {null['mean'][name]:.3g} "
            f"+- {null['sd'][name]:.2g} (z {null['z_scores'][name]:+.1f})"
            for name in null["observed"]
        )
        word = "distinguishable from" if null["distinguishable"] else "like"
        lines.append(html.Div(f"{word} the null, {null['source']}: {band}", className="small"))
    lines += [
        html.Div(f"best by length: {fit['best']}"),
        html.Div(
            f"gap to runner-up: {fit['gap']:.1f} nats"
            if np.isfinite(fit["gap"])
            else "no other family describes this graph"
        ),
        html.Div(params, className="small text-muted"),
    ]
    return lines


def circuit_title(view: StoreView, circuit: dict) -> str:
    if "typed" in circuit:
        return f"typed: {circuit['text']}"
    row = view.frame.iloc[circuit["index"]]
    return f"#{row['id']}: {row.get('text', '')}"


def node_text(node: dict | None) -> str:
    """What hovering a module says: its number, role and degree in the view.

    Parameters
    ----------
    node
        The hovered node's data (None: nothing hovered).
    """
    if not node:
        return ""
    if node.get("role") == "object":
        return f"{node['label']}: an object the decisive circuit reads"
    text = f"module {node['id']} ({node['role']}): {node['degree']} links in this view"
    if node.get("effect") is not None:
        text += f"; knocked out, p(answer) {-node['effect']:+.3f}"
    return text


def refused_settings(query: dict[str, str], view: StoreView) -> list[str]:
    """A message for each URL setting this store cannot take (``module``, ``compare_category``,
    ``map``, an over-long ``q``): the page shows the rest and says what it left out."""
    problems = []
    raw = query.get("module")
    if raw is not None and not (raw.isdigit() and int(raw) < view.n_modules):
        problems.append(f"module {raw[:40]!r} is not a module in 0-{view.n_modules - 1}")
    category = query.get("compare_category")
    if category is not None and category not in view.categories():
        problems.append(f"compare_category {category[:40]!r} is not a category of this store")
    color = query.get("map")
    if color is not None and color not in color_columns(view):
        shown = ", ".join(color_columns(view)) or "none"
        problems.append(f"map {color[:40]!r} is not a column the map is coloured by ({shown})")
    if len(query.get("q", "")) > MAX_SENTENCE:
        problems.append(
            f"the search q has {len(query['q'])} characters: its first {MAX_SENTENCE} used"
        )
    return problems


def minimal_count(n_modules: int, n_links: int) -> str:
    """The link count above a minimal circuit; an empty one says what it means: every link
    cut, the model gives the same answer (its reads and read-outs carry it).

    Parameters
    ----------
    n_modules, n_links
        The circuit's modules, and the links of its minimal circuit.
    """
    if n_links == 0:
        return (
            f"{n_modules} modules, 0 links (the minimal circuit is empty: with every link cut "
            "the model gives the same answer, carried by its reads and read-outs)"
        )
    return f"{n_modules} modules, {n_links} links (the minimal circuit)"


def _attributed(
    stores: AppStores, key, view: StoreView, circuit: dict, elements: list, minimal: list | None
) -> tuple[list, int, str | None]:
    """The elements coloured by the shown example's attribution (only the minimal circuit's
    links with ``minimal``), their link count, and why not, when it cannot be computed."""
    n_edges = sum("source" in e["data"] for e in elements)
    intervener, why_not = scene_intervener(stores, key, circuit, "attribution runs")
    if intervener is None:
        return elements, n_edges, why_not
    attribution = intervener.attribution(circuit["index"])
    p = view.store.link_probabilities([circuit["index"]])[0]
    elements = attribution_elements(elements, attribution, p, bool(minimal))
    return elements, sum("source" in e["data"] for e in elements), None


def _url_problems(stores: AppStores, view: StoreView, search: str | None) -> list[str]:
    """What the URL asks that the page cannot do: an unknown store, refused settings."""
    query = query_of(search)
    _, problems = parse_view(query)
    problems += refused_settings(query, view)
    _, store_problem = stores.resolve(query.get("store"))
    return [store_problem, *problems] if store_problem else list(problems)


def decisive_drawing(
    stores: AppStores, key: str | None, view: StoreView, circuit: dict
) -> tuple[list, str, str | None]:
    """The shown example's decisive circuit drawn (``decisive_view``), its count line, and why
    not when it cannot be computed (a typed sentence, a store without scenes or model).

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    view
        The store's view.
    circuit
        The page's circuit.
    """
    intervener, why_not = scene_intervener(stores, key, circuit, "what decides is found")
    if intervener is None:
        return [], "", why_not
    index = circuit["index"]
    decisive = intervener.decisive(index)
    p = view.store.link_probabilities([index])[0]
    names = intervener.kind.object_names(intervener.scene_of(index))
    elements = decisive_elements(view.renderer, decisive, p, names)
    return elements, decisive_count(decisive, view.n_modules), None


def drawing(
    stores: AppStores,
    circuit: dict | None,
    threshold: float | None,
    mode: str | None,
    top_k: int | None,
    color: str | None,
    search: str | None,
    actions: list | None,
    minimal: list | None,
    key: str | None,
) -> tuple[list, str, str, str, bool]:
    """The circuit panel for these page settings: the graph's elements, the title, the link
    count, the warning text and whether it shows (the ``draw`` callback's outputs, and the
    page's first view, ``first_view``).

    Parameters
    ----------
    stores
        The app's stores.
    circuit
        The page's circuit: ``{"index": row}`` or a typed sentence.
    threshold, mode, top_k, color, minimal
        The view settings of the page's controls.
    search
        The URL's query string.
    actions
        The visitor's edits, in order.
    key
        The page's store key (None: the URL's).
    """
    key = page_store(stores, key, search)
    view = store_view(stores, key)
    messages, n_modules = _url_problems(stores, view, search), view.n_modules
    if shows_circuit(circuit) and "typed" in circuit:
        try:
            view.checked_sentence(circuit["text"])
        except ValueError as err:  # only a forged page state gets here
            circuit = {"error": str(err)}
    if not shows_circuit(circuit):
        if circuit and "error" in circuit:
            messages.insert(0, circuit["error"])
        text = "; ".join(messages)
        return [], "no circuit selected", "", text, bool(text)
    if mode == "top-k" and not (isinstance(top_k, int) and 1 <= top_k < n_modules):
        messages.append(f"top-k must be an integer in [1, {n_modules - 1}]")
        top_k = min(3, n_modules - 1)
    if mode == DECIDES:
        elements, count, problem = decisive_drawing(stores, key, view, circuit)
        if problem is None:
            text = "; ".join(messages)
            elements = mark_edits(elements, edit_of(actions))
            return elements, circuit_title(view, circuit), count, text, bool(text)
        messages.append(f"{problem}: drawn by P > threshold instead")
        mode = "threshold"
    threshold = threshold_of(threshold)
    try:
        node_colors = "module" if color == "attribution" else color or "module"
        elements, n_edges = view.graph_elements(
            circuit, threshold, top_k if mode == "top-k" else None, node_colors
        )
    except TooManyEdges as err:
        elements, n_edges = [], 0
        messages.append(str(err))
    setting = f"top-{top_k} per module" if mode == "top-k" else f"P > {threshold:g}"
    count = f"{n_modules} modules, {n_edges} links ({setting})"
    if color == "attribution":
        elements, n_edges, problem = _attributed(stores, key, view, circuit, elements, minimal)
        messages += [problem] if problem else []
        if minimal and not problem:
            count = minimal_count(n_modules, n_edges)
    text = "; ".join(messages)
    title = circuit_title(view, circuit)
    elements = mark_edits(elements, edit_of(actions))
    return elements, title, count, text, bool(text)


def register(app: dash.Dash, stores: AppStores) -> None:
    """The circuit's callbacks: which circuit is shown, its drawing, prior fit and hover line.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_circuit(app, stores)
    _register_details(app, stores)


def _register_circuit(app: dash.Dash, stores: AppStores) -> None:
    """Which circuit is shown, and its drawing."""

    @app.callback(
        Output("circuit", "data"),
        Input("results", "active_cell"),
        Input("selection", "active_cell"),
        Input("neighbours", "active_cell"),
        Input("embedding", "clickData"),
        Input("url-read", "search"),
        State("circuit", "data"),
        State("embedding", "figure"),
        State("typed-sentences", "data"),
        State("store-key", "data"),
    )
    def choose_circuit(
        result_cell, selection_cell, neighbour_cell, click, search, current, figure, typed, key
    ):
        if key is None:  # a fresh page: the store key has not landed yet, the URL names it
            key = stores.resolve(query_of(search).get("store"))[0]
        view = store_view(stores, key)
        trigger = ctx.triggered_id
        cells = {"results": result_cell, "selection": selection_cell, "neighbours": neighbour_cell}
        if trigger in cells:
            cell = cells[trigger]
            index = view.index_of(cell["row_id"]) if cell else None
        elif trigger == "embedding":
            index = row_of(click["points"][0], figure) if click else None
            if index is not None and index < 0:  # a typed sentence's star
                k = -1 - index
                return {"typed": k, "text": typed[k]} if k < len(typed or []) else no_update
        else:
            query = query_of(search)
            if "typed" in query and "id" not in query:  # open_typed (map_view) shows it
                return no_update
            if "id" not in query:  # a fresh page opens on the store's first circuit
                return {"index": 0} if not shows_circuit(current) and len(view.frame) else no_update
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
        Input("circuit", "data"),
        Input("threshold", "value"),
        Input("mode", "value"),
        Input("top-k", "value"),
        Input("color-by", "value"),
        Input("url-read", "search"),
        Input("edits", "data"),
        Input("minimal-only", "value"),
        State("store-key", "data"),
    )
    def draw(circuit, threshold, mode, top_k, color, search, actions, minimal, key):
        return drawing(
            stores, circuit, threshold, mode, top_k, color, search, actions, minimal, key
        )


def _register_details(app: dash.Dash, stores: AppStores) -> None:
    """The prior fit, the top-k box and the hover line."""

    @app.callback(
        Output("prior-fit", "children"),
        Output("degree", "figure"),
        Output("prior-matrix", "figure"),
        Input("circuit", "data"),
        Input("url-read", "search"),
        State("store-key", "data"),
    )
    def fit_prior(circuit, search, key):
        """The shown circuit's prior fit and degree plot: a callback of their own, so that the
        drawing never waits for a fit (about 0.4 s on the demo's NLVR stores, most of it the
        goodness-of-fit check's Louvain communities on 12 simulated graphs; seconds on the priors
        store's 132-module graphs; memoised per stored circuit)."""
        view = store_view(stores, page_store(stores, key, search))
        if shows_circuit(circuit) and "typed" in circuit:
            try:
                view.checked_sentence(circuit["text"])
            except ValueError:  # only a forged page state gets here; draw says why
                circuit = None
        if not shows_circuit(circuit):
            return "select a circuit", {}, {}
        try:
            fit = view.prior_fit(circuit)
        except ValueError as err:  # e.g. fewer than 3 processors: no prior can be fitted
            return [f"no prior fit: {err}"], {}, {}
        return prior_summary(fit), degree_figure(fit), matrix_figure(fit)

    @app.callback(Output("top-k-box", "style"), Input("mode", "value"))
    def show_top_k(mode):
        return (
            {"display": "flex", "alignItems": "center"} if mode == "top-k" else {"display": "none"}
        )

    @app.callback(
        Output("edge-hover", "children"),
        Input("graph", "mouseoverEdgeData"),
        Input("graph", "mouseoverNodeData"),
    )
    def hover(edge, node):
        """The link or module under the pointer, whichever it entered last."""
        if ctx.triggered_prop_ids and "graph.mouseoverNodeData" in ctx.triggered_prop_ids:
            return node_text(node)
        return edge_text(edge) if edge else ""


def edge_text(edge: dict) -> str:
    """A drawn link in words: its ends, p and any edit of it.

    Parameters
    ----------
    edge
        The hovered edge's data.
    """
    estimated = " (estimated)" if edge.get("estimated") else ""
    if edge.get("object") is not None:
        return (
            f"processor {edge['target']} reads {edge['object']}; cut, p(answer) "
            f"{-edge['effect']:+.3f}{estimated}"
        )
    text = f"link {edge['source']}-{edge['target']}: "
    edit = {"cut": "cut", "forced": "forced on"}.get(edge.get("edit"))
    if edge.get("p") is None:
        return text + (edit or "no p")
    text += f"p = {edge['p']:.3f}" + (f" ({edit})" if edit else "")
    if edge.get("effect") is not None:
        text += f"; cut, p(answer) {-edge['effect']:+.3f}{estimated}"
    return text
