"""Loaders for NLVR (synthetic scenes, structured representations) and NLVR2 (sentences about
photograph pairs), in their official JSON-lines formats, and for the NLVR2 reasoning-category
annotations. The dev/test files ship with circuitlab (``data/nlvr``, CC-BY-4.0); every reader
also takes the path of an official file a user has, plain or gzip-compressed.

NLVR: each line has ``sentence``, ``label`` ("true"/"false"), ``identifier`` ("<sentence id>-<i>")
and ``structured_rep``: three 100 x 100 boxes, each a list of objects with ``x_loc``, ``y_loc``,
``size`` (10/20/30), ``type`` (circle/square/triangle) and ``color`` (Black/Yellow/#0099ff).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any

import pandas as pd

from circuitlab.errors import CircuitlabError

__all__ = [
    "BOX_SIZE",
    "CATEGORIES",
    "COLOURS",
    "NLVRExample",
    "NLVRFormatError",
    "N_BOXES",
    "SHAPES",
    "SIZES",
    "SceneObject",
    "nlvr_frame",
    "read_annotations",
    "read_nlvr",
    "read_nlvr2",
    "resolve",
    "scene_from_json",
    "scene_json",
]

SHAPES = ("circle", "square", "triangle")
COLOURS = ("Black", "Yellow", "#0099ff")
SIZES = (10, 20, 30)
BOX_SIZE = 100
N_BOXES = 3  # every NLVR scene
# the most objects of the smallest size that fit in a box without overlapping
MAX_OBJECTS_PER_BOX = (BOX_SIZE // min(SIZES)) ** 2
SHIPPED = {
    "nlvr-dev": "nlvr1-dev.json.gz",
    "nlvr-test": "nlvr1-test.json.gz",
    "nlvr2-dev": "nlvr2-dev.json.gz",
    "nlvr2-test1": "nlvr2-test1.json.gz",
    "nlvr2-annotations": "nlvr2-annotated_dev_examples.txt.gz",
}
CATEGORIES = (
    "hard cardinality",
    "soft cardinality",
    "existential quantifier",
    "universal quantifier",
    "spatial relation",
    "coordination",
    "comparison",
    "negation",
    "coreference",
    "presupposition",
    "pp ambiguity",
    "cc ambiguity",
    "sbar ambiguity",
)


class NLVRFormatError(CircuitlabError):
    """A line of an NLVR/NLVR2 file is not in the official format; says which file and line."""


@dataclass(frozen=True)
class SceneObject:
    """One object of a box: position of its top-left corner, size, shape and colour.

    Parameters
    ----------
    x, y, size, shape, colour
        As above.
    """

    x: int
    y: int
    size: int
    shape: str
    colour: str


@dataclass(frozen=True)
class NLVRExample:
    """A sentence paired with one scene: three boxes of objects, and whether it is true.

    Parameters
    ----------
    identifier
        NLVR's identifier.
    sentence, label, boxes
        As above.
    """

    identifier: str
    sentence: str
    label: bool
    boxes: tuple[tuple[SceneObject, ...], ...]

    @property
    def sentence_id(self) -> str:
        """The part of the identifier shared by the scenes of one sentence ("1572-0" -> "1572")."""
        return self.identifier.rsplit("-", 1)[0]


def resolve(source: str | os.PathLike) -> Path:
    """A shipped file's name (a key of ``SHIPPED``) or a path -> the file's path.

    Parameters
    ----------
    source
        As above.
    """
    if isinstance(source, str) and source in SHIPPED:
        return Path(str(resources.files("circuitlab.data.files") / "nlvr" / SHIPPED[source]))
    path = Path(source)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file (shipped files are named {sorted(SHIPPED)})")
    return path


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _open_bytes(path: Path) -> IO[bytes]:
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def _numbered_lines(f: IO, path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, line) of an open file; a .gz that is not gzip (or is cut short) is an
    ``NLVRFormatError`` naming the file."""
    try:
        yield from enumerate(f, start=1)
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:
        raise NLVRFormatError(
            f"{path}: not a readable gzip file ({err}); give the file as downloaded, or "
            "uncompressed without the .gz suffix"
        ) from err


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of a JSON-lines file, each line decoded on its own so that a
    byte that is not UTF-8 is reported with its line."""
    with _open_bytes(path) as f:
        for number, raw in _numbered_lines(f, path):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise NLVRFormatError(
                    f"{path}, line {number}: not UTF-8 text (byte {err.start}: {err.reason})"
                ) from err
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise NLVRFormatError(f"{path}, line {number}: not JSON ({err})") from err
            if not isinstance(record, dict):
                raise NLVRFormatError(f"{path}, line {number}: expected a JSON object")
            yield number, record


def _label(value: Any, where: str) -> bool:
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise NLVRFormatError(f"{where}: label must be true or false, got {value!r}")
    return text == "true"


def _require(record: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise NLVRFormatError(f"{where}: missing {missing}")
    if "sentence" in keys and (
        not isinstance(record["sentence"], str) or not record["sentence"].strip()
    ):
        raise NLVRFormatError(f"{where}: the sentence is empty or not a string")


def _whole(value: Any) -> int | None:
    """``value`` as an int when it is a whole number (an int, a float such as 12.0, or its
    text), else None: 12.7 is never cut to 12, nor True taken as 1."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() else None


def _scene_object(raw: dict[str, Any], where: str) -> SceneObject:
    if not isinstance(raw, dict):
        raise NLVRFormatError(f"{where}: an object must be a JSON object, got {raw!r}")
    _require(raw, ("x_loc", "y_loc", "size", "type", "color"), where)
    x, y, size = (_whole(raw[key]) for key in ("x_loc", "y_loc", "size"))
    if None in (x, y, size):
        raise NLVRFormatError(
            f"{where}: x_loc, y_loc and size must be whole numbers (12 or 12.0, not 12.7): {raw}"
        )
    obj = SceneObject(x, y, size, raw["type"], raw["color"])
    if obj.shape not in SHAPES or obj.colour not in COLOURS or obj.size not in SIZES:
        raise NLVRFormatError(
            f"{where}: unknown object {raw}; type must be one of {SHAPES}, color one of "
            f"{COLOURS}, size one of {SIZES}"
        )
    if not (0 <= obj.x <= BOX_SIZE - obj.size and 0 <= obj.y <= BOX_SIZE - obj.size):
        raise NLVRFormatError(
            f"{where}: object {raw} lies outside its {BOX_SIZE} x {BOX_SIZE} box "
            f"(x_loc and y_loc must be in [0, {BOX_SIZE} - size])"
        )
    return obj


def scene_json(boxes: tuple[tuple[SceneObject, ...], ...]) -> str:
    """A scene in NLVR's own ``structured_rep`` form (a list of boxes of objects), as JSON.

    Parameters
    ----------
    boxes
        The scene's boxes of objects.
    """
    return json.dumps(
        [
            [
                {"x_loc": o.x, "y_loc": o.y, "size": o.size, "type": o.shape, "color": o.colour}
                for o in box
            ]
            for box in boxes
        ]
    )


def scene_from_json(text: str, where: str = "scene") -> tuple[tuple[SceneObject, ...], ...]:
    """``scene_json``'s inverse, checked as NLVR's reader checks a line (NLVRFormatError).

    Parameters
    ----------
    text
        The JSON.
    where
        What messages call it.
    """
    try:
        raw = json.loads(text)
    except (TypeError, json.JSONDecodeError) as err:
        raise NLVRFormatError(f"{where}: not JSON ({err})") from err
    if not (
        isinstance(raw, list) and len(raw) == N_BOXES and all(isinstance(b, list) for b in raw)
    ):
        raise NLVRFormatError(f"{where}: a scene is a list of {N_BOXES} lists of objects")
    return tuple(
        tuple(_scene_object(o, f"{where}, box {b}") for o in box) for b, box in enumerate(raw)
    )


def read_nlvr(source: str | os.PathLike) -> list[NLVRExample]:
    """NLVR examples with their structured scenes from ``source`` ("nlvr-dev", "nlvr-test", or
    the path of a file in the official format, e.g. a train.json you have).

    Parameters
    ----------
    source
        As above.
    """
    path = resolve(source)
    examples = []
    for number, record in _json_lines(path):
        where = f"{path}, line {number}"
        _require(record, ("sentence", "label", "identifier", "structured_rep"), where)
        if not isinstance(record["identifier"], str):
            raise NLVRFormatError(
                f"{where}: identifier must be a string like '1572-0', got {record['identifier']!r}"
            )
        rep = record["structured_rep"]
        if not isinstance(rep, list) or not all(isinstance(box, list) for box in rep):
            raise NLVRFormatError(f"{where}: structured_rep must be a list of boxes (lists)")
        if len(rep) != N_BOXES:
            raise NLVRFormatError(f"{where}: an NLVR scene has {N_BOXES} boxes, got {len(rep)}")
        crowded = max(len(box) for box in rep)
        if crowded > MAX_OBJECTS_PER_BOX:
            raise NLVRFormatError(
                f"{where}: a box holds {crowded} objects; at most {MAX_OBJECTS_PER_BOX} fit in "
                f"a {BOX_SIZE} x {BOX_SIZE} box without overlapping"
            )
        boxes = tuple(
            tuple(_scene_object(o, f"{where}, box {b}") for o in box) for b, box in enumerate(rep)
        )
        examples.append(
            NLVRExample(
                record["identifier"], record["sentence"], _label(record["label"], where), boxes
            )
        )
    return examples


def nlvr_frame(examples: list[NLVRExample]) -> pd.DataFrame:
    """One row per example: identifier, sentence_id, sentence, label, n_objects per scene.

    Parameters
    ----------
    examples
        NLVR examples.
    """
    return pd.DataFrame(
        {
            "identifier": [e.identifier for e in examples],
            "sentence_id": [e.sentence_id for e in examples],
            "sentence": [e.sentence for e in examples],
            "label": [e.label for e in examples],
            "n_objects": [sum(len(box) for box in e.boxes) for e in examples],
        }
    )


NLVR2_COLUMNS = (
    "identifier",
    "sentence",
    "label",
    "left_url",
    "right_url",
    "synset",
    "query",
    "writer",
)


def read_nlvr2(source: str | os.PathLike) -> pd.DataFrame:
    """NLVR2 rows from ``source`` ("nlvr2-dev", "nlvr2-test1", or an official file's path):
    identifier, sentence, label (bool), left_url, right_url, synset, query, writer.

    Parameters
    ----------
    source
        As above.
    """
    path = resolve(source)
    rows = []
    for number, record in _json_lines(path):
        where = f"{path}, line {number}"
        _require(record, ("identifier", "sentence", "label"), where)
        row = {key: record.get(key) for key in NLVR2_COLUMNS}
        row["label"] = _label(record["label"], where)
        rows.append(row)
    return pd.DataFrame(rows, columns=list(NLVR2_COLUMNS))


def read_annotations(source: str | os.PathLike = "nlvr2-annotations") -> pd.DataFrame:
    """The reasoning-category annotations: one row per sentence, ``categories`` a list of names.

    Format: a sentence line, then one "* category" line per category, blank lines between.

    Parameters
    ----------
    source
        A shipped file's name or a path.
    """
    path = resolve(source)
    rows: list[dict[str, Any]] = []
    with _open(path) as f:
        for number, raw in _numbered_lines(f, path):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("*"):
                if not rows:
                    raise NLVRFormatError(f"{path}, line {number}: a category before any sentence")
                category = line.lstrip("* ").strip().lower()
                if category not in CATEGORIES:
                    raise NLVRFormatError(f"{path}, line {number}: unknown category {category!r}")
                rows[-1]["categories"].append(category)
            else:
                rows.append({"sentence": line, "categories": []})
    return pd.DataFrame(rows, columns=["sentence", "categories"])
