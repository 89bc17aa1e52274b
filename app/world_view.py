"""Scenes from the model's generated world for a sentence without a stored scene (an NLVR2
sentence, a typed one): drawn, with the model's answer on each, and the truth where the world's
grammar made the sentence (so its logical form is known); otherwise the truth is unknown. The
world is the task's: the shapes world (three boxes) for an ``nlvr`` model, the pair world (two
images) for a ``pairs`` model."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from circuitlab.app.scene_kinds import NLVR_SCENES, PAIR_SCENES, SceneKind
from circuitlab.app.store_view import CircuitGenerator
from circuitlab.data.nlvr2_vocab import words
from circuitlab.data.pair_world import random_pair, world_nouns
from circuitlab.data.world import Sentence, random_scene

__all__ = ["WorldProbe"]

N_SCENES = 3


@dataclass(frozen=True)
class WorldAnswer:
    """One generated scene (of the probe's ``kind``: NLVR boxes or a ``PairScene``), the
    model's p(true) on it, and the truth (None: the grammar does not know the sentence)."""

    scene: Any
    p_true: float
    truth: bool | None


@dataclass(frozen=True)
class _Drawn:
    scene: Any  # what the app draws and the task batches
    truth: bool | None


class WorldProbe:
    """The model of ``generator`` on generated-world scenes for any sentence. A sentence of the
    task's pools has its logical form: its scenes are drawn as training drew them (towers or
    scattered; pairs around its nouns) and get their truth.

    Parameters
    ----------
    generator
        The app's model.
    """

    def __init__(self, generator: CircuitGenerator) -> None:
        from circuitlab.tasks.pairs import PairWorldTask

        self.model, self.task = generator.model, generator.task
        self.kind: SceneKind
        self._draw: Callable[[random.Random, str, int], _Drawn]
        if isinstance(self.task, PairWorldTask):
            self.kind, self._draw = PAIR_SCENES, self._pair_scene
            worlds = [(self.task.pool, self.task.world), (self.task.val_pool, self.task.world)]
            worlds.append((self.task.held_out_pool, self.task.held_out_world))
            self.known = {s.text: (s, world) for pool, world in worlds for s in pool}
            self.forms = world_nouns(self.task.noun_pool)  # its training and held-out nouns
        else:
            self.kind, self._draw = NLVR_SCENES, self._shapes_scene
            pools = [getattr(self.task, name, []) for name in ("pool", "val_pool")]
            self.known = {s.text: (s, None) for pool in pools for s in pool}

    def _shapes_scene(self, rng: random.Random, text: str, k: int) -> _Drawn:
        sentence: Sentence | None = self.known.get(text, (None, None))[0]
        towers = sentence.towers if sentence else k % 2 == 0
        scene = random_scene(rng, towers)
        return _Drawn(scene.boxes, sentence.label(scene) if sentence else None)

    def named_nouns(self, text: str) -> list[str]:
        """The pair world's nouns ``text`` names (singular or plural), in the text's order."""
        singular = {f.plural: f.singular for f in self.forms}
        singular |= {f.singular: f.singular for f in self.forms}
        return list(dict.fromkeys(singular[w] for w in words(text) if w in singular))

    def _pair_scene(self, rng: random.Random, text: str, k: int) -> _Drawn:
        sentence, world = self.known.get(text, (None, None))
        if sentence is None:  # pairs around the nouns the text names, others of any noun
            every = [f.singular for f in self.forms]
            return _Drawn(random_pair(rng, self.named_nouns(text), every), None)
        scene = world.draw_for(sentence)(rng)
        return _Drawn(scene, sentence.label(scene))

    def answers(self, text: str, n: int = N_SCENES) -> list[WorldAnswer]:
        """``n`` scenes (the same ones for the same text), the model's answers, the truths."""
        from circuitlab.predict import predict_logits

        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        rng = random.Random(seed)
        drawn = [self._draw(rng, text, k) for k in range(n)]
        examples = [
            self.kind.example(f"world-{k}", text, False, d.scene) for k, d in enumerate(drawn)
        ]
        p_true = predict_logits(self.model, self.task.batch_for(examples)).softmax(-1)[:, 1]
        return [
            WorldAnswer(d.scene, float(p), d.truth)
            for d, p in zip(drawn, p_true.tolist(), strict=True)
        ]
