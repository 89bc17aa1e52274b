"""Scenes from the model's generated world for a sentence without a stored scene (an NLVR2
sentence, a typed one): drawn, with the model's answer on each, and the truth where the world's
grammar made the sentence (so its logical form is known); otherwise the truth is unknown. The
world is the task's (its ``probe_scene``): the shapes world (three boxes) for an ``nlvr`` model,
the pair world (two images) for a ``pairs`` model."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from circuitlab.app.scene_kinds import SceneKind, scene_kind
from circuitlab.app.store_view import CircuitGenerator

__all__ = ["WorldProbe"]

N_SCENES = 3


@dataclass(frozen=True)
class WorldAnswer:
    """One generated scene (of the probe's ``kind``: NLVR boxes or a ``PairScene``), the
    model's p(true) on it, and the truth (None: the grammar does not know the sentence)."""

    scene: Any
    p_true: float
    truth: bool | None


class WorldProbe:
    """The model of ``generator`` on generated-world scenes for any sentence. A sentence of the
    task's pools has its logical form: its scenes are drawn as training drew them (towers or
    scattered; pairs around its nouns) and get their truth.

    Parameters
    ----------
    generator
        The app's model, whose task draws the scenes (``probe_scene``).

    Raises
    ------
    ValueError
        The model's task has no generated world to draw scenes from.
    """

    def __init__(self, generator: CircuitGenerator) -> None:
        self.model, self.task = generator.model, generator.task
        if not callable(getattr(self.task, "probe_scene", None)):
            raise ValueError(f"task {self.task.name!r} has no generated world to draw scenes from")
        self.kind: SceneKind = scene_kind(self.task.circuit_dataset)

    def answers(self, text: str, n: int = N_SCENES) -> list[WorldAnswer]:
        """``n`` scenes (the same ones for the same text), the model's answers, the truths.

        Parameters
        ----------
        text
            The sentence.
        n
            How many scenes.
        """
        from circuitlab.predict import predict_logits

        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        rng = random.Random(seed)
        drawn = [self.task.probe_scene(rng, text, k) for k in range(n)]
        examples = [
            self.kind.example(f"world-{k}", text, False, scene)
            for k, (scene, _) in enumerate(drawn)
        ]
        p_true = predict_logits(self.model, self.task.batch_for(examples)).softmax(-1)[:, 1]
        return [
            WorldAnswer(scene, float(p), truth)
            for (scene, truth), p in zip(drawn, p_true.tolist(), strict=True)
        ]
