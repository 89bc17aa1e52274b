"""nlvr: visual reasoning on NLVR-style scenes, trained on the generated world.

Training examples pair a sentence from a fixed pool of ``pool_size`` world sentences (each
encoded once by the frozen text encoder) with a fresh scene that makes it true or false with
equal odds; with ``nlvr_dev_fraction`` > 0 that share of the training examples are real NLVR
dev examples instead (NLVR test is never trained on). Validation uses another
``val_pool_size`` sentences, none in the training pool, so ``val_acc`` measures new sentences
on new scenes; ``extra_pool_size`` more training sentences come from the phrasings of NLVR dev
that the base grammar lacks (``circuitlab.worlds.world_extra``; validation keeps the base
grammar). ``out_of_distribution`` puts the validation sentences about scattered scenes on boxes
more crowded (9-12 objects) than any in training (1-8). ``batch_for(examples)`` turns
real NLVR examples (or any NLVRExample) into a batch for the same model.

What the model sees, by ``inputs``:
- ``scene`` with ``conditional=True`` (the NAC of the paper): the circuit generator reads the
  sentence tokens, the executor reads the scene's object tokens;
- ``joint`` (unconditional baselines, e.g. Perceiver IO): one set of tokens, scene objects and
  sentence tokens side by side, [object features | text vector | is-text flag]; with
  ``conditional=True`` the generator reads the sentence too, so the executor reads it both
  through its circuit and directly (a way around the circuit: check the swap drops);
  ``text_input_dropout`` then hides the sentence's input tokens from that share of training
  examples, which the circuit alone must answer;
- ``text``: the sentence tokens alone (the text-only baseline);
- ``scene`` with ``conditional=False``: the scene alone.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

import torch

from circuitlab.data.nlvr import NLVRExample, SceneObject, read_nlvr
from circuitlab.data.text import make_encoder
from circuitlab.task import (
    Batch,
    HeldOutSentenceCircuits,
    check_inputs,
    check_share,
    hide_text_inputs,
    objects_and_text_batch,
    trim_text,
)
from circuitlab.worlds.grammar import balanced_scene, both_labels_common, distinct_sentences
from circuitlab.worlds.scene_tokens import SCENE_TOKEN_DIM, scene_tokens
from circuitlab.worlds.world import (
    OBJECTS_PER_BOX,
    OOD_OBJECTS_PER_BOX,
    Scene,
    Sentence,
    WorldExample,
    WorldGenerator,
    random_scene,
    random_sentence,
)
from circuitlab.worlds.world_extra import random_extra_sentence

__all__ = ["NLVRWorld", "sentence_pool"]


def sentence_pool(
    n: int,
    seed: int,
    *,
    tower_fraction: float = 0.5,
    exclude: frozenset[str] = frozenset(),
    draw: Callable[[random.Random, bool], Sentence] = random_sentence,
) -> list[Sentence]:
    """``n`` distinct world sentences (not in ``exclude``) that some scenes make true and some
    false, drawn deterministically from ``seed`` by ``draw(rng, towers)`` (the base grammar's
    ``random_sentence``, or ``random_extra_sentence`` for the extra phrasings).

    Parameters
    ----------
    n, seed, exclude, draw
        As above.
    tower_fraction
        Share of the sentences about towers.
    """

    def usable(sentence: Sentence, rng: random.Random) -> bool:
        return both_labels_common(sentence.label, lambda r: random_scene(r, sentence.towers), rng)

    return distinct_sentences(
        n, seed, lambda rng: draw(rng, rng.random() < tower_fraction), usable, exclude
    )


class NLVRWorld(HeldOutSentenceCircuits):
    """NLVR-style examples of the generated world (the module docstring says what each
    option does).

    Parameters
    ----------
    conditional, inputs, text_input_dropout
        What the model sees, as the module docstring says.
    text_encoder
        The frozen text encoder of the sentences ("minilm").
    pool_size, val_pool_size, extra_pool_size
        Training, validation and extra training sentences.
    pool_seed
        Seed of the sentence pools.
    tower_fraction
        Share of the sentences and scenes drawn about towers (the rest about scattered objects).
    nlvr_dev_fraction
        Share of the training examples that are real NLVR dev examples.
    """

    circuit_dataset = "world"
    name = "nlvr"
    n_classes = 2
    # enough to encode sentences and batch scenes as a run did, without its pools
    TINY_OPTIONS = {"pool_size": 1, "val_pool_size": 1, "extra_pool_size": 0}

    def __init__(
        self,
        *,
        conditional: bool = True,
        inputs: str = "scene",
        text_encoder: str = "minilm",
        pool_size: int = 6000,
        val_pool_size: int = 500,
        pool_seed: int = 0,
        tower_fraction: float = 0.5,
        nlvr_dev_fraction: float = 0.0,
        extra_pool_size: int = 0,
        text_input_dropout: float = 0.0,
    ) -> None:
        check_inputs(inputs, conditional, "scene")
        check_share("text_input_dropout", text_input_dropout)
        if text_input_dropout and not (conditional and inputs == "joint"):
            raise ValueError(
                "text_input_dropout hides the sentence's input tokens from some training "
                "examples, so that their circuit alone must answer: it needs a conditional "
                "model with inputs='joint'"
            )
        self.text_input_dropout = text_input_dropout
        self.conditional, self.inputs = conditional, inputs
        self.encoder = make_encoder(text_encoder)
        if inputs in ("joint", "text") and self.encoder.dim is None:
            raise ValueError(
                f"inputs={inputs!r} puts text vectors among the input tokens and needs a text "
                f"encoder that gives vectors (minilm), not {text_encoder!r}"
            )
        check_share("nlvr_dev_fraction", nlvr_dev_fraction)
        self.nlvr_dev_fraction = nlvr_dev_fraction
        if extra_pool_size < 0:
            raise ValueError(f"extra_pool_size must be >= 0, got {extra_pool_size}")
        # real NLVR dev examples mixed into training (never NLVR test)
        self.dev = read_nlvr("nlvr-dev") if nlvr_dev_fraction > 0 else []
        self.world = WorldGenerator(tower_fraction=tower_fraction)
        self.pool = sentence_pool(pool_size, pool_seed, tower_fraction=tower_fraction)
        self.val_pool = sentence_pool(
            val_pool_size,
            pool_seed + 7919,
            tower_fraction=tower_fraction,
            exclude=frozenset(s.text for s in self.pool),
        )
        # drawn after the validation pool and kept out of it: validation stays the base grammar's
        self.pool += sentence_pool(
            extra_pool_size,
            pool_seed + 15485863,
            tower_fraction=tower_fraction,
            exclude=frozenset(s.text for s in [*self.pool, *self.val_pool]),
            draw=random_extra_sentence,
        )
        self._text = dict(zip(("train", "val"), self._encode_pools(), strict=True))

        text_dim = self.encoder.dim
        self.cond_vocab = self.encoder.vocab if conditional else None
        self.cond_dim = text_dim if conditional and text_dim else None
        self.split_text = conditional and self.encoder.name == "minilm-split"
        self.input_dim = {
            "scene": SCENE_TOKEN_DIM,
            "text": text_dim,
            "joint": SCENE_TOKEN_DIM + (text_dim or 0) + 1,
        }[inputs]

    def _encode_pools(self) -> tuple[tuple[torch.Tensor, torch.Tensor], ...]:
        """(tokens, mask) of the training pool followed by the NLVR dev sentences, and of the
        validation pool."""
        texts = [s.text for s in self.pool] + [e.sentence for e in self.dev]
        texts += [s.text for s in self.val_pool]
        tokens, mask = self.encoder.encode(texts)
        if tokens.dtype.is_floating_point:
            tokens = tokens.half()  # the pools' vectors stay in memory for the whole run
        n = len(self.pool) + len(self.dev)
        return (tokens[:n], mask[:n]), (tokens[n:], mask[n:])

    # ------------------------------------------------------------------ batches
    def _batch(
        self,
        scenes: Sequence[Scene],
        labels: Sequence[bool],
        text: torch.Tensor,
        text_mask: torch.Tensor,
    ) -> Batch:
        """One batch from scenes and their sentences' encoded tokens (B, T[, D]) and mask."""
        text, text_mask = trim_text(text, text_mask)
        y = torch.tensor([int(v) for v in labels])
        if self.inputs == "text":
            return Batch(text, y, input_mask=text_mask)
        objects, object_mask = scene_tokens(scenes)
        return objects_and_text_batch(
            self.inputs, self.conditional, objects, object_mask, text, text_mask, y
        )

    def _sample_from(self, split: str, batch_size: int, seed: int) -> Batch:
        pool = self.pool if split == "train" else self.val_pool
        tokens, mask = self._text[split]
        rng = random.Random(seed)
        index, scenes, labels = [], [], []
        for _ in range(batch_size):
            if split == "train" and self.dev and rng.random() < self.nlvr_dev_fraction:
                i = rng.randrange(len(self.dev))
                index.append(len(pool) + i)
                scenes.append(Scene(self.dev[i].boxes))
                labels.append(self.dev[i].label)
            else:
                i = rng.randrange(len(pool))
                example = self.world.example(rng.getrandbits(62), pool[i])
                index.append(i)
                scenes.append(example.scene)
                labels.append(example.label)
        batch = self._batch(scenes, labels, tokens[index], mask[index])
        if split == "train" and self.text_input_dropout:
            hide_rng = random.Random(seed ^ 0x5EED)  # apart from the examples' draws
            hidden = [hide_rng.random() < self.text_input_dropout for _ in range(batch_size)]
            batch = hide_text_inputs(batch, torch.tensor(hidden))
        return batch

    def sample(self, batch_size: int, seed: int) -> Batch:
        """Training sentences on fresh scenes; depends only on ``seed``."""
        return self._sample_from("train", batch_size, seed)

    def validation(self, batch_size: int, seed: int) -> Batch:
        """Held-out sentences on fresh scenes."""
        return self._sample_from("val", batch_size, seed)

    def scattered_validation(
        self,
        batch_size: int,
        seed: int,
        objects_per_box: Sequence[int] = OBJECTS_PER_BOX,
        placement_tries: int = 60,
    ) -> Batch:
        """Held-out sentences about scattered scenes (tower sentences left out) on fresh scenes
        of ``objects_per_box`` objects a box; labels balanced per sentence as in training."""
        world = WorldGenerator(
            tower_fraction=self.world.tower_fraction,
            objects_per_box=objects_per_box,
            placement_tries=placement_tries,
        )
        scattered = [i for i, sentence in enumerate(self.val_pool) if not sentence.towers]
        tokens, mask = self._text["val"]
        rng = random.Random(seed)
        index = [scattered[rng.randrange(len(scattered))] for _ in range(batch_size)]
        examples = [world.example(rng.getrandbits(62), self.val_pool[i]) for i in index]
        return self._batch(
            [e.scene for e in examples], [e.label for e in examples], tokens[index], mask[index]
        )

    def out_of_distribution(self, batch_size: int, seed: int) -> Batch:
        """``scattered_validation`` on crowded boxes: 9-12 objects each (as many as fit), where
        training never shows more than 8. Tower sentences are left out: NLVR's towers cannot
        grow past 4 blocks."""
        return self.scattered_validation(batch_size, seed, OOD_OBJECTS_PER_BOX, placement_tries=200)

    def validation_examples(self, n: int, seed: int) -> list[WorldExample]:
        """``n`` held-out world examples (validation sentences, fresh scenes), with categories."""
        rng = random.Random(seed)
        return [
            self.world.example(
                rng.getrandbits(62), self.val_pool[rng.randrange(len(self.val_pool))]
            )
            for _ in range(n)
        ]

    def validation_on_scenes(
        self, scenes: Sequence[Scene], n: int, seed: int, tries: int = 300
    ) -> list[WorldExample]:
        """Up to ``n`` held-out world examples whose scenes come from ``scenes`` (e.g. NLVR
        test's real ones) rather than from the world: each draws a validation sentence and a
        label, then scenes of the sentence's kind (towers or scattered) until the sentence's
        logical form gives that label; a draw that no scene satisfies in ``tries`` is
        skipped. Separates what a model carries over to new scenes from new wording."""
        by_kind = {kind: [s for s in scenes if s.is_towers == kind] for kind in (False, True)}
        rng = random.Random(seed)
        examples = []
        for _ in range(n):
            sentence = self.val_pool[rng.randrange(len(self.val_pool))]
            wanted = rng.random() < 0.5
            candidates = by_kind[sentence.towers]
            if not candidates:
                raise ValueError(
                    f"no {'tower' if sentence.towers else 'scattered'} scenes among the "
                    f"{len(scenes)} given: held-out sentences need both kinds"
                )
            scene = balanced_scene(
                rng, sentence.label, lambda r, pool=candidates: r.choice(pool), wanted, tries
            )
            if scene is not None:
                categories = tuple(sorted(sentence.categories))
                examples.append(WorldExample(sentence.text, scene, wanted, categories))
        return examples

    def heldout_sentences(self, n: int, seed: int = 104729) -> list[Sentence]:
        """The ``val_pool`` followed by more sentences none of which is in the training pool, ``n``
        in all (n >= val_pool_size); a larger held-out sample for measures over sentences."""
        extra = n - len(self.val_pool)
        if extra <= 0:
            return self.val_pool[:n]
        seen = frozenset(s.text for s in [*self.pool, *self.val_pool])
        more = sentence_pool(extra, seed, tower_fraction=self.world.tower_fraction, exclude=seen)
        return [*self.val_pool, *more]

    @functools.cached_property
    def _known(self) -> dict[str, Sentence]:
        return {s.text: s for s in [*self.pool, *self.val_pool]}

    def probe_scene(
        self, rng: random.Random, text: str, k: int
    ) -> tuple[tuple[tuple[SceneObject, ...], ...], bool | None]:
        """Three boxes for any sentence, and the sentence's truth on them: for a sentence of
        the task's pools, drawn as training drew its scenes (towers or scattered, as the
        sentence speaks of); for any other, towers for even ``k`` and scattered objects for
        odd, truth None (the grammar does not know it).

        Parameters
        ----------
        rng
            The draw's random source.
        text
            The sentence.
        k
            Which of the sentence's probe scenes this is.
        """
        sentence = self._known.get(text)
        scene = random_scene(rng, sentence.towers if sentence else k % 2 == 0)
        return scene.boxes, sentence.label(scene) if sentence else None

    def batch_for(self, examples: Sequence[NLVRExample]) -> Batch:
        """A batch for NLVR examples: their scenes, sentences (encoded) and labels."""
        tokens, mask = self.encoder.encode([e.sentence for e in examples])
        scenes = [Scene(e.boxes) for e in examples]
        return self._batch(scenes, [e.label for e in examples], tokens, mask)
