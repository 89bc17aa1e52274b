"""Exports of what a view draws, from its cytoscape elements: the views that draw more than
the plain graph of P (what decides, colour by attribution, the minimal circuit) export their
edges with kind, effect and edit, and a figure drawn from the same elements, so that every
export holds what is on screen."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

__all__ = ["drawn_table", "elements_figure", "is_drawn_view"]

EDITED_COLORS = {"cut": "#d62728", "forced": "#2ca02c"}  # dashed, as the app draws them


def is_drawn_view(elements: list[dict]) -> bool:
    """Whether ``elements`` draw more than the plain graph: modules or edges carrying an
    attribution (the attribution view, the minimal circuit, even an empty one, and what
    decides).

    Parameters
    ----------
    elements
        The view's elements.
    """
    return any(e["data"].get("effect") is not None for e in elements)


def drawn_table(elements: list[dict]) -> pd.DataFrame:
    """One row per drawn edge of a view that draws more than the plain graph (what decides,
    colour by attribution, the minimal circuit): ``kind`` ("link" or "read"), ``source`` and
    ``target`` (module numbers; a read's source is its object's node, "t" and the token),
    ``object`` (a read's object name), ``p`` (a link's P; empty for a read), ``effect`` (its
    estimated effect on p(answer); empty for a forced link it does not hold) and ``edit`` ("cut",
    "forced" or ""): what the CSV and JSON exports write.

    Parameters
    ----------
    elements
        The view's elements, as drawn (edits marked).
    """
    rows = [
        {
            "kind": "read" if "read" in e["classes"] else "link",
            "source": e["data"]["source"],
            "target": e["data"]["target"],
            "object": e["data"].get("object"),
            "p": e["data"].get("p"),
            "effect": e["data"].get("effect"),
            "edit": e["data"].get("edit") or "",
        }
        for e in elements
        if "source" in e["data"]
    ]
    columns = ["kind", "source", "target", "object", "p", "effect", "edit"]
    return pd.DataFrame(rows, columns=columns)


def elements_figure(elements: list[dict], title: str) -> Figure:
    """A view drawn as on screen from its elements, for the Figure export: nodes at their positions
    (cytoscape's y points down, matplotlib's up), modules numbered, objects named on the left,
    edges in their colours and widths, reads as arrows. The object API, not pyplot: the server
    answers requests on several threads.

    Parameters
    ----------
    elements
        The view's elements, as drawn.
    title
        The figure's title.
    """
    fig = Figure(figsize=(6, 5))
    ax = fig.add_subplot()
    where = {
        e["data"]["id"]: (e["position"]["x"], -e["position"]["y"])
        for e in elements
        if "position" in e
    }
    for e in elements:
        data = e["data"]
        if "source" not in data:
            continue
        (x0, y0), (x1, y1) = where[data["source"]], where[data["target"]]
        edited = EDITED_COLORS.get(data.get("edit"))
        style = {"color": edited or data["color"], "lw": 0.4 * data["width"], "alpha": 0.9}
        if "read" in e["classes"]:
            ax.annotate("", (x1, y1), (x0, y0), arrowprops={"arrowstyle": "->", **style})
        else:
            ax.plot([x0, x1], [y0, y1], zorder=1, ls="--" if edited else "-", **style)
    for e in elements:
        if "position" not in e:
            continue
        x, y = where[e["data"]["id"]]
        token = "token" in e["classes"]
        marker = "D" if token else ("s" if "readout" in e["classes"] else "o")
        knocked = e["data"].get("edit") == "knocked"
        color = "#ffffff" if token or knocked else e["data"]["color"]
        ax.scatter([x], [y], s=90, marker=marker, c=color, edgecolors="#333", zorder=2)
        if token:
            ax.annotate(
                e["data"]["label"],
                (x, y),
                xytext=(-8, 0),
                textcoords="offset points",
                ha="right",
                va="center",
                fontsize=6,
            )
        else:
            ax.annotate(e["data"]["label"], (x, y), ha="center", va="center", fontsize=5, zorder=3)
    ax.set_title(title, fontsize=7)
    ax.set_axis_off()
    ax.margins(0.25, 0.08)
    return fig
