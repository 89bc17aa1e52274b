"""The edit controls: in edit mode a click on a link cuts it and a click on a module knocks it
out (a second click restores it); in force mode clicks on two modules force the link between
them on (K = 1; again to restore); undo and reset; the edit's effect on the shown example's
answer and on the accuracy over the store's examples; the cut links and knocked-out modules
marked in the drawing (``mark_edits``) and kept in the URL (``edits_query``, ``parse_edits``)."""

from __future__ import annotations

import dash
from dash import Input, Output, State
from dash.exceptions import PreventUpdate

from circuitlab.app.callbacks.common import edit_of, query_of, scene_intervener, store_view
from circuitlab.app.intervention_view import Outcome
from circuitlab.app.stores import AppStores

__all__ = [
    "edits_query",
    "parse_edits",
    "pending_pick",
    "register",
]


def pending_pick(actions: list) -> int | None:
    """The module picked as the first end of a link to force, if the last action is one.

    Parameters
    ----------
    actions
        The visitor's toggles, in order.
    """
    return actions[-1][1] if actions and actions[-1][0] == "pick" else None


def edits_query(actions: list) -> dict[str, str]:
    """The URL's ``cut`` and ``force`` ("1-2,3-4") and ``knock`` ("5,6") for an edit; empty
    when none.

    Parameters
    ----------
    actions
        The visitor's toggles, in order.
    """
    edit, query = edit_of(actions), {}
    for name, links in (("cut", edit.cut), ("force", edit.forced)):
        if links:
            query[name] = ",".join(f"{i}-{j}" for i, j in links)
    if edit.knocked_out:
        query["knock"] = ",".join(str(m) for m in edit.knocked_out)
    return query


def parse_edits(query: dict[str, str], n_modules: int) -> tuple[list, list[str]]:
    """Toggle actions from the URL's ``cut``, ``force`` and ``knock``, and a message per value
    refused.

    Parameters
    ----------
    query
        The URL's query.
    n_modules
        The store's modules (indices beyond are refused).
    """
    actions, problems = [], []
    for name in ("cut", "force"):
        for part in filter(None, query.get(name, "").split(",")):
            ends = part.split("-")
            if len(ends) == 2 and all(e.isdigit() and int(e) < n_modules for e in ends):
                i, j = sorted(int(e) for e in ends)
                if i != j:
                    actions.append([name, i, j])
                    continue
            problems.append(
                f"{name} {part[:40]!r} is not a link i-j between modules 0-{n_modules - 1}"
            )
    for part in filter(None, query.get("knock", "").split(",")):
        if part.isdigit() and int(part) < n_modules:
            actions.append(["knock", int(part)])
        else:
            problems.append(f"knock {part[:40]!r} is not a module in 0-{n_modules - 1}")
    return actions, problems


def outcome_text(outcome: Outcome) -> str:
    """The edit's effect in words."""
    before, after = outcome.p_before > 0.5, outcome.p_after > 0.5
    flipped = "the answer flips" if before != after else "the answer holds"
    change = 100 * (outcome.accuracy_after - outcome.accuracy_before)
    return (
        f"this scene (label {str(outcome.label).lower()}): p(true) {outcome.p_before:.2f} -> "
        f"{outcome.p_after:.2f}, {flipped}; {outcome.n_probe} stored examples, each with its own "
        f"circuit: accuracy {outcome.accuracy_before:.3f} -> {outcome.accuracy_after:.3f} "
        f"({change:+.1f} points)"
    )


# edits as toggles appended in order ("cut", i, j) / ("knock", m) / ("force", i, j), a force
# preceded by ("pick", i) until its second end is clicked; undo drops the last, reset all
RECORD_EDIT = """
function (edge, node, undo, reset, mode, actions) {
    const fired = dash_clientside.callback_context.triggered.map(t => t.prop_id);
    actions = actions || [];
    if (fired.includes("edit-reset.n_clicks")) { return []; }
    if (fired.includes("edit-undo.n_clicks")) { return actions.slice(0, -1); }
    if (mode !== "edit" && mode !== "force") { return dash_clientside.no_update; }
    // the decisive view's objects and reads are no modules or links: nothing to edit,
    if (fired.includes("graph.tapNodeData") && node && isNaN(Number(node.id))) {
        return dash_clientside.no_update;
    }
    // nor are a group's node and its links (``view_drawing``)
    if (fired.includes("graph.tapEdgeData") && edge &&
        (isNaN(Number(edge.source)) || isNaN(Number(edge.target)))) {
        return dash_clientside.no_update;
    }
    if (fired.includes("graph.tapEdgeData") && edge && mode === "edit") {
        return actions.concat([["cut", Number(edge.source), Number(edge.target)]]);
    }
    if (fired.includes("graph.tapNodeData") && node && mode === "edit") {
        return actions.concat([["knock", Number(node.id)]]);
    }
    if (fired.includes("graph.tapNodeData") && node && mode === "force") {
        const m = Number(node.id), last = actions[actions.length - 1];
        if (last && last[0] === "pick") {
            const rest = actions.slice(0, -1);
            return last[1] === m ? rest : rest.concat([["force", last[1], m]]);
        }
        return actions.concat([["pick", m]]);
    }
    return dash_clientside.no_update;
}
"""


def register(app: dash.Dash, stores: AppStores) -> None:
    """The intervention callbacks: clicks to edits, the URL's edits, what they do.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_edits(app, stores)
    _register_outcome(app, stores)


def _register_edits(app: dash.Dash, stores: AppStores) -> None:
    """The visitor's edits: clicks, undo and reset, and those of the URL."""

    # in the browser: a round trip per click would let quick clicks read the same old list and
    # drop one another's edit
    app.clientside_callback(
        RECORD_EDIT,
        Output("edits", "data"),
        Input("graph", "tapEdgeData"),
        Input("graph", "tapNodeData"),
        Input("edit-undo", "n_clicks"),
        Input("edit-reset", "n_clicks"),
        State("click-mode", "value"),
        State("edits", "data"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("edits", "data", allow_duplicate=True),
        Input("url-read", "search"),
        State("edits", "data"),
        State("store-key", "data"),
        prevent_initial_call="initial_duplicate",
    )
    def restore_edits(search, actions, key):
        query = query_of(search)
        view = store_view(stores, stores.resolve(query.get("store"))[0])
        restored, _ = parse_edits(query, view.n_modules)
        if edit_of(restored) == edit_of(actions):
            raise PreventUpdate
        return restored


def _register_outcome(app: dash.Dash, stores: AppStores) -> None:
    """What the edits do: the summary and the answer under them."""

    @app.callback(
        Output("edit-summary", "children"),
        Input("edits", "data"),
        Input("store-key", "data"),
        Input("url-read", "search"),
    )
    def summarize_edit(actions, key, search):
        # apart from the model run below, so that each click shows at once while the runs of
        # quick clicks queue on the server
        view = store_view(stores, key)
        edit = edit_of(actions)
        _, problems = parse_edits(query_of(search), view.n_modules)
        parts = [f"cut {len(edit.cut)} links", f"knocked out {len(edit.knocked_out)} modules"]
        if edit.forced:
            parts.append(f"forced {len(edit.forced)} links")
        pick = pending_pick(actions)
        if pick is not None:
            problems = [f"forcing a link from module {pick}: click its other end", *problems]
        return "; ".join([", ".join(parts) if edit else "no edit", *problems])

    @app.callback(
        Output("intervention", "children"),
        Input("edits", "data"),
        Input("circuit", "data"),
        Input("store-key", "data"),
    )
    def show_intervention(actions, circuit, key):
        intervener, why_not = scene_intervener(stores, key, circuit, "interventions run")
        if intervener is None:
            return why_not
        return outcome_text(intervener.outcome(circuit["index"], edit_of(actions)))
