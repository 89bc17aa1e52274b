"""Pictures of the examples circuits are built for: a pair-world example as two panels of
labelled glyphs (``pair_figure``; where each glyph goes: ``circuitlab.analysis.pair_glyphs``).
Each glyph's noun is written under it (beside it when it rests on another), with an arrow for
the way it faces.
"""

from __future__ import annotations

import matplotlib

__all__ = ["pair_figure"]

matplotlib.use("Agg")  # figures are files; never open a window
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrow, Rectangle  # noqa: E402

from circuitlab.analysis.pair_glyphs import pair_glyphs  # noqa: E402
from circuitlab.data.pair_scenes import IMAGES, PairObject, PairScene  # noqa: E402


def _draw_image(ax: Axes, image: tuple[PairObject, ...], title: str) -> None:
    for glyph in pair_glyphs(image):
        ax.add_patch(
            Rectangle(
                (glyph.x - glyph.width / 2, glyph.bottom),
                glyph.width,
                glyph.height,
                facecolor=glyph.fill,
                edgecolor="#333333",
                linewidth=0.8,
                zorder=3 - glyph.depth,
            )
        )
        if glyph.facing:
            ax.add_patch(
                FancyArrow(
                    glyph.x,
                    glyph.bottom + glyph.height / 2,
                    glyph.facing * (glyph.width / 2 + 0.03),
                    0,
                    width=0.004,
                    head_width=0.02,
                    head_length=0.015,
                    color="#444444",
                    zorder=4,
                )
            )
        # under the glyph; beside it when it rests on another (whose name is under both)
        ax.annotate(
            glyph.label,
            (glyph.x + glyph.width / 2, glyph.bottom + glyph.height / 2)
            if glyph.stacked
            else (glyph.x, glyph.bottom),
            xytext=(4, 0) if glyph.stacked else (0, -3),
            textcoords="offset points",
            ha="left" if glyph.stacked else "center",
            va="center" if glyph.stacked else "top",
            fontsize=6,
            zorder=5,
        )
    ax.set(xlim=(-0.05, 1.05), ylim=(0, 1.05), xticks=[], yticks=[], title=title)


def pair_figure(scene: PairScene, sentence: str | None = None, label: bool | None = None) -> Figure:
    """Two panels, left and right image, with ``sentence`` (and its ``label``) as the title.

    Parameters
    ----------
    scene
        The pair of images.
    sentence, label
        The title and its truth value (None: left out).
    """
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6))
    for ax, side, image in zip(axes, IMAGES, scene.images, strict=True):
        _draw_image(ax, image, f"{side} image ({len(image)} objects)")
    if sentence is not None:
        suffix = "" if label is None else f"  [{'true' if label else 'false'}]"
        fig.suptitle(sentence + suffix, fontsize=10)
    fig.tight_layout()
    return fig
