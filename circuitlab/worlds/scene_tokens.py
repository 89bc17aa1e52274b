"""NLVR scenes -> a set of object tokens, one feature vector per object.

Each token: box one-hot (3) | centre x, y in [0, 1] (2) | size one-hot (3) | shape one-hot (3) |
colour one-hot (3) | walls touched: left, right, top, bottom (4) | tower level one-hot, base
first (4; all zero off a tower) | nothing stacked on it (1) | objects in its box / 8 (1).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from circuitlab.data.nlvr import BOX_SIZE, COLOURS, SHAPES, SIZES, SceneObject
from circuitlab.worlds.world import MAX_OBJECTS, MAX_TOWER, N_BOXES, Scene

__all__ = ["FEATURES", "SCENE_TOKEN_DIM", "scene_tokens"]

WALLS = ("left", "right", "top", "bottom")
FEATURES = (
    [f"box_{b}" for b in range(N_BOXES)]
    + ["x", "y"]
    + [f"size_{s}" for s in SIZES]
    + [f"shape_{s}" for s in SHAPES]
    + [f"colour_{c}" for c in COLOURS]
    + [f"touches_{w}" for w in WALLS]
    + [f"level_{lv}" for lv in range(MAX_TOWER)]
    + ["top", "box_count"]
)
SCENE_TOKEN_DIM = len(FEATURES)


def object_features(scene: Scene) -> list[list[float]]:
    """One feature row per object of ``scene`` (box by box), in the order of ``FEATURES``."""
    rows = []
    for b, box in enumerate(scene.placed):
        for p in box:
            o: SceneObject = p.obj
            row = [float(b == i) for i in range(N_BOXES)]
            row += [(o.x + o.size / 2) / BOX_SIZE, (o.y + o.size / 2) / BOX_SIZE]
            row += [float(o.size == s) for s in SIZES]
            row += [float(o.shape == s) for s in SHAPES]
            row += [float(o.colour == c) for c in COLOURS]
            row += [float(w in p.walls) for w in WALLS]
            row += [float(p.level == lv) for lv in range(MAX_TOWER)]
            row += [float(p.top), len(box) / MAX_OBJECTS]
            rows.append(row)
    return rows


def scene_tokens(scenes: Sequence[Scene]) -> tuple[torch.Tensor, torch.Tensor]:
    """tokens (B, N, SCENE_TOKEN_DIM) and mask (B, N), N = most objects in one scene (>= 1).

    A scene with no object at all keeps one all-zero token, unmasked, so that attention over
    it is defined.

    Parameters
    ----------
    scenes
        World scenes.
    """
    rows = [object_features(s) for s in scenes]
    n = max((len(r) for r in rows), default=1) or 1
    tokens = torch.zeros(len(rows), n, SCENE_TOKEN_DIM)
    mask = torch.zeros(len(rows), n, dtype=torch.bool)
    for i, r in enumerate(rows):
        if r:
            tokens[i, : len(r)] = torch.tensor(r)
            mask[i, : len(r)] = True
        else:
            mask[i, 0] = True
    return tokens, mask
