"""pairs: NLVR2-style reasoning over image pairs, trained on the generated pair world.

Training examples pair a sentence from a fixed pool of ``pool_size`` pair-world sentences about
the training nouns (each encoded once by the frozen text encoder) with a fresh pair of images
that makes it true or false with equal odds. ``validation`` uses ``val_pool_size`` other
sentences about the same nouns (new sentences on new pairs); ``out_of_distribution`` uses
``held_out_pool_size`` sentences about the held-out nouns (``pair_world.noun_split``: every sixth
noun), on pairs whose objects may be of any noun: nouns no training example showed.

Objects enter as ``circuitlab.worlds.pair_tokens`` (attributes and the noun's text vector; with
``noun_scale="unit"`` that vector centred on the training nouns' mean and of length 1). With
``noun_pool`` above 60 the world also speaks of the next most frequent counted NLVR2 nouns (up to
90), all of them training nouns: the held-out nouns stay every sixth of the 60 most frequent, and
their sentences and pairs stay as they are. ``noun_noise`` > 0 adds Gaussian noise of expected
length ``noun_noise`` to every training object's noun vector (validation and held-out objects
keep theirs), so that the executor cannot read a training noun by its exact vector.
``image_scale`` multiplies every object's image one-hot (which image it is in) in every batch,
so that the feature weighs more beside the others at the same learning rate.
``extra_pool_size`` more training sentences come from the NLVR2 phrasings the base grammar lacks
(``circuitlab.worlds.pair_world_extra``; validation and the held-out nouns keep the base grammar's),
and ``disjunction_pool_size`` more of two clauses joined by "or", which the base grammar lacks.
``contrast_per_batch`` > 0 gives every training batch that many contrast triples
(``Batch.contrast``, for ``NACConfig.penalties.logic_contrast_weight``): a training sentence,
the same with one training noun swapped for another, and the same with one logic change
(``circuitlab.worlds.minimal_pairs.nlvr2_minimal_pairs_by_kind``'s rules, every kind that
applies), drawn from the triples of the first ``contrast_pool_size`` training sentences:
uniformly among the triples (``contrast_balance="triples"``), or a kind uniformly and then one
of its triples (``"kinds"``), so that a kind few sentences allow (connectives: 3 % of the
triples) is contrasted as often as the others. ``contrast_disjunctions`` adds the triples of the
disjunction pool's sentences (their "or the other" -> "and the other" among them), so that the
contrast asks P to move with the connective both ways. ``category_triples`` > 0 adds that many
triples of kind "category" drawn from those sentences of one category: a sentence, another of
its category (in the noun swap's place) and one of another category (in the logic change's),
so that P moves less within a category than across.
What the model sees, by ``inputs``, is as in the ``nlvr`` task: ``scene`` (conditional: sentence
to the circuit generator, objects to the executor), ``joint`` (objects and sentence tokens as
input; conditional, the sentence also to the generator) or ``text``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import torch

from circuitlab.data.pair_scenes import PairExample, PairScene
from circuitlab.data.text import make_encoder
from circuitlab.nn.token_noise import gaussian_jitter
from circuitlab.task import (
    Batch,
    HeldOutSentenceCircuits,
    check_inputs,
    objects_and_text_batch,
    trim_text,
)
from circuitlab.worlds.grammar import both_labels_common, distinct_sentences
from circuitlab.worlds.minimal_pairs import nlvr2_minimal_pairs_by_kind
from circuitlab.worlds.nlvr2_vocab import words
from circuitlab.worlds.pair_tokens import (
    IMAGE_COLUMNS,
    N_ATTRIBUTES,
    noun_vectors,
    pair_tokens,
    scale_noun_vectors,
)
from circuitlab.worlds.pair_world import (
    N_NOUNS,
    PairSentence,
    PairWorld,
    pool_nouns,
    random_pair,
    random_pair_sentence,
    world_nouns,
)
from circuitlab.worlds.pair_world_extra import random_pair_disjunction, random_pair_extra_sentence

__all__ = ["PairWorldTask", "add_noun_noise"]

# how contrast triples are drawn: uniformly, or a kind uniformly then one of its triples
CONTRAST_BALANCES = ("triples", "kinds")


def _check_options(
    inputs: str,
    conditional: bool,
    noun_noise: float,
    image_scale: float,
    extra_pool_size: int,
    disjunction_pool_size: int,
    contrast_per_batch: int,
    contrast_pool_size: int,
    contrast_balance: str,
    contrast_disjunctions: bool = False,
    category_triples: int = 0,
) -> None:
    """Refuse task options out of their range, naming each."""
    check_inputs(inputs, conditional, "pair")
    if noun_noise < 0:
        raise ValueError(f"noun_noise must be >= 0, got {noun_noise}")
    if not image_scale > 0:
        raise ValueError(f"image_scale must be > 0, got {image_scale}")
    if extra_pool_size < 0 or disjunction_pool_size < 0:
        raise ValueError(
            "extra_pool_size and disjunction_pool_size must be >= 0, got "
            f"{extra_pool_size} and {disjunction_pool_size}"
        )
    if contrast_per_batch < 0 or contrast_pool_size < 1:
        raise ValueError(
            "contrast_per_batch must be >= 0 and contrast_pool_size >= 1, got "
            f"{contrast_per_batch} and {contrast_pool_size}"
        )
    if contrast_balance not in CONTRAST_BALANCES:
        raise ValueError(
            f"contrast_balance must be one of {CONTRAST_BALANCES}, got {contrast_balance!r}"
        )
    if contrast_per_batch and not conditional:
        raise ValueError("contrast_per_batch compares circuits of sentences: conditional only")
    if category_triples < 0 or (category_triples and not contrast_per_batch):
        raise ValueError(
            "category_triples must be >= 0 and needs contrast_per_batch > 0 (they join the "
            f"contrast), got {category_triples} and {contrast_per_batch}"
        )
    if contrast_disjunctions and not (contrast_per_batch and disjunction_pool_size):
        raise ValueError(
            "contrast_disjunctions contrasts the disjunction pool's sentences: it needs "
            f"contrast_per_batch > 0 and disjunction_pool_size > 0, got {contrast_per_batch} "
            f"and {disjunction_pool_size}"
        )


def pair_sentence_pool(
    n: int,
    seed: int,
    world: PairWorld,
    exclude: frozenset[str] = frozenset(),
    draw: Callable[[random.Random, Sequence[str]], PairSentence] = random_pair_sentence,
) -> list[PairSentence]:
    """``n`` distinct sentences about ``world.nouns`` (not in ``exclude``) that some pairs make
    true and some false, drawn deterministically from ``seed`` by ``draw(rng, nouns)`` (the
    base grammar's ``random_pair_sentence``, or ``random_pair_extra_sentence``)."""

    def usable(sentence: PairSentence, rng: random.Random) -> bool:
        return both_labels_common(sentence.label, world.draw_for(sentence), rng)

    return distinct_sentences(n, seed, lambda rng: draw(rng, world.nouns), usable, exclude)


def add_noun_noise(
    objects: torch.Tensor, mask: torch.Tensor, length: float, seed: int
) -> torch.Tensor:
    """A copy of object tokens (B, N, N_ATTRIBUTES + dim) whose noun vectors (the last ``dim``
    features) of real objects (mask (B, N) true) carry Gaussian noise of expected length about
    ``length`` (per-feature sd ``length / sqrt(dim)``), drawn from ``seed``.

    Parameters
    ----------
    objects, mask, length
        As above.
    seed
        Seed of the noise.
    """
    generator = torch.Generator().manual_seed(seed)
    noisy = objects.clone()
    nouns = objects[..., N_ATTRIBUTES:]
    noisy[..., N_ATTRIBUTES:] = gaussian_jitter(nouns, mask, length, generator)
    return noisy


def category_contrast_triples(
    sentences: Sequence[PairSentence], n: int, seed: int = 0
) -> pd.DataFrame:
    """``n`` triples (text, wording, logic, kind "category") of ``sentences`` with one category
    each: a sentence, another of the same category, one of another category; drawn from
    ``seed``. Empty (with the columns) when ``n`` is 0.

    Parameters
    ----------
    sentences
        Pair-world sentences (those with several categories or none are left out).
    n
        Triples drawn.
    seed
        Seed of the draw.
    """
    by_category: dict[str, list[str]] = {}
    for sentence in sentences:
        if len(sentence.categories) == 1:
            by_category.setdefault(next(iter(sentence.categories)), []).append(sentence.text)
    usable = sorted(c for c, texts in by_category.items() if len(set(texts)) > 1)
    if n and len(usable) < 2:
        raise ValueError(
            "category_triples needs two categories with two sentences each among the contrast "
            f"pool's one-category sentences; found {len(usable)}: raise contrast_pool_size"
        )
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        category = rng.choice(usable)
        text, same = rng.sample(sorted(set(by_category[category])), 2)
        other = rng.choice([c for c in sorted(by_category) if c != category])
        rows.append((text, same, rng.choice(by_category[other]), "category"))
    return pd.DataFrame(rows, columns=["text", "wording", "logic", "kind"])


class PairWorldTask(HeldOutSentenceCircuits):
    """Image-pair examples of the generated pair world (the module docstring says what each
    option does).

    Parameters
    ----------
    conditional, inputs
        What the model sees, as the module docstring says.
    text_encoder
        The frozen text encoder of the sentences and nouns ("minilm").
    pool_size, val_pool_size, held_out_pool_size, extra_pool_size, disjunction_pool_size
        Sentences of each pool.
    pool_seed
        Seed of the sentence pools.
    noun_scale, noun_pool, noun_noise, image_scale
        How objects enter.
    contrast_per_batch, contrast_pool_size, contrast_balance, contrast_disjunctions
        The contrast triples.
    category_triples
        Triples of one category against another, in the contrast.
    """

    circuit_dataset = "pairs"
    name = "pairs"
    n_classes = 2
    # enough to encode sentences and batch scenes as a run did, without its pools and triples
    TINY_OPTIONS = {
        "pool_size": 1,
        "val_pool_size": 1,
        "held_out_pool_size": 1,
        "extra_pool_size": 0,
        "disjunction_pool_size": 0,
        "contrast_per_batch": 0,
        "contrast_disjunctions": False,
        "category_triples": 0,
    }

    def __init__(
        self,
        *,
        conditional: bool = True,
        inputs: str = "scene",
        text_encoder: str = "minilm",
        pool_size: int = 6000,
        val_pool_size: int = 500,
        held_out_pool_size: int = 500,
        pool_seed: int = 0,
        noun_scale: str = "raw",
        noun_pool: int = N_NOUNS,
        noun_noise: float = 0.0,
        image_scale: float = 1.0,
        extra_pool_size: int = 0,
        disjunction_pool_size: int = 0,
        contrast_per_batch: int = 0,
        contrast_pool_size: int = 2000,
        contrast_balance: str = "triples",
        contrast_disjunctions: bool = False,
        category_triples: int = 0,
    ) -> None:
        _check_options(
            inputs, conditional, noun_noise, image_scale, extra_pool_size, disjunction_pool_size,
            contrast_per_batch, contrast_pool_size, contrast_balance, contrast_disjunctions,
            category_triples,
        )  # fmt: skip
        self.noun_noise, self.image_scale = noun_noise, image_scale
        self.conditional, self.inputs = conditional, inputs
        # a split encoder splits pair-world sentences by the pair world's words
        split = {"vocabulary": "pairs"} if text_encoder == "minilm-split" else {}
        self.encoder = make_encoder(text_encoder, **split)
        self.split_text = conditional and bool(split)  # sentences in two parts, for the generator
        self.noun_pool = noun_pool
        self.train_nouns, self.held_out_nouns = pool_nouns(noun_pool)
        every_noun = [f.singular for f in world_nouns()]  # the held-out pairs' objects
        self.vectors = scale_noun_vectors(
            noun_vectors(list(dict.fromkeys(every_noun + self.train_nouns)), self.encoder),
            self.train_nouns,
            noun_scale,
        )
        self.world = PairWorld(self.train_nouns)
        self.held_out_world = PairWorld(self.held_out_nouns, vocabulary=every_noun)
        self._draw_pools(pool_size, val_pool_size, held_out_pool_size, pool_seed)
        self._add_pools(extra_pool_size, disjunction_pool_size, pool_seed)
        self._text = {
            split: self._encode([s.text for s in pool])
            for split, pool in (
                ("train", self.pool),
                ("val", self.val_pool),
                ("held_out", self.held_out_pool),
            )
        }
        self.contrast_per_batch, self.contrast_balance = contrast_per_batch, contrast_balance
        self.contrast_triples = (
            self._contrast_triples(contrast_pool_size, contrast_disjunctions, category_triples)
            if contrast_per_batch
            else None
        )
        self._contrast = (
            self._encode(
                [
                    *self.contrast_triples["text"],
                    *self.contrast_triples["wording"],
                    *self.contrast_triples["logic"],
                ]
            )
            if contrast_per_batch
            else None
        )
        text_dim = self.encoder.dim
        object_dim = N_ATTRIBUTES + len(next(iter(self.vectors.values())))
        self.cond_vocab = self.encoder.vocab if conditional else None
        self.cond_dim = text_dim if conditional and text_dim else None
        self.input_dim = {
            "scene": object_dim,
            "text": text_dim,
            "joint": object_dim + (text_dim or 0) + 1,
        }[inputs]

    def _encode(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        tokens, mask = self.encoder.encode(list(texts))
        if tokens.dtype.is_floating_point:
            tokens = tokens.half()  # the pools' vectors stay in memory for the whole run
        return tokens, mask

    def _draw_pools(
        self, pool_size: int, val_pool_size: int, held_out_pool_size: int, pool_seed: int
    ) -> None:
        """The training, validation (other sentences, the same nouns) and held-out (the
        held-out nouns) sentence pools of the base grammar."""
        self.pool = pair_sentence_pool(pool_size, pool_seed, self.world)
        seen = frozenset(s.text for s in self.pool)
        self.val_pool = pair_sentence_pool(val_pool_size, pool_seed + 7919, self.world, seen)
        self.held_out_pool = pair_sentence_pool(
            held_out_pool_size, pool_seed + 15485863, self.held_out_world
        )

    def _add_pools(self, extra_pool_size: int, disjunction_pool_size: int, pool_seed: int) -> None:
        """More training sentences in the extra phrasings and of two clauses joined by "or":
        drawn after the other pools and kept out of them, so validation stays the base
        grammar's."""
        seen = frozenset(s.text for s in self.pool) | {s.text for s in self.val_pool}
        self.pool += pair_sentence_pool(
            extra_pool_size,
            pool_seed + 32452843,
            self.world,
            seen,
            draw=random_pair_extra_sentence,
        )
        self.disjunction_pool = pair_sentence_pool(
            disjunction_pool_size,
            pool_seed + 49979687,
            self.world,
            seen,
            draw=random_pair_disjunction,
        )
        self.pool += self.disjunction_pool

    @functools.cached_property
    def _contrast_rows_by_kind(self) -> list[list[int]]:
        """The contrast triples' rows, grouped by kind (kinds in a fixed order)."""
        kinds = self.contrast_triples["kind"].to_numpy()
        return [np.flatnonzero(kinds == k).tolist() for k in sorted(set(kinds))]

    def _contrast_triples(
        self, n_sentences: int, disjunctions: bool, n_category: int
    ) -> pd.DataFrame:
        """(text, wording, logic, kind) for the first ``n_sentences`` training sentences (and,
        with ``disjunctions``, the disjunction pool's): the noun swap among the training nouns,
        the logic change by each kind that applies; then ``n_category`` category triples."""
        forms = {f.singular: f.plural for f in world_nouns(self.noun_pool)}
        nouns = [(noun, forms[noun]) for noun in self.train_nouns]
        sentences = self.pool[:n_sentences] + (self.disjunction_pool if disjunctions else [])
        texts = list(dict.fromkeys(s.text for s in sentences))
        triples = nlvr2_minimal_pairs_by_kind(texts, nouns, seed=0)
        if triples.empty:
            raise ValueError("no training sentence has both a noun swap and a logic change")
        if not n_category:
            return triples
        categories = category_contrast_triples(self.pool[:n_sentences], n_category)
        return pd.concat([triples, categories], ignore_index=True)

    # ------------------------------------------------------------------ batches
    def _batch(
        self,
        scenes: Sequence[PairScene],
        labels: Sequence[bool],
        text: torch.Tensor,
        text_mask: torch.Tensor,
        noise_seed: int | None = None,
    ) -> Batch:
        """One batch from pairs and their sentences' encoded tokens (B, T[, D]) and mask; with
        ``noise_seed`` (training batches) the objects' nouns take ``noun_noise``."""
        text, text_mask = trim_text(text, text_mask)
        y = torch.tensor([int(v) for v in labels])
        if self.inputs == "text":
            return Batch(text, y, input_mask=text_mask)
        objects, object_mask = pair_tokens(scenes, self.vectors)
        if self.image_scale != 1.0:
            objects[..., IMAGE_COLUMNS] *= self.image_scale
        if noise_seed is not None and self.noun_noise > 0:
            objects = add_noun_noise(objects, object_mask, self.noun_noise, noise_seed)
        return objects_and_text_batch(
            self.inputs, self.conditional, objects, object_mask, text, text_mask, y
        )

    def _split(self, split: str) -> tuple[list[PairSentence], PairWorld]:
        if split == "held_out":
            return self.held_out_pool, self.held_out_world
        return (self.pool if split == "train" else self.val_pool), self.world

    def _sample_from(self, split: str, batch_size: int, seed: int) -> Batch:
        pool, world = self._split(split)
        tokens, mask = self._text[split]
        rng = random.Random(seed)
        index = [rng.randrange(len(pool)) for _ in range(batch_size)]
        examples = [world.example(rng.getrandbits(62), pool[i]) for i in index]
        return self._batch(
            [e.scene for e in examples],
            [e.label for e in examples],
            tokens[index],
            mask[index],
            noise_seed=rng.getrandbits(62) if split == "train" else None,
        )

    def sample(self, batch_size: int, seed: int) -> Batch:
        """Training sentences on fresh pairs (and ``contrast_per_batch`` contrast triples);
        depends only on ``seed``."""
        batch = self._sample_from("train", batch_size, seed)
        if not self.contrast_per_batch:
            return batch
        tokens, mask = self._contrast
        n = len(self.contrast_triples)
        chosen = self.contrast_rows(seed)
        rows = torch.tensor([i + part * n for part in range(3) for i in chosen])
        batch.contrast, batch.contrast_mask = trim_text(tokens[rows], mask[rows])
        return batch

    def contrast_rows(self, seed: int) -> list[int]:
        """The rows of ``contrast_triples`` the training batch of ``seed`` contrasts, drawn as
        ``contrast_balance`` says."""
        rng = random.Random(seed ^ 0x5EED)
        if self.contrast_balance == "kinds":
            by_kind = self._contrast_rows_by_kind
            kinds = [rng.randrange(len(by_kind)) for _ in range(self.contrast_per_batch)]
            return [rng.choice(by_kind[k]) for k in kinds]
        return [rng.randrange(len(self.contrast_triples)) for _ in range(self.contrast_per_batch)]

    def validation(self, batch_size: int, seed: int) -> Batch:
        """Held-out sentences about the training nouns, on fresh pairs."""
        return self._sample_from("val", batch_size, seed)

    def out_of_distribution(self, batch_size: int, seed: int) -> Batch:
        """Sentences about the held-out nouns, on pairs that show them."""
        return self._sample_from("held_out", batch_size, seed)

    def validation_examples(self, n: int, seed: int, split: str = "val") -> list[PairExample]:
        """``n`` examples of ``split`` ("val" or "held_out"), with categories."""
        pool, world = self._split(split)
        rng = random.Random(seed)
        return [
            world.example(rng.getrandbits(62), pool[rng.randrange(len(pool))]) for _ in range(n)
        ]

    @functools.cached_property
    def _known(self) -> dict[str, tuple[PairSentence, PairWorld]]:
        pools = [(self.pool, self.world), (self.val_pool, self.world)]
        pools.append((self.held_out_pool, self.held_out_world))
        return {s.text: (s, world) for pool, world in pools for s in pool}

    def named_nouns(self, text: str) -> list[str]:
        """The task's nouns (its ``noun_pool``) that ``text`` names, singular or plural, as
        singulars in the text's order.

        Parameters
        ----------
        text
            Any sentence.
        """
        forms = world_nouns(self.noun_pool)
        singular = {f.plural: f.singular for f in forms} | {f.singular: f.singular for f in forms}
        return list(dict.fromkeys(singular[w] for w in words(text) if w in singular))

    def probe_scene(self, rng: random.Random, text: str, k: int) -> tuple[PairScene, bool | None]:
        """A pair for any sentence, and the sentence's truth on it: for a sentence of the
        task's pools, drawn as training drew its pairs (around its nouns); for any other, pairs
        around the nouns it names, others of any noun, truth None (the grammar does not know it).

        Parameters
        ----------
        rng
            The draw's random source.
        text
            The sentence.
        k
            Which of the sentence's probe scenes this is (unused: every pair is drawn alike).
        """
        sentence, world = self._known.get(text, (None, None))
        if sentence is None:
            every = [f.singular for f in world_nouns(self.noun_pool)]
            return random_pair(rng, self.named_nouns(text), every), None
        scene = world.draw_for(sentence)(rng)
        return scene, sentence.label(scene)

    def batch_for(self, examples: Sequence[PairExample]) -> Batch:
        """A batch for pair-world examples: their pairs, sentences (encoded) and labels."""
        tokens, mask = self.encoder.encode([e.sentence for e in examples])
        return self._batch([e.scene for e in examples], [e.label for e in examples], tokens, mask)
