"""``object-images``: classify procedural objects made of parts
(``circuitlab.worlds.object_images``), an image task in the spirit of Tiny-ImageNet with the
held-out splits the paper's claims need:

- training and validation: ``n_classes`` classes (24) in the ``filled`` style;
- ``rendition(name, ...)`` / ``out_of_distribution``: the same classes in held-out styles
  (outline, texture, sketch, inverted), the role ImageNet-R plays in the paper;
- ``few_shot(n_shots, seed)``: ``n_few_shot_classes`` (8) classes never drawn in training,
  labelled 0..7, for adaptation.

Images are (1, size, size), read by the NAC's patch tokenizer (``read_in: {tokenizer: patches}``,
``input_dim`` 1 channel). Every split draws from its own seeded stream, so no two splits share
an image.
"""

from __future__ import annotations

import torch

from circuitlab.task import Batch
from circuitlab.worlds.object_images import (
    HELD_OUT_RENDITIONS,
    RENDITIONS,
    TRAINING_RENDITION,
    ObjectClass,
    draw_images,
    make_classes,
)

__all__ = ["ObjectImages"]

# each split's stream: seed s of split k draws from torch seed s * len(SPLITS) + k
SPLITS = ("train", "validation", "rendition", "few_shot_support", "few_shot_query")


def split_generator(split: str, seed: int) -> torch.Generator:
    """The generator of ``split``'s draws for ``seed``: disjoint streams per split."""
    return torch.Generator().manual_seed((seed * len(SPLITS) + SPLITS.index(split)) % 2**63)


class ObjectImages:
    """``object-images``: 24 classes of three-part objects, 32 x 32 pixels, one channel.

    The defaults make the objects hard to pick out of their surroundings: 2 distractor parts of
    about a part's size (``distractor_size`` 0.9) anywhere in the image, the object moved by up
    to 3 pixels, noise 0.1. With smaller distractors (0.45, jitter 2, noise 0.08) the NAC of
    configs/object-images/nac.yaml read 0.97 on validation after 1,250 of its 4,000 steps; with
    these, 0.78 at 750 steps (0.94 before).

    Parameters
    ----------
    conditional
        Must be False: the task has no sentences (ValueError otherwise).
    n_classes
        Training classes.
    n_few_shot_classes
        Classes never drawn in training, for ``few_shot``.
    size, distractors, noise, jitter, distractor_size
        How an image is drawn (``circuitlab.worlds.object_images``): its side in pixels, the
        distractor parts, the pixel noise, how far the object moves, and the distractors' size.
    class_seed
        Seed of the classes' parts.
    """

    name = "object-images"
    conditional = False
    cond_vocab = None
    cond_dim = None
    input_dim = 1  # channels, for the patch tokenizer

    def __init__(
        self,
        *,
        conditional: bool = False,
        n_classes: int = 24,
        n_few_shot_classes: int = 8,
        size: int = 32,
        distractors: int = 2,
        noise: float = 0.1,
        jitter: float = 3.0,
        distractor_size: float = 0.9,
        class_seed: int = 0,
    ) -> None:
        if conditional:
            raise ValueError("object-images has no sentences: train it unconditional")
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        if n_few_shot_classes < 0:
            raise ValueError(f"n_few_shot_classes must be >= 0, got {n_few_shot_classes}")
        if size < 16 or size % 4:
            raise ValueError(f"size must be a multiple of 4 and >= 16, got {size}")
        if distractors < 0 or noise < 0:
            raise ValueError(f"distractors and noise must be >= 0, got {distractors}, {noise}")
        every = make_classes(n_classes + n_few_shot_classes, seed=class_seed)
        # interleaved so the held-out classes are spread over the families, not one block
        self.few_shot_classes: list[ObjectClass] = every[2::4][:n_few_shot_classes]
        if len(self.few_shot_classes) < n_few_shot_classes:
            raise ValueError(
                f"{n_few_shot_classes} few-shot classes are more than a quarter of the "
                f"{len(every)} classes drawn; ask for at most {len(every[2::4])}"
            )
        held = set(self.few_shot_classes)
        self.classes: list[ObjectClass] = [c for c in every if c not in held]
        self.n_classes = n_classes
        self.image_shape = [1, size, size]
        self.drawing = dict(
            size=size,
            distractors=distractors,
            noise=noise,
            jitter=jitter,
            distractor_size=distractor_size,
        )

    def _draw(
        self, classes: list[ObjectClass], labels: torch.Tensor, g: torch.Generator, rendition: str
    ) -> Batch:
        images = draw_images(classes, labels, g, rendition=rendition, **self.drawing)
        return Batch(images, labels)

    def _labelled(self, split: str, batch_size: int, seed: int, rendition: str) -> Batch:
        g = split_generator(split, seed)
        labels = torch.randint(0, self.n_classes, (batch_size,), generator=g)
        return self._draw(self.classes, labels, g, rendition)

    def sample(self, batch_size: int, seed: int) -> Batch:
        """Training images (B, 1, size, size) in the training style, labels (B,)."""
        return self._labelled("train", batch_size, seed, TRAINING_RENDITION)

    def validation(self, batch_size: int, seed: int) -> Batch:
        """Fresh images of the training classes and style, from the validation stream."""
        return self._labelled("validation", batch_size, seed, TRAINING_RENDITION)

    def rendition(self, name: str, batch_size: int, seed: int) -> Batch:
        """The training classes drawn in style ``name`` (one of ``RENDITIONS``)."""
        if name not in RENDITIONS:
            raise ValueError(f"rendition must be one of {RENDITIONS}, got {name!r}")
        return self._labelled(
            "rendition", batch_size, seed * len(RENDITIONS) + RENDITIONS.index(name), name
        )

    def out_of_distribution(self, batch_size: int, seed: int) -> Batch:
        """The training classes in the held-out styles, an equal share each (in order)."""
        shares = [batch_size // len(HELD_OUT_RENDITIONS)] * len(HELD_OUT_RENDITIONS)
        shares[-1] += batch_size - sum(shares)
        parts = [
            self.rendition(name, n, seed)
            for name, n in zip(HELD_OUT_RENDITIONS, shares, strict=True)
        ]
        return Batch(torch.cat([p.inputs for p in parts]), torch.cat([p.labels for p in parts]))

    def few_shot(self, n_shots: int, seed: int, n_queries: int = 50) -> tuple[Batch, Batch]:
        """Adaptation data for the classes never trained on: ``n_shots`` support images per
        class and ``n_queries`` query images per class, labels 0..n_few_shot_classes - 1, in
        the training style. Support and query come from separate streams."""
        k = len(self.few_shot_classes)
        if k < 2:
            raise ValueError("few_shot needs n_few_shot_classes >= 2")
        if n_shots < 1 or n_queries < 1:
            raise ValueError(f"n_shots and n_queries must be >= 1, got {n_shots}, {n_queries}")
        support_labels = torch.arange(k).repeat_interleave(n_shots)
        query_labels = torch.arange(k).repeat_interleave(n_queries)
        support = self._draw(
            self.few_shot_classes,
            support_labels,
            split_generator("few_shot_support", seed),
            TRAINING_RENDITION,
        )
        query = self._draw(
            self.few_shot_classes,
            query_labels,
            split_generator("few_shot_query", seed),
            TRAINING_RENDITION,
        )
        return support, query

    def circuit_inputs(self, n: int, seed: int):  # noqa: ANN201 (the Task protocol's)
        raise ValueError("an unconditional task has a single circuit; nothing to enumerate")
