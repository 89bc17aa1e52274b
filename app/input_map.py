"""Figures the panels of stores that are not a NAC's share (a Neural Interpreter's routing, a
Modular Network's paths, an NFM network's reads): the map of all inputs (a 2-D embedding, one
point per input, the shown one marked) and heatmaps of values in [0, 1]."""

from __future__ import annotations

import pandas as pd

__all__ = ["input_map_figure", "unit_heatmap"]


def input_map_figure(
    embedding: pd.DataFrame | None, frame: pd.DataFrame, what: str, highlight: int | None
) -> dict:
    """A plotly figure of ``embedding`` (columns x, y; a row per input of ``frame``, whose
    ``text`` labels the points), titled by ``what`` the embedding is of, ``highlight`` marked.

    Parameters
    ----------
    embedding, frame, what, highlight
        As above.
    """
    if embedding is None:
        return {"data": [], "layout": {"title": {"text": "fewer than 3 inputs: no map"}}}
    data = [
        {
            "type": "scattergl",
            "mode": "markers",
            "name": "inputs",
            "x": embedding["x"].tolist(),
            "y": embedding["y"].tolist(),
            "customdata": list(range(len(embedding))),
            "text": frame["text"].astype(str).tolist() if "text" in frame else None,
            "marker": {"size": 6, "color": "#1f77b4", "opacity": 0.6},
        }
    ]
    if highlight is not None:
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "shown",
                "x": [float(embedding["x"].iloc[highlight])],
                "y": [float(embedding["y"].iloc[highlight])],
                "marker": {"size": 14, "color": "#d62728", "symbol": "x"},
            }
        )
    layout = {"title": {"text": f"All inputs (t-SNE of their {what}); click one"}}
    return {"data": data, "layout": {**layout, "margin": {"t": 40}}}


def unit_heatmap(
    z: list,
    x: list,
    y: list,
    *,
    title: str,
    hover: str,
    margin: dict,
    colorscale: str = "Blues",
    trace: dict | None = None,
    layout: dict | None = None,
) -> dict:
    """A plotly heatmap of ``z`` (rows ``y`` x columns ``x``) on a [0, 1] colour scale;
    ``hover`` is the hover template (without its <extra> box), ``trace`` and ``layout`` add
    keys to the trace and the layout.

    Parameters
    ----------
    z, x, y, hover, trace, layout
        As above.
    title
        The figure's title.
    margin
        The figure's margins (plotly's ``l``, ``r``, ``t``, ``b``).
    colorscale
        A plotly colour scale.
    """
    heatmap = {
        "type": "heatmap",
        "z": z,
        "x": x,
        "y": y,
        "zmin": 0,
        "zmax": 1,
        "colorscale": colorscale,
        **(trace or {}),
        "hovertemplate": hover + "<extra></extra>",
    }
    return {
        "data": [heatmap],
        "layout": {"title": {"text": title}, "margin": margin, **(layout or {})},
    }
