"""The module panel: the clicked module (or the URL's ``module``), its role, degree, strongest
links, the sentences whose circuits connect it most, and with a model and a scene, what it reads
of the scene and what knocking it out costs."""

from __future__ import annotations

import dash
from dash import Input, Output, State, ctx, html, no_update

from circuitlab.app.callbacks.common import query_of, shows_circuit, store_view, threshold_of
from circuitlab.app.stores import AppStores
from circuitlab.edits import CircuitEdit

__all__ = ["module_reads", "register"]


def register(app: dash.Dash, stores: AppStores) -> None:
    """The module panel's callbacks: the clicked module's details and what it reads.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """

    @app.callback(
        Output("module", "data"),
        Input("graph", "tapNodeData"),
        Input("url-read", "search"),
        State("module", "data"),
        State("store-key", "data"),
    )
    def choose_module(node, search, current, key):
        n_modules = store_view(stores, key).n_modules
        if ctx.triggered_id == "graph":
            # an object node of the decisive view ("t3") is no module
            module = int(node["id"]) if node and str(node["id"]).isdigit() else None
        else:
            raw = query_of(search).get("module")
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
        if module is None or not shows_circuit(circuit):
            return "click a module"
        view = store_view(stores, key)
        try:
            d = view.module_details(circuit, module, threshold_of(threshold))
        except ValueError:  # a typed sentence this view cannot take (a forged page state)
            return "click a module"
        links = ", ".join(f"{j} ({p:.2f})" for j, p in d["links"])
        sentences = [html.Li(f"#{r['id']}: {r.get('text', '')}") for r in d["sentences"]]
        return [
            html.B(f"module {module} ({d['role']})", id="module-title"),
            html.Div(f"degree {d['degree']}"),
            html.Div(f"strongest links: {links}", className="small"),
            html.Div(
                "most connected (against the circuit's other modules) in:", className="small mt-1"
            ),
            html.Ul(sentences, className="small"),
            *category_lines(d["by_category"]),
            *reads_lines(stores, key, module, circuit, d["role"]),
            *knockout_lines(stores, key, module, circuit),
        ]


def module_reads(
    stores: AppStores, key: str | None, module: int, circuit: dict
) -> tuple[list[float], float | None] | None:
    """What processor ``module`` reads of the shown example's scene with its stored circuit:
    a weight per object (box by box, or left image first) and the null token's weight (None
    without one); None when there is no scene or no model, or the module is not a processor.

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    module
        The clicked module.
    circuit
        The page's circuit.
    """
    roles = store_view(stores, key).store.roles
    if "typed" in circuit or not 0 <= module < len(roles) or roles[module] != "processor":
        return None
    try:
        intervener = stores.intervener(key)
    except ValueError:
        return None
    index = circuit["index"]
    if not intervener.has_scene(index):
        return None
    weights = intervener.reads(index, CircuitEdit())[module]
    n_objects = intervener.kind.n_objects(intervener.scene_of(index))
    null = float(weights[n_objects]) if len(weights) > n_objects else None
    return [float(w) for w in weights[:n_objects]], null


def reads_lines(stores: AppStores, key: str | None, module: int, circuit: dict, role: str) -> list:
    """The objects the module reads most on the shown scene (outlined in the scene)."""
    if role != "processor":
        return []
    read = module_reads(stores, key, module, circuit)
    if read is None:
        return []
    weights, null = read
    intervener = stores.intervener(key)
    names = intervener.kind.object_names(intervener.scene_of(circuit["index"]))
    ranked = sorted(zip(weights, names, strict=True), reverse=True)[:4]
    text = ", ".join(f"{name} {w:.2f}" for w, name in ranked)
    if null is not None:
        text += f"; nothing (null token) {null:.2f}"
    return [
        html.Div(
            f"reads on this scene (read-in attention, mean over heads and read-ins; outlined in "
            f"the scene): {text}",
            className="small mt-1",
            id="module-reads",
        )
    ]


def category_lines(by_category: list[tuple[str, float, int]]) -> list:
    """The categories whose circuits connect the module most and least (z against the store)."""
    if len(by_category) < 2:
        return []
    shown = by_category[:2] + by_category[-2:] if len(by_category) > 4 else by_category
    text = ", ".join(f"{c} {z:+.2f}" for c, z, _ in shown)
    return [
        html.Div(f"connectivity by category (z): {text}", className="small", id="module-categories")
    ]


def knockout_lines(stores: AppStores, key: str | None, module: int, circuit: dict) -> list:
    """What knocking the module out costs over the store's examples, overall and by category
    (nothing without a model and scenes)."""
    if "typed" in circuit:
        return []
    try:
        groups = stores.intervener(key).knockout(module)
    except ValueError:
        return []
    (_, n, before, after), by_category = groups[0], groups[1:]
    worst = sorted(by_category, key=lambda g: g[3] - g[2])[:3]
    text = ", ".join(f"{c} {100 * (a - b):+.1f}" for c, _, b, a in worst)
    return [
        html.Div(
            f"knocked out: accuracy {before:.3f} -> {after:.3f} ({100 * (after - before):+.1f} "
            f"points) over {n} examples; hardest hit: {text}",
            className="small mt-1",
            id="module-knockout",
        )
    ]
