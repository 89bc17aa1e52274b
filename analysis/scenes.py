"""Pictures of the examples circuits are built for: a pair-world example as two panels of
labelled glyphs (``pair_figure``).

In a panel, x runs from the image's left edge to its right; depth is drawn upwards (far objects
higher and smaller, as on a photo's ground), an object resting on another sits on top of it.
Each glyph is filled with the object's colour and shaped by its pose (standing: upright
rectangle; sitting: square; lying: flat rectangle), with an arrow for the way it faces and its
noun written under it (beside it when it rests on another).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # figures are files; never open a window
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrow, Rectangle  # noqa: E402

from circuitlab.data.pair_world import IMAGES, PairObject, PairScene  # noqa: E402

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


def _glyph_box(obj: PairObject) -> tuple[float, float]:
    """(width, height) of an object's glyph: its size, its pose, smaller when far."""
    width, height = SHAPE[obj.pose]
    scale = SCALE[obj.size] * (1.0 - 0.4 * obj.depth)
    return width * scale, height * scale


def _draw_image(ax: Axes, image: tuple[PairObject, ...], title: str) -> None:
    bottoms: dict[int, float] = {}
    for i, obj in enumerate(image):  # an object rests only on one placed before it
        width, height = _glyph_box(obj)
        if obj.on is None:
            bottom = 0.08 + 0.75 * obj.depth
        else:
            below = image[obj.on]
            bottom = bottoms[obj.on] + _glyph_box(below)[1]
        bottoms[i] = bottom
        ax.add_patch(
            Rectangle(
                (obj.x - width / 2, bottom),
                width,
                height,
                facecolor=FILL[obj.colour],
                edgecolor="#333333",
                linewidth=0.8,
                zorder=3 - obj.depth,
            )
        )
        if obj.facing != "forward":
            direction = -1 if obj.facing == "left" else 1
            ax.add_patch(
                FancyArrow(
                    obj.x,
                    bottom + height / 2,
                    direction * (width / 2 + 0.03),
                    0,
                    width=0.004,
                    head_width=0.02,
                    head_length=0.015,
                    color="#444444",
                    zorder=4,
                )
            )
        # under the glyph; beside it when it rests on another (whose name is under both)
        stacked = obj.on is not None
        ax.annotate(
            f"{obj.size} {obj.colour} {obj.noun}",
            (obj.x + width / 2, bottom + height / 2) if stacked else (obj.x, bottom),
            xytext=(4, 0) if stacked else (0, -3),
            textcoords="offset points",
            ha="left" if stacked else "center",
            va="center" if stacked else "top",
            fontsize=6,
            zorder=5,
        )
    ax.set(xlim=(-0.05, 1.05), ylim=(0, 1.05), xticks=[], yticks=[], title=title)


def pair_figure(scene: PairScene, sentence: str | None = None, label: bool | None = None) -> Figure:
    """Two panels, left and right image, with ``sentence`` (and its ``label``) as the title."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6))
    for ax, side, image in zip(axes, IMAGES, scene.images, strict=True):
        _draw_image(ax, image, f"{side} image ({len(image)} objects)")
    if sentence is not None:
        suffix = "" if label is None else f"  [{'true' if label else 'false'}]"
        fig.suptitle(sentence + suffix, fontsize=10)
    fig.tight_layout()
    return fig
