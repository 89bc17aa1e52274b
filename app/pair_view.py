"""A pair-world scene drawn for the app: the left and the right image side by side, each object
a glyph named under it (the geometry of ``circuitlab.analysis.pair_glyphs``, as in
``pair_figure``), with the objects a module reads outlined."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from circuitlab.analysis.pair_glyphs import pair_glyphs
from circuitlab.app.example_view import BORDER, GAP, read_stroke
from circuitlab.data.pair_scenes import IMAGES, PairObject, PairScene

__all__ = ["pair_object_names", "pair_scene_svg"]

UNREAD = ' stroke="#333" stroke-width="1"'  # the thin frame of a glyph nobody reads

PANEL_WIDTH, PANEL_HEIGHT = 200, 150  # pixels of one image of a pair (the panel shows both in ~330)
TITLE_HEIGHT = 18  # the panel's title ("left image") above it


def _pair_panel(image: tuple[PairObject, ...], left: int, weights: list[float]) -> list[str]:
    """One image of a pair as SVG elements: its frame, its glyphs and their names, ``left``
    pixels from the document's left edge. Panel units (x in [-0.05, 1.05], y upwards in
    [0, 1.05]) as in ``pair_figure``."""

    def px(x: float) -> float:
        return left + (x + 0.05) / 1.1 * PANEL_WIDTH

    def py(y: float) -> float:
        return TITLE_HEIGHT + (1.0 - y / 1.05) * PANEL_HEIGHT

    scale = PANEL_WIDTH / 1.1
    glyphs = pair_glyphs(image)
    parts = [
        f'<rect class="panel" x="{left}" y="{TITLE_HEIGHT}" width="{PANEL_WIDTH}" '
        f'height="{PANEL_HEIGHT}" fill="white" stroke="#333" stroke-width="{BORDER}"/>'
    ]
    for i in sorted(range(len(glyphs)), key=lambda i: (-glyphs[i].depth, glyphs[i].stacked)):
        g = glyphs[i]  # far objects first, so that near ones are drawn over them
        x, y = px(g.x - g.width / 2), py(g.bottom + g.height)
        stroke = read_stroke(weights[i])
        parts.append(
            f'<rect class="{"object read" if stroke else "object"}" x="{x:.1f}" y="{y:.1f}" '
            f'width="{g.width * scale:.1f}" height="{g.height * scale:.1f}" fill="{g.fill}"'
            f"{stroke or UNREAD}/>"
        )
        if g.facing:
            middle, tip = py(g.bottom + g.height / 2), px(g.x + g.facing * (g.width / 2 + 0.03))
            parts.append(
                f'<line x1="{px(g.x):.1f}" y1="{middle:.1f}" x2="{tip:.1f}" y2="{middle:.1f}" '
                'stroke="#444" stroke-width="1.5"/>'
            )
    for g in glyphs:  # names over every glyph: under it, beside it when it rests on another
        if g.stacked:
            x, y, anchor = px(g.x + g.width / 2) + 3, py(g.bottom + g.height / 2) + 3, "start"
        else:
            x, y, anchor = px(g.x), py(g.bottom) + 10, "middle"
        parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="10" text-anchor="{anchor}" '
            f'font-family="sans-serif">{escape(g.label)}</text>'
        )
    return parts


def pair_scene_svg(scene: PairScene, weights: Sequence[float] | None = None) -> str:
    """A pair-world scene as an SVG document: the left and the right image side by side, each
    object a glyph with its name (``circuitlab.analysis.pair_glyphs``). ``weights``: one per
    object, left image first (the order of the model's object tokens): how much a module reads
    each; objects read get an outline.

    Parameters
    ----------
    scene
        The pair of images.
    weights
        As above.
    """
    counts = [len(image) for image in scene.images]
    flat = [float(w) for w in (weights if weights is not None else [])]
    flat += [0.0] * (sum(counts) - len(flat))
    width = len(IMAGES) * PANEL_WIDTH + (len(IMAGES) - 1) * GAP
    height = TITLE_HEIGHT + PANEL_HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="{-BORDER} {-BORDER} {width + 2 * BORDER} {height + 2 * BORDER}">'
    ]
    start = 0
    for k, (side, image) in enumerate(zip(IMAGES, scene.images, strict=True)):
        left = k * (PANEL_WIDTH + GAP)
        parts.append(
            f'<text x="{left + PANEL_WIDTH / 2:g}" y="13" font-size="11" text-anchor="middle" '
            f'font-family="sans-serif">{side} image ({len(image)} objects)</text>'
        )
        parts += _pair_panel(image, left, flat[start : start + len(image)])
        start += len(image)
    parts.append("</svg>")
    return "".join(parts)


def pair_object_names(scene: PairScene) -> list[str]:
    """A short name per object, left image first: "small red dog in the left image".

    Parameters
    ----------
    scene
        The pair of images.
    """
    return [
        f"{o.size} {o.colour} {o.noun} in the {side} image"
        for side, image in zip(IMAGES, scene.images, strict=True)
        for o in image
    ]
