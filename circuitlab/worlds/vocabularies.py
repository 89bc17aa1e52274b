"""The sentence-split vocabularies by name (``sentence_parts.Vocabulary``): what counts as a
sentence's content in each world. Here, apart from both worlds, so that neither world's module
imports the other."""

from __future__ import annotations

from functools import cache

from circuitlab.worlds.pair_world import split_vocabulary
from circuitlab.worlds.sentence_parts import SHAPES, Vocabulary

__all__ = ["vocabulary"]

NAMES = ("shapes", "pairs")


@cache
def vocabulary(name: str) -> Vocabulary:
    """The vocabulary called ``name``: ``"shapes"`` (NLVR's shapes world) or ``"pairs"`` (the
    pair world and NLVR2)."""
    if name == "shapes":
        return SHAPES
    if name == "pairs":
        return split_vocabulary()
    raise ValueError(f"unknown sentence-split vocabulary {name!r}; available: {NAMES}")
