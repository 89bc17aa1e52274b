"""The compare panel: the shown circuit against another circuit or a category's mean circuit,
drawn side by side with the links that grew stronger or weaker; with a model and an NLVR store,
the shown scene answered with the other circuit's signatures, codes or both."""

from __future__ import annotations

import dash
from dash import Input, Output, State, ctx

from circuitlab.app.callbacks.common import shows_circuit, store_view, threshold_of
from circuitlab.app.circuit_elements import TooManyEdges
from circuitlab.app.stores import AppStores

__all__ = ["register", "swap_text"]

HIDDEN, SHOWN = {"display": "none"}, {"display": "block"}  # the difference card's style


# the difference card is hidden until something is compared, and a cytoscape view laid out while
# hidden has no size: once it shows, let it measure itself and fit its graph
FIT_WHEN_SHOWN = """
function (elements) {
    setTimeout(function () {
        const graph = document.getElementById("graph-diff");
        const cy = graph && graph._cyreg && graph._cyreg.cy;
        if (cy) { cy.resize(); cy.fit(undefined, 10); }
    }, 50);
    return window.dash_clientside.no_update;
}
"""


def register(app: dash.Dash, stores: AppStores) -> None:
    """The comparison's callbacks: the two circuits and their difference, the swap's answers
    and the hover line.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_difference(app, stores)
    _register_swap(app, stores)


def _register_difference(app: dash.Dash, stores: AppStores) -> None:
    """The two circuits side by side and their difference."""
    app.clientside_callback(
        FIT_WHEN_SHOWN,
        Output("graph-diff", "className"),
        Input("graph-diff", "elements"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("graph-b", "elements"),
        Output("graph-diff", "elements"),
        Output("compare-summary", "children"),
        Output("diff-card", "style"),
        Input("circuit", "data"),
        Input("compare-id", "value"),
        Input("compare-category", "value"),
        Input("threshold", "value"),
        Input("diff-scale", "value"),
        State("store-key", "data"),
    )
    def compare(circuit, other_id, category, threshold, scale, key):
        view = store_view(stores, key)
        if not shows_circuit(circuit):
            return [], [], "", HIDDEN
        if category:
            reference, name = {"category": category}, f"the mean circuit of {category}"
        elif other_id not in (None, ""):
            index = view.index_of(other_id)
            if index is None:
                return [], [], f"no circuit with id {str(other_id)[:40]!r} in this store", HIDDEN
            reference, name = {"index": index}, f"circuit #{other_id}"
        else:
            return [], [], "pick a circuit id or a category to compare with", HIDDEN
        threshold = threshold_of(threshold)
        try:
            elements, n_links = view.reference_elements(reference, threshold)
        except TooManyEdges as err:
            return [], [], str(err), HIDDEN
        scale = "p" if scale == "p" else "z"
        difference, gained, lost = view.difference_elements(circuit, reference, scale)
        by = "0.5 sd or more of its circuit's links" if scale == "z" else "0.05 or more in P"
        summary = (
            f"against {name}: {n_links} links at P > {threshold:g}; "
            f"{gained} links stronger, {lost} weaker by {by}"
        )
        return elements, difference, summary, SHOWN


def _register_swap(app: dash.Dash, stores: AppStores) -> None:
    """What the model answers with the other circuit's parts, and the hover line."""

    @app.callback(
        Output("swap-outcome", "children"),
        Input("circuit", "data"),
        Input("compare-id", "value"),
        Input("compare-category", "value"),
        State("store-key", "data"),
    )
    def swap(circuit, other_id, category, key):
        """The shown scene answered with the compared circuit's signatures and codes."""
        if category or other_id in (None, "") or not shows_circuit(circuit) or "typed" in circuit:
            return ""
        view = store_view(stores, key)
        other = view.index_of(other_id)
        try:
            intervener = stores.intervener(key)
        except ValueError:
            return ""
        if other is None or not intervener.has_scene(circuit["index"]):
            return ""
        return swap_text(intervener.swapped(circuit["index"], other), other_id)

    @app.callback(
        Output("compare-hover", "children"),
        Input("graph-b", "mouseoverEdgeData"),
        Input("graph-diff", "mouseoverEdgeData"),
    )
    def hover(reference_edge, difference_edge):
        """The link under the pointer in the reference or the difference graph."""
        if ctx.triggered_id == "graph-diff" and difference_edge:
            e = difference_edge
            return f"link {e['source']}-{e['target']}: change {e['p']:+.3f}"
        if ctx.triggered_id == "graph-b" and reference_edge:
            e = reference_edge
            return f"reference link {e['source']}-{e['target']}: p = {e['p']:.3f}"
        return ""


def swap_text(p: dict[str, float], other_id: object) -> str:
    """The shown scene's p(true) with parts of circuit ``other_id``, in words.

    Parameters
    ----------
    p
        p(true) by which parts were swapped in.
    other_id
        The id of the circuit they came from.
    """
    parts = [f"{p['signatures']:.2f} with its signatures (the graph)"]
    if "codes" in p:
        parts += [f"{p['codes']:.2f} with its codes", f"{p['both']:.2f} with both"]
    return f"this scene with circuit #{other_id}: p(true) {p['own']:.2f} with its own; " + (
        "; ".join(parts)
    )
