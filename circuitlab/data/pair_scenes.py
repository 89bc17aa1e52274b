"""A pair of images as a store and the app hold it: the objects, the scene, its JSON text (a
store's ``scene`` column) and pair-world example files. What draws pairs and writes sentences
about them is the pair world's (``circuitlab.worlds.pair_world``).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = [
    "COLOURS",
    "FACINGS",
    "IMAGES",
    "MAX_OBJECTS_PER_IMAGE",
    "POSES",
    "PairExample",
    "PairObject",
    "PairScene",
    "SIZES",
    "nouns_of",
    "pair_scene_from_json",
    "pair_scene_json",
    "read_pair_examples",
    "write_pair_examples",
]

COLOURS = ("white", "black", "brown", "gray", "red", "blue", "green", "yellow")
SIZES = ("small", "medium", "large")
POSES = ("standing", "sitting", "lying")
FACINGS = ("left", "right", "forward")
IMAGES = ("left", "right")
MAX_OBJECTS_PER_IMAGE = 6


# --------------------------------------------------------------------------- scenes
@dataclass(frozen=True)
class PairObject:
    """One object of an image; ``on`` is the index, in its image, of the object it rests on.

    Parameters
    ----------
    noun, colour, size, pose, facing
        What the object is and how it is drawn.
    x, depth
        Its place across and into the image.
    on
        As above.
    """

    noun: str
    colour: str
    size: str
    pose: str
    facing: str
    x: float
    depth: float
    on: int | None = None

    def __post_init__(self) -> None:
        for name, allowed in (
            ("colour", COLOURS),
            ("size", SIZES),
            ("pose", POSES),
            ("facing", FACINGS),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if not isinstance(self.noun, str) or not self.noun:
            raise ValueError(f"noun must be a non-empty string, got {self.noun!r}")
        for name in ("x", "depth"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)!r}")


@dataclass(frozen=True)
class PairScene:
    """Two images (left, right), each a tuple of objects.

    Parameters
    ----------
    images
        As above.
    """

    images: tuple[tuple[PairObject, ...], tuple[PairObject, ...]]

    def __post_init__(self) -> None:
        if len(self.images) != len(IMAGES):
            raise ValueError(f"a pair has {len(IMAGES)} images, got {len(self.images)}")
        for side, image in zip(IMAGES, self.images, strict=True):
            if len(image) > MAX_OBJECTS_PER_IMAGE:
                raise ValueError(
                    f"the {side} image has {len(image)} objects; at most {MAX_OBJECTS_PER_IMAGE}"
                )
            for i, obj in enumerate(image):
                if obj.on is not None and not (0 <= obj.on < len(image) and obj.on != i):
                    raise ValueError(
                        f"object {i} of the {side} image rests on {obj.on}, which is not "
                        "another object of that image"
                    )

    def to_json(self) -> list[list[dict]]:
        return [[asdict(o) for o in image] for image in self.images]

    @classmethod
    def from_json(cls, images: list[list[dict]]) -> PairScene:
        return cls(tuple(tuple(PairObject(**o) for o in image) for image in images))


def pair_scene_json(scene: PairScene) -> str:
    """A pair as one JSON text (a store's ``scene`` column): ``PairScene.to_json``'s lists.

    Parameters
    ----------
    scene
        The pair.
    """
    return json.dumps(scene.to_json())


def pair_scene_from_json(text: str) -> PairScene:
    """``pair_scene_json``'s inverse; ValueError says what is wrong with a bad text.

    Parameters
    ----------
    text
        The JSON.
    """
    try:
        return PairScene.from_json(json.loads(text))
    except (TypeError, AttributeError) as err:  # a bad JSON text raises a ValueError itself
        raise ValueError(f"not a pair of images as pair_scene_json writes one ({err})") from err


def nouns_of(scene: PairScene) -> set[str]:
    """The nouns of every object of ``scene``'s two images.

    Parameters
    ----------
    scene
        The pair.
    """
    return {o.noun for image in scene.images for o in image}


# --------------------------------------------------------------------------- examples
@dataclass(frozen=True)
class PairExample:
    """A sentence, a pair of images, the sentence's truth on them, and its categories.

    Parameters
    ----------
    sentence, scene, label, categories
        As above.
    """

    sentence: str
    scene: PairScene
    label: bool
    categories: tuple[str, ...]

    def to_json(self, identifier: str) -> dict:
        """One line of a pair-world file: NLVR2's fields, with the images' objects."""
        return {
            "identifier": identifier,
            "sentence": self.sentence,
            "label": "true" if self.label else "false",
            "categories": list(self.categories),
            "images": self.scene.to_json(),
        }


def write_pair_examples(examples: Sequence[PairExample], path: str | os.PathLike) -> Path:
    """Write examples as JSON lines (gzip-compressed when ``path`` ends in .gz).

    Parameters
    ----------
    examples
        The examples.
    path
        As above.
    """
    path = Path(path)
    lines = "".join(
        json.dumps(e.to_json(f"pair-{i}")) + "\n" for i, e in enumerate(examples)
    ).encode("utf-8")
    path.write_bytes(gzip.compress(lines) if path.suffix == ".gz" else lines)
    return path


def read_pair_examples(path: str | os.PathLike) -> list[PairExample]:
    """Examples from a file ``write_pair_examples`` wrote; a bad line raises ValueError naming
    the file and line.

    Parameters
    ----------
    path
        The file.
    """
    path = Path(path)
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    examples = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            label = {"true": True, "false": False}[record["label"]]
            examples.append(
                PairExample(
                    record["sentence"],
                    PairScene.from_json(record["images"]),
                    label,
                    tuple(record.get("categories", ())),
                )
            )
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{path}, line {number}: not a pair-world example ({err})") from err
    return examples
