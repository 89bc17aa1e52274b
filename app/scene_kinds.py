"""What the app does with a store row's scene, by the store's dataset: read it from its stored
JSON, draw it, name its objects, and turn it back into an example the model's task can batch.
Two kinds: NLVR scenes (three boxes of shapes; the ``nlvr`` stores) and pair-world scenes (two
images of objects; the ``pairs`` stores of a pair-world model)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from circuitlab.app.example_view import object_names, scene_svg, svg_data_uri
from circuitlab.app.pair_view import pair_object_names, pair_scene_svg
from circuitlab.data.nlvr import NLVRExample, NLVRFormatError, scene_from_json
from circuitlab.data.pair_scenes import PairExample, PairScene, pair_scene_from_json
from circuitlab.errors import CircuitlabError

__all__ = [
    "NLVR_SCENES",
    "PAIR_SCENES",
    "SceneFormatError",
    "SceneKind",
    "example_summary",
    "scene_examples",
    "scene_kind",
]


@dataclass(frozen=True)
class SceneKind:
    """``read``: stored JSON -> scene (raises ``SceneFormatError`` on a bad one); ``svg(scene,
    weights)``: an SVG document, objects with a read-in weight >= MIN_READ outlined;
    ``object_names``: one name per object in the order of the model's object tokens;
    ``example(identifier, text, label, scene)``: what the task's ``batch_for`` reads.

    Parameters
    ----------
    name
        The dataset's name in a store's ``dataset`` column.
    read, svg, object_names, example
        As above.
    """

    name: str
    read: Callable[[str], Any]
    svg: Callable[[Any, Sequence[float] | None], str]
    object_names: Callable[[Any], list[str]]
    example: Callable[[str, str, bool, Any], Any]

    def n_objects(self, scene: Any) -> int:
        return len(self.object_names(scene))


class SceneFormatError(CircuitlabError):
    """A stored scene that cannot be read; the message says what is wrong."""


def _read_nlvr(text: str) -> Any:
    try:
        return scene_from_json(text)
    except NLVRFormatError as err:
        raise SceneFormatError(str(err)) from err


def _read_pair(text: str) -> PairScene:
    try:
        return pair_scene_from_json(text)
    except ValueError as err:
        raise SceneFormatError(str(err)) from err


NLVR_SCENES = SceneKind(
    "nlvr",
    read=_read_nlvr,
    svg=scene_svg,
    object_names=object_names,
    example=NLVRExample,
)
PAIR_SCENES = SceneKind(
    "pairs",
    read=_read_pair,
    svg=pair_scene_svg,
    object_names=pair_object_names,
    example=lambda identifier, text, label, scene: PairExample(text, scene, label, ()),
)


def scene_kind(dataset: object) -> SceneKind:
    """The kind of the scenes of a store row whose ``dataset`` column holds ``dataset``.

    Parameters
    ----------
    dataset
        The row's ``dataset`` value.
    """
    return PAIR_SCENES if dataset == "pairs" else NLVR_SCENES


def scene_examples(frame: pd.DataFrame) -> list[Any]:
    """The examples the model's task batches (``task.batch_for``) for store rows ``frame``
    (each with a scene; one dataset, the first row's), in order.

    Parameters
    ----------
    frame
        Store rows with scenes.
    """
    dataset = frame["dataset"].iloc[0] if "dataset" in frame and len(frame) else None
    kind = scene_kind(dataset)
    return [
        kind.example(
            str(r.get("scene_id", k)), str(r["text"]), bool(r["label"]), kind.read(r["scene"])
        )
        for k, (_, r) in enumerate(frame.iterrows())
    ]


def example_summary(row: pd.Series) -> tuple[str | None, str]:
    """What the example panel shows for one store row: the scene's data URI (None when the row
    has no scene) and a line with the label, the prediction and p(true) where known.

    Parameters
    ----------
    row
        The store row.
    """
    facts = []
    if "label" in row and pd.notna(row["label"]):
        facts.append(f"label {str(row['label']).lower()}")
    if "prediction" in row and pd.notna(row["prediction"]):
        facts.append(f"prediction {str(row['prediction']).lower()}")
    if "p_true" in row and pd.notna(row["p_true"]):
        facts.append(f"p(true) {float(row['p_true']):.2f}")
    if "correct" in row and pd.notna(row["correct"]):
        facts.append("right" if bool(row["correct"]) else "wrong")
    if "n_pairs" in row and pd.notna(row["n_pairs"]):
        facts.append(f"over {int(row['n_pairs'])} image pairs")
    scene = row.get("scene")
    if not isinstance(scene, str):
        dataset = row.get("dataset")
        reason = "no scene: this store's circuits are not conditioned on examples"
        if dataset == "nlvr2":
            reason = "no scene stored with this circuit (NLVR2 images are not shipped)"
        elif dataset in ("nlvr", "pairs"):
            reason = "no scene stored: export the store again to draw it"
        return None, " · ".join([*facts, reason])
    kind = scene_kind(row.get("dataset"))
    try:
        uri = svg_data_uri(kind.svg(kind.read(scene), None))
    except SceneFormatError as err:
        return None, " · ".join([*facts, f"the stored scene cannot be drawn: {err}"])
    return uri, " · ".join(facts)
