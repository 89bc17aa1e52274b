"""The faithfulness card: on request, how much of the shown example's answer the decisive
circuit's ranking carries as more of its links and reads are kept, f(k) over the budget grid,
beside the band of 20 random rankings of the same elements, with CPR and CMD
(``circuitlab.faithfulness``; ``Intervener.faithfulness``). Run on a click, never on a draw: a
curve is about 230 cut circuits."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import dash
import numpy as np
from dash import Input, Output, State

from circuitlab.app.callbacks.common import scene_intervener
from circuitlab.app.stores import AppStores

if TYPE_CHECKING:  # torch stays unloaded until a curve is asked for
    from circuitlab.faithfulness import FaithfulnessCurve

__all__ = ["HIDDEN", "PROMPT", "faithfulness_figure", "faithfulness_summary", "register"]

PROMPT = (
    "how much of the answer the decisive circuit's top-ranked links and reads carry, against 20 "
    "random rankings of the same elements"
)
RANKING_COLOR, BAND_COLOR = "#d62728", "rgba(120, 120, 120, 0.25)"
# the plot shown, and hidden while nothing is measured (empty axes say nothing)
SHOWN = {"height": "280px"}
HIDDEN = {"display": "none"}


def faithfulness_figure(curve: FaithfulnessCurve) -> dict:
    """f(k) of the ranking (red) over the budgets, the random rankings' range (grey band) and
    median (dashed), as a Plotly figure dict; budgets as categories (the grid is geometric).

    Parameters
    ----------
    curve
        The shown example's curve.
    """
    budgets = [f"{100 * b:g} %" for b in curve.budgets]
    low, middle, high = (np.quantile(curve.random_f, q, axis=0).tolist() for q in (0, 0.5, 1))
    band = {"type": "scatter", "x": budgets, "mode": "lines", "line": {"width": 0}}
    traces = [
        {**band, "y": low, "name": "random: lowest", "showlegend": False},
        {**band, "y": high, "name": "random: range", "fill": "tonexty", "fillcolor": BAND_COLOR},
        {
            "type": "scatter",
            "x": budgets,
            "y": middle,
            "name": "random: median",
            "mode": "lines",
            "line": {"color": "#666", "dash": "dash"},
        },
        {
            "type": "scatter",
            "x": budgets,
            "y": curve.f.tolist(),
            "name": "decisive ranking",
            "mode": "lines+markers",
            "line": {"color": RANKING_COLOR},
        },
    ]
    layout = {
        "margin": {"l": 36, "r": 4, "t": 44, "b": 72},
        "legend": {
            "orientation": "h",
            "x": 0,
            "y": 1.02,
            "yanchor": "bottom",
            "font": {"size": 10},
        },
        "xaxis": {
            "title": {"text": "share of links and reads kept", "font": {"size": 11}},
            "type": "category",
            "tickfont": {"size": 10},
        },
        "yaxis": {"title": {"text": "f(k)", "font": {"size": 11}}, "tickfont": {"size": 10}},
    }
    return {"data": traces, "layout": layout}


def faithfulness_summary(curve: FaithfulnessCurve) -> str:
    """One line: CPR and CMD of the ranking against the random rankings' medians, the share of
    random rankings each beats, and what was ranked.

    Parameters
    ----------
    curve
        The shown example's curve.
    """
    if np.isnan(curve.f).all():
        return (
            f"p(answer) is {curve.full:.3f} with every link and read and with none: nothing to "
            "rank (f(k) is undefined)"
        )
    rankings = len(curve.random_f)
    return (
        f"CPR {curve.cpr:.2f} (random median {np.median(curve.random_cpr):.2f}; above "
        f"{curve.cpr_above():.0%} of {rankings}), CMD {curve.cmd:.2f} (random median "
        f"{np.median(curve.random_cmd):.2f}; below {curve.cmd_below():.0%}). Ranked: "
        f"{curve.links} links and {curve.reads:.0f} reads by estimated effect; p(answer) "
        f"{curve.full:.3f} with all, {curve.empty:.3f} with none."
    )


def register(app: dash.Dash, stores: AppStores) -> None:
    """The card's callbacks: a click measures the shown example (on the server); a new circuit
    clears the card in the browser (no request: a draw must not wait on this card).

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    outputs = [
        Output("faithfulness", "figure", allow_duplicate=True),
        Output("faithfulness", "style", allow_duplicate=True),
        Output("faithfulness-summary", "children", allow_duplicate=True),
    ]
    clear = f"function(circuit) {{ return [{{}}, {json.dumps(HIDDEN)}, {json.dumps(PROMPT)}]; }}"
    app.clientside_callback(clear, *outputs, Input("circuit", "data"), prevent_initial_call=True)

    @app.callback(
        *outputs,
        Input("faithfulness-run", "n_clicks"),
        State("circuit", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def show_faithfulness(clicks, circuit, key):
        intervener, why_not = scene_intervener(stores, key, circuit, "faithfulness curves")
        if intervener is None:
            return {}, HIDDEN, why_not
        curve = intervener.faithfulness(circuit["index"])
        return faithfulness_figure(curve), SHOWN, faithfulness_summary(curve)
