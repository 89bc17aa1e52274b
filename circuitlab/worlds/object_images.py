"""Procedural object images: classes built from parts, drawn in several renditions.

An object is three parts placed in three of four slots around the image centre (top-left,
top-right, bottom-left, bottom-right); a part is one of seven primitives, each a signed distance
field (SDF: negative inside, positive outside, in pixels). A *class* is a choice of empty slot
and a primitive per filled slot. Classes come in families that differ in one part only, so
telling them apart needs the right part in the right place, not the object's overall mass.

One image (``size`` x ``size``, one channel) of a class: the object moved by up to ``jitter``
pixels, each part scaled by a factor in [0.8, 1.2] and turned by up to 20 degrees, plus
``distractors`` parts at random places (``distractor_size`` times a part's size, +-20 %), and
gaussian pixel noise. The *rendition* turns
the SDF of the union of parts into pixels:

- ``filled`` (the training style): 1 inside, 0 outside, a one-pixel soft edge;
- ``outline``: a line along the boundary;
- ``texture``: the filled shape times diagonal stripes;
- ``sketch``: a broken, wobbly outline (the boundary moved by low-frequency noise, dashed);
- ``inverted``: 1 - filled.

Everything is drawn from a ``torch.Generator``: the same seed gives the same images.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

__all__ = [
    "HELD_OUT_RENDITIONS",
    "ObjectClass",
    "PRIMITIVES",
    "RENDITIONS",
    "TRAINING_RENDITION",
    "draw_images",
    "make_classes",
    "primitive_sdf",
]

PRIMITIVES = ("disc", "square", "triangle", "plus", "ring", "bar", "diamond")
RENDITIONS = ("filled", "outline", "texture", "sketch", "inverted")
TRAINING_RENDITION = "filled"
HELD_OUT_RENDITIONS = tuple(r for r in RENDITIONS if r != TRAINING_RENDITION)
N_SLOTS = 4


def _box(u: torch.Tensor, v: torch.Tensor, a: float, b: float) -> torch.Tensor:
    """SDF of an axis-aligned box of half-widths a, b (exact outside, inside, and on edges)."""
    du, dv = u.abs() - a, v.abs() - b
    outside = torch.sqrt(du.clamp(min=0) ** 2 + dv.clamp(min=0) ** 2)
    return outside + torch.maximum(du, dv).clamp(max=0)


def primitive_sdf(kind: int, u: torch.Tensor, v: torch.Tensor, radius: float) -> torch.Tensor:
    """Signed distance to primitive ``PRIMITIVES[kind]`` of size ``radius`` centred at u = v = 0,
    at the points (u, v) (any shape, in pixels; v grows downwards). Exact for the disc, ring and
    boxes; for the triangle and diamond a distance along the edge normals (the sign, and so the
    shape, exact).

    Parameters
    ----------
    kind, radius
        As above.
    u, v
        Points, in pixels.
    """
    if not 0 <= kind < len(PRIMITIVES):
        raise ValueError(f"kind must be in 0..{len(PRIMITIVES) - 1}, got {kind}")
    r = radius
    name = PRIMITIVES[kind]
    if name == "disc":
        return torch.sqrt(u**2 + v**2) - r
    if name == "square":
        return _box(u, v, 0.8 * r, 0.8 * r)
    if name == "triangle":  # flat top at v = -r / 2, apex below at v = r
        edge = torch.maximum(u.abs() * math.cos(math.pi / 6) + v * 0.5, -v)
        return edge - 0.5 * r
    if name == "plus":
        return torch.minimum(_box(u, v, r, 0.3 * r), _box(u, v, 0.3 * r, r))
    if name == "ring":
        return (torch.sqrt(u**2 + v**2) - 0.75 * r).abs() - 0.25 * r
    if name == "bar":
        return _box(u, v, r, 0.35 * r)
    return (u.abs() + v.abs() - r) / math.sqrt(2)  # diamond


@dataclass(frozen=True)
class ObjectClass:
    """A class: ``parts[s]`` is the primitive in slot s (0 top-left, 1 top-right, 2 bottom-left,
    3 bottom-right), -1 for the empty slot.

    Parameters
    ----------
    parts
        As above.
    """

    parts: tuple[int, int, int, int]

    def __post_init__(self) -> None:
        if len(self.parts) != N_SLOTS or sorted(self.parts).count(-1) != 1:
            raise ValueError(f"a class fills 3 of 4 slots, got parts {self.parts}")
        if not all(-1 <= p < len(PRIMITIVES) for p in self.parts):
            raise ValueError(f"primitives are 0..{len(PRIMITIVES) - 1}, got {self.parts}")

    def describe(self) -> str:
        names = [PRIMITIVES[p] if p >= 0 else "-" for p in self.parts]
        return " ".join(names)


def make_classes(n_classes: int, seed: int = 0, family_size: int = 3) -> list[ObjectClass]:
    """``n_classes`` distinct classes drawn from ``seed``, in families of ``family_size``: a
    family's first class is random, each other member changes one part of the first (another
    primitive in one filled slot).

    Parameters
    ----------
    n_classes, seed, family_size
        As above.
    """
    if n_classes < 1:
        raise ValueError(f"n_classes must be >= 1, got {n_classes}")
    if family_size < 1:
        raise ValueError(f"family_size must be >= 1, got {family_size}")
    g = torch.Generator().manual_seed(seed)
    chosen: list[ObjectClass] = []
    seen: set[tuple[int, ...]] = set()

    def draw(upper: int) -> int:
        return int(torch.randint(0, upper, (1,), generator=g))

    while len(chosen) < n_classes:
        empty = draw(N_SLOTS)
        base = [draw(len(PRIMITIVES)) for _ in range(N_SLOTS)]
        base[empty] = -1
        family = [tuple(base)]
        for _ in range(100 * family_size):
            if len(family) >= family_size:
                break
            slot = [s for s in range(N_SLOTS) if s != empty][draw(N_SLOTS - 1)]
            other = list(base)
            other[slot] = draw(len(PRIMITIVES))
            family.append(tuple(other))
        for parts in family:
            if parts not in seen and len(chosen) < n_classes:
                seen.add(parts)
                chosen.append(ObjectClass(parts))  # type: ignore[arg-type]
    return chosen


def _slot_centres(size: int) -> torch.Tensor:
    """(4, 2) pixel centres (x, y) of the slots."""
    near, far = 0.3 * size, 0.7 * size
    return torch.tensor([[near, near], [far, near], [near, far], [far, far]])


def _rotated(x: torch.Tensor, y: torch.Tensor, angle: torch.Tensor) -> tuple[torch.Tensor, ...]:
    c, s = torch.cos(angle), torch.sin(angle)
    return c * x + s * y, -s * x + c * y


def draw_images(
    classes: list[ObjectClass],
    labels: torch.Tensor,
    generator: torch.Generator,
    *,
    size: int = 32,
    rendition: str = TRAINING_RENDITION,
    distractors: int = 2,
    noise: float = 0.08,
    jitter: float = 2.0,
    distractor_size: float = 0.45,
) -> torch.Tensor:
    """Images (B, 1, size, size) in about [0, 1] (before noise) of ``classes[labels[b]]``;
    ``distractor_size``: the distractors' mean size relative to a part's.

    Parameters
    ----------
    classes
        The classes.
    labels
        (B,) each image's class.
    generator
        The random generator.
    size
        The images' side in pixels.
    rendition
        How a class is drawn (``RENDITIONS``).
    distractors, noise, jitter
        Distractor parts, pixel noise, and how far the object moves.
    distractor_size
        As above.
    """
    if rendition not in RENDITIONS:
        raise ValueError(f"rendition must be one of {RENDITIONS}, got {rendition!r}")
    g = generator
    b = len(labels)
    radius = 0.13 * size
    table = torch.tensor([c.parts for c in classes])[labels]  # (B, 4)
    shift = (torch.rand(b, 1, 2, generator=g) * 2 - 1) * jitter
    centres = _slot_centres(size).unsqueeze(0) + shift  # (B, 4, 2)
    scales = 0.8 + 0.4 * torch.rand(b, N_SLOTS, generator=g)
    angles = (torch.rand(b, N_SLOTS, generator=g) * 2 - 1) * math.radians(20)
    # distractors: small random primitives anywhere
    d_kind = torch.randint(0, len(PRIMITIVES), (b, distractors), generator=g)
    d_centre = 2 + torch.rand(b, distractors, 2, generator=g) * (size - 4)
    d_scale = distractor_size * (0.8 + 0.4 * torch.rand(b, distractors, generator=g))
    d_angle = torch.rand(b, distractors, generator=g) * 2 * math.pi

    kinds = torch.cat([table, d_kind], dim=1)  # (B, P)
    centre = torch.cat([centres, d_centre], dim=1)  # (B, P, 2)
    scale = torch.cat([scales, d_scale], dim=1)
    angle = torch.cat([angles, d_angle], dim=1)

    axis = torch.arange(size, dtype=torch.float32) + 0.5
    ys, xs = torch.meshgrid(axis, axis, indexing="ij")  # (H, W)
    x = xs[None, None] - centre[..., 0, None, None]  # (B, P, H, W)
    y = ys[None, None] - centre[..., 1, None, None]
    u, v = _rotated(x, y, angle[..., None, None])
    u, v = u / scale[..., None, None], v / scale[..., None, None]
    sdf = torch.full_like(u, float("inf"))
    for kind in range(len(PRIMITIVES)):
        here = (kinds == kind)[..., None, None]
        sdf = torch.where(here, primitive_sdf(kind, u, v, radius), sdf)
    sdf = sdf * scale[..., None, None]  # back to pixels
    sdf = sdf.min(dim=1).values  # (B, H, W): the union of parts
    image = _render(sdf, rendition, g, xs, ys)
    image = image + noise * torch.randn(image.shape, generator=g)
    return image.unsqueeze(1)


def _render(
    sdf: torch.Tensor, rendition: str, g: torch.Generator, xs: torch.Tensor, ys: torch.Tensor
) -> torch.Tensor:
    """Pixels (B, H, W) of the shapes whose SDF is ``sdf`` (B, H, W)."""
    filled = torch.sigmoid(-sdf / 0.5)
    if rendition == "filled":
        return filled
    if rendition == "inverted":
        return 1.0 - filled
    if rendition == "outline":
        return torch.exp(-((sdf / 0.8) ** 2))
    b = sdf.shape[0]
    if rendition == "texture":
        angle = torch.rand(b, 1, 1, generator=g) * math.pi
        period = 3.0 + 2.0 * torch.rand(b, 1, 1, generator=g)
        phase = torch.cos(angle) * xs + torch.sin(angle) * ys
        stripes = 0.5 + 0.5 * torch.sin(2 * math.pi * phase / period)
        return filled * stripes
    # sketch: the boundary wobbles (low-frequency offsets) and the stroke breaks into dashes
    freq = 0.25 + 0.25 * torch.rand(b, 2, 1, 1, generator=g)
    phase = torch.rand(b, 2, 1, 1, generator=g) * 2 * math.pi
    wobble = (
        0.8 * torch.sin(freq[:, 0] * xs + phase[:, 0]) * torch.cos(freq[:, 1] * ys + phase[:, 1])
    )
    dash_phase = torch.rand(b, 1, 1, generator=g) * 2 * math.pi
    dashes = (torch.sin(0.9 * (xs + ys) + dash_phase) > -0.5).float()
    return torch.exp(-(((sdf + wobble) / 0.7) ** 2)) * dashes
