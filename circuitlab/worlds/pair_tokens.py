"""Image pairs -> a set of object tokens, one feature vector per object.

Each token: image one-hot, left then right (2) | colour one-hot (8) | size one-hot (3) | pose
one-hot (3) | facing one-hot (3) | x, depth in [0, 1] (2) | rests on an object (1) | holds an
object up (1) | objects in its image / MAX_OBJECTS_PER_IMAGE (1) | the noun's vector (the
frozen text encoder's mean token vector for the noun, e.g. 384 for MiniLM). The noun enters as
the text encoder reads it, so an object whose noun training never showed ("zebra") lands near
the nouns it resembles ("horse").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from circuitlab.data.pair_scenes import (
    COLOURS,
    FACINGS,
    IMAGES,
    MAX_OBJECTS_PER_IMAGE,
    POSES,
    SIZES,
    PairScene,
)
from circuitlab.data.text import TextEncoder

__all__ = [
    "ATTRIBUTES",
    "IMAGE_COLUMNS",
    "N_ATTRIBUTES",
    "noun_vectors",
    "pair_tokens",
    "scale_noun_vectors",
]

ATTRIBUTES = (
    [f"image_{side}" for side in IMAGES]
    + [f"colour_{c}" for c in COLOURS]
    + [f"size_{s}" for s in SIZES]
    + [f"pose_{p}" for p in POSES]
    + [f"facing_{f}" for f in FACINGS]
    + ["x", "depth", "rests_on", "holds_up", "image_count"]
)
N_ATTRIBUTES = len(ATTRIBUTES)
# the image one-hot's columns, left then right (the task's image_scale multiplies them)
IMAGE_COLUMNS = [ATTRIBUTES.index(f"image_{side}") for side in IMAGES]


def noun_vectors(nouns: Sequence[str], encoder: TextEncoder) -> dict[str, torch.Tensor]:
    """Each noun's vector: the mean of ``encoder``'s token vectors for it, (dim,).

    Parameters
    ----------
    nouns
        Nouns (singular).
    encoder
        The frozen text encoder.
    """
    if encoder.dim is None:
        raise ValueError(
            f"object tokens need a text encoder that gives vectors (minilm), not {encoder.name!r}"
        )
    unique = sorted(set(nouns))
    tokens, mask = encoder.encode(unique)
    weights = mask.unsqueeze(-1).float()
    means = (tokens * weights).sum(1) / weights.sum(1)
    return dict(zip(unique, means, strict=True))


NOUN_SCALES = ("raw", "unit")


def scale_noun_vectors(
    vectors: Mapping[str, torch.Tensor], reference: Sequence[str], scale: str
) -> dict[str, torch.Tensor]:
    """``vectors`` as the object tokens carry them: "raw" as the encoder gives them, "unit"
    centred on the mean vector of the ``reference`` nouns (the training nouns) and scaled to
    length 1.

    Raw MiniLM noun vectors have length about 5.5 and share most of it (cosine 0.65 between
    nouns on average): beside them an attribute one-hot (image, colour, ...) of length 1 is a
    small part of a token, and a model trained on raw vectors ignored which image an object is
    in. Centred and of unit length, a noun weighs as much as one attribute.

    Parameters
    ----------
    vectors, reference, scale
        As above.
    """
    if scale not in NOUN_SCALES:
        raise ValueError(f"noun scale must be one of {NOUN_SCALES}, got {scale!r}")
    if scale == "raw":
        return dict(vectors)
    missing = sorted(set(reference) - set(vectors))
    if not reference or missing:
        raise ValueError(f"the reference nouns need vectors; missing {missing or 'all'}")
    mean = torch.stack([vectors[n] for n in reference]).mean(0)
    return {n: (v - mean) / (v - mean).norm().clamp_min(1e-6) for n, v in vectors.items()}


def attribute_rows(scene: PairScene) -> list[list[float]]:
    """One row of ``ATTRIBUTES`` per object of ``scene``, left image first."""
    rows = []
    for side, image in enumerate(scene.images):
        supports = {o.on for o in image if o.on is not None}
        for i, o in enumerate(image):
            row = [float(side == k) for k in range(len(IMAGES))]
            row += [float(o.colour == c) for c in COLOURS]
            row += [float(o.size == s) for s in SIZES]
            row += [float(o.pose == p) for p in POSES]
            row += [float(o.facing == f) for f in FACINGS]
            row += [o.x, o.depth, float(o.on is not None), float(i in supports)]
            row += [len(image) / MAX_OBJECTS_PER_IMAGE]
            rows.append(row)
    return rows


def pair_tokens(
    scenes: Sequence[PairScene], vectors: Mapping[str, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """tokens (B, N, N_ATTRIBUTES + dim) and mask (B, N), N = most objects in one pair (>= 1).

    ``vectors``: noun -> (dim,) from ``noun_vectors``. A pair with no object at all keeps one
    all-zero token, unmasked, so that attention over it is defined.

    Parameters
    ----------
    scenes
        Pairs of images.
    vectors
        As above.
    """
    dim = len(next(iter(vectors.values())))
    nouns = [[o.noun for image in s.images for o in image] for s in scenes]
    missing = sorted({n for names in nouns for n in names} - set(vectors))
    if missing:
        raise ValueError(f"no vector for nouns {missing}; pass them to noun_vectors")
    n = max((len(names) for names in nouns), default=1) or 1
    tokens = torch.zeros(len(scenes), n, N_ATTRIBUTES + dim)
    mask = torch.zeros(len(scenes), n, dtype=torch.bool)
    for b, (scene, names) in enumerate(zip(scenes, nouns, strict=True)):
        if not names:
            mask[b, 0] = True
            continue
        tokens[b, : len(names), :N_ATTRIBUTES] = torch.tensor(attribute_rows(scene))
        tokens[b, : len(names), N_ATTRIBUTES:] = torch.stack([vectors[n] for n in names])
        mask[b, : len(names)] = True
    return tokens, mask
