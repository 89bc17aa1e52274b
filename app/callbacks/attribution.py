"""The attribution view: with "colour by: attribution", the shown example's links and modules
coloured and sized by how much cutting (knocking out) each lowers p(answer) (red: it supports
the answer, blue: it works against it); "minimal circuit only" draws just the fewest links that
keep the answer; a table lists the strongest edits. Computed live for the shown example
(``Intervener.attribution``)."""

from __future__ import annotations

import dash
from dash import Input, Output, State, html

from circuitlab.app.attribution_view import ExampleAttribution
from circuitlab.app.callbacks.common import scene_intervener
from circuitlab.app.stores import AppStores

__all__ = ["register"]


def strongest_table(attribution: ExampleAttribution) -> html.Div:
    """The strongest edits of the shown example and their effect on p(answer)."""
    rows = [
        html.Tr([html.Td(edit), html.Td(f"{-effect:+.3f}")])
        for edit, effect in attribution.strongest()
    ]
    head = html.Tr([html.Th("edit"), html.Th("p(answer) change")])
    caption = (
        f"answer {'true' if attribution.answer == 1 else 'false'}, p(answer) "
        f"{attribution.p_answer:.3f}; minimal circuit: {len(attribution.minimal)} links"
    )
    return html.Div(
        [
            html.Div(caption, className="small"),
            html.Table([html.Thead(head), html.Tbody(rows)], className="table table-sm small"),
        ]
    )


def register(app: dash.Dash, stores: AppStores) -> None:
    """The attribution view's callbacks: colour by attribution, the minimal circuit, the table.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """

    @app.callback(
        Output("attribution-table", "children"),
        Input("circuit", "data"),
        Input("color-by", "value"),
        State("store-key", "data"),
    )
    def show_strongest(circuit, color, key):
        if color != "attribution":
            return None
        intervener, why_not = scene_intervener(stores, key, circuit, "attribution runs")
        if intervener is None:
            return why_not
        return strongest_table(intervener.attribution(circuit["index"]))
