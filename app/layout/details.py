"""The details panel (right): the difference from a compared circuit, the example, the
clicked module and the prior fit; ``callbacks.compare``, ``example``, ``module`` and
``circuit`` fill it."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import html

from circuitlab.app.callbacks.faithfulness import PROMPT
from circuitlab.app.layout.parts import DIFF_STYLE, graph_view, loading, plot, radio

__all__ = ["details_panel"]


def details_panel() -> dbc.Col:
    """Right: the circuit's example (with its faithfulness curve, on a click), the clicked
    module, and the circuit's prior fit with its degree plot and P ordered by the fitted
    blocks."""
    example = dbc.Card(
        [
            dbc.CardHeader("Example"),
            dbc.CardBody(
                [
                    html.Img(
                        id="example-scene", alt="the example's scene", style={"display": "none"}
                    ),
                    html.Div(id="example-facts", className="small mt-1"),
                    loading(html.Div(id="example-world"), "example-loading"),
                    *_faithfulness_parts(),
                ]
            ),
        ],
        id="example-card",  # hidden on a store of unconditional models: they have no examples
        className="mb-2",
    )
    module = dbc.Card(
        [dbc.CardHeader("Module"), dbc.CardBody(id="module-details", children="click a module")]
    )
    degree = plot("degree", "170px", config={"displayModeBar": False})
    matrix = plot("prior-matrix", "260px", config={"displayModeBar": False})
    prior = dbc.Card(
        [dbc.CardHeader("Prior fit"), dbc.CardBody([html.Div(id="prior-fit"), degree, matrix])],
        className="mt-2",
    )
    return dbc.Col([_difference_card(), example, module, prior], width=3)


def _faithfulness_parts() -> list:
    """The example's faithfulness curve: a button, the summary line and the plot
    (``callbacks.faithfulness``)."""
    button = dbc.Button(
        "faithfulness: measure f(k)",
        id="faithfulness-run",
        n_clicks=0,
        size="sm",
        color="light",
        className="mt-2",
    )
    summary = html.Div(PROMPT, id="faithfulness-summary", className="small mt-1")
    return [
        button,
        loading(summary, "faithfulness-loading"),
        plot("faithfulness", "280px", config={"displayModeBar": False}, hidden=True),
    ]


def _difference_card() -> dbc.Card:
    """The shown circuit's difference from the compared one, beside the circuit (hidden until
    something is compared, below)."""
    scale = radio(
        "diff-scale",
        [
            {"label": "P z-scored within each circuit", "value": "z"},
            {"label": "P", "value": "p"},
        ],
        small=True,
    )
    return dbc.Card(
        [
            dbc.CardHeader("Difference from the compared circuit (red gained, blue lost)"),
            dbc.CardBody([scale, graph_view("graph-diff", DIFF_STYLE, height="300px")]),
        ],
        id="diff-card",
        className="mb-2",
        style={"display": "none"},
    )
