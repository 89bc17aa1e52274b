"""The map of all inputs of a store that is not a NAC's (a Neural Interpreter's routing, a
Modular Network's paths): a 2-D embedding, one point per input, the shown one marked."""

from __future__ import annotations

import pandas as pd


def input_map_figure(
    embedding: pd.DataFrame | None, frame: pd.DataFrame, what: str, highlight: int | None
) -> dict:
    """A plotly figure of ``embedding`` (columns x, y; a row per input of ``frame``, whose
    ``text`` labels the points), titled by ``what`` the embedding is of, ``highlight`` marked."""
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
