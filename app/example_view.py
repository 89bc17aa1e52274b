"""The example beside its circuit: an NLVR scene drawn as NLVR draws it (three boxes of
shapes), with the label, the model's prediction and p(true) when the store holds them."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

import pandas as pd

from circuitlab.data.nlvr import BOX_SIZE, NLVRFormatError, SceneObject, scene_from_json

GAP = 12  # pixels between boxes
BORDER = 3  # the boxes' dark frame, as in NLVR's images


READ_COLOUR = "#d62728"  # the outline of objects a module reads
MIN_READ = 0.05  # read-in weights below this get no outline


def _shape(o: SceneObject, left: int, weight: float = 0.0) -> str:
    """One object as an SVG element; NLVR's (x, y) is the top-left corner of its size box. An
    object read with ``weight`` >= MIN_READ gets an outline as wide as 1 + 8 weight pixels."""
    x, y, s = left + o.x, o.y, o.size
    fill = quoteattr(o.colour)  # NLVR's colours are CSS colours: Black, Yellow, #0099ff
    paint = f"fill={fill}"
    if weight >= MIN_READ:
        paint += f' stroke="{READ_COLOUR}" stroke-width="{1 + 8 * weight:.1f}" class="read"'
    if o.shape == "circle":
        return f'<circle cx="{x + s / 2:g}" cy="{y + s / 2:g}" r="{s / 2:g}" {paint}/>'
    if o.shape == "square":
        return f'<rect x="{x}" y="{y}" width="{s}" height="{s}" {paint}/>'
    points = f"{x + s / 2:g},{y} {x},{y + s} {x + s},{y + s}"  # a triangle, apex up
    return f'<polygon points="{points}" {paint}/>'


def scene_svg(
    boxes: tuple[tuple[SceneObject, ...], ...], weights: Sequence[float] | None = None
) -> str:
    """An NLVR scene as an SVG document: the boxes left to right, BOX_SIZE pixels square.
    ``weights``: one per object, box by box (the order of the model's object tokens): how much
    a module reads each; objects read get an outline."""
    width = len(boxes) * BOX_SIZE + (len(boxes) - 1) * GAP
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{BOX_SIZE}" '
        f'viewBox="{-BORDER} {-BORDER} {width + 2 * BORDER} {BOX_SIZE + 2 * BORDER}">'
    ]
    weight = iter(weights if weights is not None else [])
    for b, box in enumerate(boxes):
        left = b * (BOX_SIZE + GAP)
        parts.append(
            f'<rect class="box" x="{left}" y="0" width="{BOX_SIZE}" height="{BOX_SIZE}" '
            f'fill="white" stroke="#333" stroke-width="{BORDER}"/>'
        )
        parts.extend(_shape(o, left, float(next(weight, 0.0))) for o in box)
    parts.append("</svg>")
    return "".join(parts)


def svg_data_uri(svg: str) -> str:
    """An SVG document as a data URI an ``<img>`` shows (no markup enters the page)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def example_summary(row: pd.Series) -> tuple[str | None, str]:
    """What the example panel shows for one store row: the scene's data URI (None when the row
    has no scene) and a line with the label, the prediction and p(true) where known."""
    facts = []
    if "label" in row and pd.notna(row["label"]):
        facts.append(f"label {str(row['label']).lower()}")
    if "prediction" in row and pd.notna(row["prediction"]):
        facts.append(f"prediction {str(row['prediction']).lower()}")
    if "p_true" in row and pd.notna(row["p_true"]):
        facts.append(f"p(true) {float(row['p_true']):.2f}")
    if "correct" in row and pd.notna(row["correct"]):
        facts.append("right" if bool(row["correct"]) else "wrong")
    if "n_pairs" in row and pd.notna(row["n_pairs"]):
        facts.append(f"over {int(row['n_pairs'])} image pairs")
    scene = row.get("scene")
    if not isinstance(scene, str):
        reason = "no scene stored with this circuit (NLVR2 images are not shipped)"
        if row.get("dataset") == "nlvr":
            reason = "no scene stored: export the store again to draw it"
        return None, " · ".join([*facts, reason])
    try:
        uri = svg_data_uri(scene_svg(scene_from_json(scene)))
    except NLVRFormatError as err:
        return None, " · ".join([*facts, f"the stored scene cannot be drawn: {err}"])
    return uri, " · ".join(facts)


def object_names(boxes: tuple[tuple[SceneObject, ...], ...]) -> list[str]:
    """A short name per object, box by box: "yellow square in box 2"."""
    colours = {"Black": "black", "Yellow": "yellow", "#0099ff": "blue"}
    sizes = {10: "small", 20: "medium", 30: "large"}
    return [
        f"{sizes.get(o.size, o.size)} {colours.get(o.colour, o.colour)} {o.shape} in box {b + 1}"
        for b, box in enumerate(boxes)
        for o in box
    ]
