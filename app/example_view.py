"""An NLVR scene drawn as NLVR draws it (three boxes of shapes), as the example panel shows it
beside its circuit, with the objects a module reads outlined."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from circuitlab.data.nlvr import BOX_SIZE, SceneObject

__all__ = ["BORDER", "GAP", "MIN_READ", "object_names", "read_stroke", "scene_svg", "svg_data_uri"]

GAP = 12  # pixels between boxes
BORDER = 3  # the boxes' dark frame, as in NLVR's images


READ_COLOUR = "#d62728"  # the outline of objects a module reads
MIN_READ = 0.05  # read-in weights below this get no outline


def read_stroke(weight: float) -> str:
    """The stroke attributes outlining an object read with ``weight`` ("" below MIN_READ).

    Parameters
    ----------
    weight
        How much the module reads the object.
    """
    if weight < MIN_READ:
        return ""
    return f' stroke="{READ_COLOUR}" stroke-width="{1 + 8 * weight:.1f}"'


def _shape(o: SceneObject, left: int, weight: float = 0.0) -> str:
    """One object as an SVG element; NLVR's (x, y) is the top-left corner of its size box. An
    object read with ``weight`` >= MIN_READ gets an outline as wide as 1 + 8 weight pixels."""
    x, y, s = left + o.x, o.y, o.size
    fill = quoteattr(o.colour)  # NLVR's colours are CSS colours: Black, Yellow, #0099ff
    paint = f"fill={fill}"
    if weight >= MIN_READ:
        paint += read_stroke(weight) + ' class="read"'
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
    a module reads each; objects read get an outline.

    Parameters
    ----------
    boxes
        The scene's boxes of objects.
    weights
        As above.
    """
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
    """An SVG document as a data URI an ``<img>`` shows (no markup enters the page).

    Parameters
    ----------
    svg
        The document.
    """
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def object_names(boxes: tuple[tuple[SceneObject, ...], ...]) -> list[str]:
    """A short name per object, box by box: "yellow square in box 2".

    Parameters
    ----------
    boxes
        The scene's boxes of objects.
    """
    colours = {"Black": "black", "Yellow": "yellow", "#0099ff": "blue"}
    sizes = {10: "small", 20: "medium", 30: "large"}
    return [
        f"{sizes.get(o.size, o.size)} {colours.get(o.colour, o.colour)} {o.shape} in box {b + 1}"
        for b, box in enumerate(boxes)
        for o in box
    ]
