"""Scenes from the generated world for a sentence without a stored scene (an NLVR2 sentence, a
typed one): drawn, with the model's answer on each, and the truth where the world's grammar
made the sentence (so its logical form is known); otherwise the truth is unknown."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from circuitlab.app.store_view import CircuitGenerator
from circuitlab.data.nlvr import NLVRExample
from circuitlab.data.world import Sentence, random_scene

N_SCENES = 3


@dataclass(frozen=True)
class WorldAnswer:
    """One generated scene's boxes, the model's p(true) on it, and the truth (None: the
    grammar does not know the sentence)."""

    boxes: tuple
    p_true: float
    truth: bool | None


class WorldProbe:
    """The model of ``generator`` on generated-world scenes for any sentence. A sentence of the
    task's pools (training and validation) has its logical form: its scenes are of its kind
    (towers or scattered) and get their truth."""

    def __init__(self, generator: CircuitGenerator) -> None:
        self.model, self.task = generator.model, generator.task
        pools = [getattr(self.task, name, []) for name in ("pool", "val_pool")]
        self.known: dict[str, Sentence] = {s.text: s for pool in pools for s in pool}

    def answers(self, text: str, n: int = N_SCENES) -> list[WorldAnswer]:
        """``n`` scenes (the same ones for the same text), the model's answers, the truths."""
        from circuitlab.train import predict_logits

        sentence = self.known.get(text)
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        rng = random.Random(seed)
        kinds = [sentence.towers] * n if sentence else [k % 2 == 0 for k in range(n)]
        scenes = [random_scene(rng, towers) for towers in kinds]
        examples = [NLVRExample(f"world-{k}", text, False, s.boxes) for k, s in enumerate(scenes)]
        p_true = predict_logits(self.model, self.task.batch_for(examples)).softmax(-1)[:, 1]
        return [
            WorldAnswer(s.boxes, float(p), sentence.label(s) if sentence else None)
            for s, p in zip(scenes, p_true.tolist(), strict=True)
        ]
