"""Where each object of a pair-world image is drawn: one glyph per object, in the unit square
of its panel (x from the image's left edge to its right, y upwards), shared by the matplotlib
figure (``circuitlab.analysis.scenes``) and the app's SVG (``circuitlab.app.example_view``).

Depth is drawn upwards (far objects higher and smaller, as on a photo's ground) and an object
resting on another sits on top of it. A glyph is filled with the object's colour and shaped by
its pose (standing: upright rectangle; sitting: square; lying: flat rectangle); ``facing``
gives the arrow drawn for the way it faces.
"""

from __future__ import annotations

from dataclasses import dataclass

from circuitlab.data.pair_scenes import PairObject

__all__ = ["pair_glyphs"]

FILL = {
    "white": "#f7f7f7",
    "black": "#222222",
    "brown": "#8c5a2b",
    "gray": "#8f8f8f",
    "red": "#d62728",
    "blue": "#1f77b4",
    "green": "#2ca02c",
    "yellow": "#f2d22e",
}
SCALE = {"small": 0.06, "medium": 0.085, "large": 0.11}
SHAPE = {"standing": (0.7, 1.3), "sitting": (1.0, 1.0), "lying": (1.6, 0.6)}  # width, height
GROUND = 0.08  # the bottom of the nearest objects' glyphs
DEPTH_RISE = 0.75  # how much higher the farthest objects stand


@dataclass(frozen=True)
class Glyph:
    """One object's rectangle: centre ``x``, ``bottom`` edge, ``width``, ``height`` (panel
    units, y upwards); ``fill`` colour; ``facing`` -1 (left), 0 (forward) or 1 (right);
    ``label`` "size colour noun"; ``stacked`` when it rests on another object; ``depth`` in
    [0, 1] (near objects are drawn over far ones)."""

    x: float
    bottom: float
    width: float
    height: float
    fill: str
    facing: int
    label: str
    stacked: bool
    depth: float


def glyph_size(obj: PairObject) -> tuple[float, float]:
    """(width, height) of an object's glyph: its size, its pose, smaller when far."""
    width, height = SHAPE[obj.pose]
    scale = SCALE[obj.size] * (1.0 - 0.4 * obj.depth)
    return width * scale, height * scale


def _bottoms(image: tuple[PairObject, ...]) -> list[float]:
    """The bottom edge of every object's glyph: on the ground by its depth, or on top of the
    object it rests on (``PairScene`` allows a loop of objects resting on one another; the
    loop is broken where it closes: that object stands on the ground)."""
    bottoms: dict[int, float] = {}

    def bottom(i: int, seen: frozenset[int]) -> float:
        if i not in bottoms:
            below = image[i].on
            if below is None or below in seen:
                bottoms[i] = GROUND + DEPTH_RISE * image[i].depth
            else:
                bottoms[i] = bottom(below, seen | {i}) + glyph_size(image[below])[1]
        return bottoms[i]

    return [bottom(i, frozenset({i})) for i in range(len(image))]


def pair_glyphs(image: tuple[PairObject, ...]) -> list[Glyph]:
    """One glyph per object of ``image``, in the image's order (the order of the model's object
    tokens).

    Parameters
    ----------
    image
        The objects of one image.
    """
    glyphs = []
    for obj, bottom in zip(image, _bottoms(image), strict=True):
        width, height = glyph_size(obj)
        glyphs.append(
            Glyph(
                x=obj.x,
                bottom=bottom,
                width=width,
                height=height,
                fill=FILL[obj.colour],
                facing={"left": -1, "forward": 0, "right": 1}[obj.facing],
                label=f"{obj.size} {obj.colour} {obj.noun}",
                stacked=obj.on is not None,
                depth=obj.depth,
            )
        )
    return glyphs
