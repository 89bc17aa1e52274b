"""The attribution view: with "colour by: attribution", the shown example's links and modules
coloured and sized by how much cutting (knocking out) each lowers p(answer) (red: it supports
the answer, blue: it works against it); "minimal circuit only" draws just the fewest links that
keep the answer; a table lists the strongest edits. Computed live for the shown example
(``Intervener.attribution``)."""

from __future__ import annotations

from dash import html

from circuitlab.app.attribution_view import ExampleAttribution
from circuitlab.app.callbacks.common import scene_intervener
from circuitlab.app.stores import AppStores

__all__ = ["attribution_table", "strongest_table"]


def strongest_table(attribution: ExampleAttribution) -> html.Div:
    """The strongest edits of the shown example and their effect on p(answer).

    Parameters
    ----------
    attribution
        The shown example's attribution.
    """
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


def attribution_table(
    stores: AppStores, key: str | None, circuit: dict | None, color: str | None
) -> html.Div | str | None:
    """The strongest-edits table of the shown example when the page colours by attribution
    (None otherwise; why not, where it cannot run). Filled by the ``draw`` callback, which has
    just computed the same attribution for the colours: a callback of its own ran it a second
    time whenever its request reached another worker process, or raced the draw in one.

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    circuit
        The page's circuit.
    color
        The page's "colour by" value.
    """
    if color != "attribution":
        return None
    intervener, why_not = scene_intervener(stores, key, circuit, "attribution runs")
    if intervener is None:
        return why_not
    return strongest_table(intervener.attribution(circuit["index"]))
