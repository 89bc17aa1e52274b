"""The attribution view: with "colour by: attribution", the shown example's links and modules
coloured and sized by how much cutting (knocking out) each lowers p(answer) (red: it supports
the answer, blue: it works against it); "minimal circuit only" draws just the fewest links that
keep the answer; a table lists the strongest edits. Computed live for the shown example
(``Intervener.attribution``)."""

from __future__ import annotations

import dash
import numpy as np
from dash import Input, Output, State, html

from circuitlab.app.attribution_view import ExampleAttribution
from circuitlab.app.callbacks.intervene import scene_intervener
from circuitlab.app.circuit_elements import UNEDITED, shade
from circuitlab.app.stores import AppStores

__all__ = ["attribution_elements", "register"]


def attribution_elements(
    elements: list[dict], attribution: ExampleAttribution, p: np.ndarray, minimal_only: bool
) -> list[dict]:
    """The drawing's elements coloured by ``attribution``: each link's ``effect`` (and colour,
    width), each module's; with ``minimal_only`` the links are those of the minimal circuit,
    drawn whatever their P (``p`` (U, U), the shown circuit's).

    Parameters
    ----------
    elements, attribution, p, minimal_only
        As above.
    """
    scale = max(
        float(np.nanmax(np.abs(attribution.link_effect))),
        float(np.nanmax(np.abs(np.nan_to_num(attribution.module_effect)))),
        1e-6,
    )
    nodes = [e for e in elements if "source" not in e["data"]]
    if minimal_only:
        edges = []
        for i, j in attribution.links[attribution.minimal]:
            data = {
                "id": f"{i}-{j}",
                "source": str(i),
                "target": str(j),
                "p": round(float(p[i, j]), 4),
                **UNEDITED,
            }
            edges.append({"data": data, "classes": "link"})
    else:
        edges = [e for e in elements if "source" in e["data"]]
    out = []
    for node in nodes:
        effect = attribution.module_effect[int(node["data"]["id"])]
        data = {**node["data"], "effect": None if np.isnan(effect) else round(float(effect), 4)}
        data["color"] = shade(0.0 if np.isnan(effect) else float(effect), scale)
        out.append({**node, "data": data})
    for edge in edges:
        data = edge["data"]
        effect = attribution.effect_of(int(data["source"]), int(data["target"]))
        effect = 0.0 if effect is None else effect
        data = {**data, "effect": round(effect, 4), "color": shade(effect, scale)}
        data["width"] = 1.0 + 7.0 * min(1.0, abs(effect) / scale)
        out.append({**edge, "data": data, "classes": f"{edge.get('classes', 'link')} attributed"})
    return out


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
