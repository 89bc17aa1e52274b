"""A pair-world scene drawn for the app: the left image above the right one (so that the pair
fits the example card at its own size and its names read at 10 px), each object a glyph named
under it (the geometry of ``circuitlab.analysis.pair_glyphs``, as in ``pair_figure``), each
name kept inside its image, with the objects a module reads outlined."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from circuitlab.analysis.pair_glyphs import pair_glyphs
from circuitlab.app.example_view import BORDER, GAP, read_stroke
from circuitlab.data.pair_scenes import IMAGES, PairObject, PairScene

__all__ = ["name_boxes_overlap", "pair_object_names", "pair_scene_svg"]

UNREAD = ' stroke="#333" stroke-width="1"'  # the thin frame of a glyph nobody reads

PANEL_WIDTH, PANEL_HEIGHT = 200, 150  # pixels of one image of a pair
TITLE_HEIGHT = 18  # the panel's title ("left image") above it
LABEL_SIZE, TITLE_SIZE = 10, 11  # font sizes (px) of the objects' names and the titles
CHAR_WIDTH = 0.6  # a sans-serif character's width, in font sizes (wide: names stay inside)


def _name_width(label: str) -> float:
    """A name's estimated width (pixels) at LABEL_SIZE."""
    return CHAR_WIDTH * LABEL_SIZE * len(label)


def _name_place(label: str, x: float, left: float | None, right: float | None) -> tuple[float, str]:
    """Where a name goes inside an image ``PANEL_WIDTH`` wide, by its estimated width: centred
    on ``x`` (moved in from the edges) when ``left`` is None, else after ``right`` (the glyph's
    right edge) or, when it does not fit there, before ``left`` (its left edge)."""
    width = _name_width(label)
    if left is None:
        return min(max(x, width / 2), PANEL_WIDTH - width / 2), "middle"
    if right + 3 + width <= PANEL_WIDTH:
        return right + 3, "start"
    return max(left - 3, width), "end"


def _pair_panel(image: tuple[PairObject, ...], top: int, weights: list[float]) -> list[str]:
    """One image of a pair as SVG elements: its title, frame, glyphs and their names, ``top``
    pixels below the document's top edge. Panel units (x in [-0.05, 1.05], y upwards in
    [0, 1.05]) as in ``pair_figure``."""

    def px(x: float) -> float:
        return (x + 0.05) / 1.1 * PANEL_WIDTH

    def py(y: float) -> float:
        return top + TITLE_HEIGHT + (1.0 - y / 1.05) * PANEL_HEIGHT

    scale = PANEL_WIDTH / 1.1
    glyphs = pair_glyphs(image)
    parts = [
        f'<rect class="panel" x="0" y="{top + TITLE_HEIGHT}" width="{PANEL_WIDTH}" '
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
    bottom = top + TITLE_HEIGHT + PANEL_HEIGHT - 2
    names = []
    for g in glyphs:  # names over every glyph: under it, beside it when it rests on another
        if g.stacked:
            y = py(g.bottom + g.height / 2) + 3
            x, anchor = _name_place(g.label, 0.0, px(g.x - g.width / 2), px(g.x + g.width / 2))
        else:
            y = min(py(g.bottom) + LABEL_SIZE, bottom)
            x, anchor = _name_place(g.label, px(g.x), None, None)
        names.append((g.label, x, y, anchor))
    for label, x, y, anchor in _apart(names, top + TITLE_HEIGHT + LABEL_SIZE, bottom):
        parts.append(
            f'<text class="name" x="{x:.1f}" y="{y:.1f}" font-size="{LABEL_SIZE}" '
            f'text-anchor="{anchor}" font-family="sans-serif">{escape(label)}</text>'
        )
    return parts


def _extent(label: str, x: float, anchor: str) -> tuple[float, float]:
    """A name's estimated left and right edges (pixels)."""
    width = _name_width(label)
    left = x - {"start": 0.0, "middle": width / 2, "end": width}[anchor]
    return left, left + width


def name_boxes_overlap(a: tuple[str, float, float, str], b: tuple[str, float, float, str]) -> bool:
    """Whether two placed names (label, x, baseline y, anchor) overlap, by their estimated
    extents (a line of text LABEL_SIZE high above its baseline).

    Parameters
    ----------
    a, b
        The two names.
    """
    (a_left, a_right), (b_left, b_right) = _extent(a[0], a[1], a[3]), _extent(b[0], b[1], b[3])
    return a_left < b_right and b_left < a_right and abs(a[2] - b[2]) < LABEL_SIZE


def _apart(
    names: list[tuple[str, float, float, str]], highest: float, lowest: float
) -> list[tuple[str, float, float, str]]:
    """``names`` moved apart: each, from the top down, shifted down a line at a time (up, when
    the image's bottom edge ``lowest`` stops it) until it overlaps none placed before it. In a
    crowd no free line may be left: then it keeps its own place."""
    placed: list[tuple[str, float, float, str]] = []
    for label, x, y, anchor in sorted(names, key=lambda n: n[2]):
        step = LABEL_SIZE + 1
        tries = [y + k * step for k in range(int((lowest - y) // step) + 1)]
        tries += [y - k * step for k in range(1, int((y - highest) // step) + 1)]
        free = (
            t
            for t in tries
            if not any(name_boxes_overlap((label, x, t, anchor), p) for p in placed)
        )
        placed.append((label, x, next(free, y), anchor))
    return placed


def pair_scene_svg(scene: PairScene, weights: Sequence[float] | None = None) -> str:
    """A pair-world scene as an SVG document: the left image above the right one, each
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
    width = PANEL_WIDTH
    height = len(IMAGES) * (TITLE_HEIGHT + PANEL_HEIGHT) + (len(IMAGES) - 1) * GAP
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="{-BORDER} {-BORDER} {width + 2 * BORDER} {height + 2 * BORDER}">'
    ]
    start = 0
    for k, (side, image) in enumerate(zip(IMAGES, scene.images, strict=True)):
        top = k * (TITLE_HEIGHT + PANEL_HEIGHT + GAP)
        parts.append(
            f'<text x="{PANEL_WIDTH / 2:g}" y="{top + 13}" font-size="{TITLE_SIZE}" '
            f'text-anchor="middle" font-family="sans-serif">{side} image ({_objects(len(image))})'
            "</text>"
        )
        parts += _pair_panel(image, top, flat[start : start + len(image)])
        start += len(image)
    parts.append("</svg>")
    return "".join(parts)


def _objects(n: int) -> str:
    return "1 object" if n == 1 else f"{n} objects"


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
