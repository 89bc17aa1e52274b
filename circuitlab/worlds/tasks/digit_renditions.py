"""``digit-renditions``: the multi-task digit classification of the Neural Interpreters paper
(section 4.2: MNIST, SVHN and MNIST-M learned at once, one CLS token each), with what exists
offline: scikit-learn's 8 x 8 digits (shipped inside the package) drawn in three renditions
that play the three datasets' roles.

- ``plain`` (MNIST): the digit, dark background, light strokes;
- ``inverted`` (SVHN's other polarity and contrast): dark strokes on a light background, the
  contrast drawn in [0.5, 1];
- ``textured`` (MNIST-M): the digit blended into a random grating, |grating - digit| as MNIST-M
  blends digits into photo patches.

Images are the digits resized to 16 x 16 (bilinear), moved by up to one pixel, with gaussian
noise. A token is one 4 x 4 patch (16 pixels) and the patch's position as a one-hot of 16: the
Neural Interpreter embeds tokens with one linear map and has no position encoding of its own.

Labels are (B, 2): the rendition (the task, whose CLS token answers) and the digit; the
objective ``multitask`` is the cross-entropy of the example's own task's outputs
(``circuitlab.predict.objective_loss``). A fixed split of the 1,797 images from ``data_seed``
(``n_test`` held out) serves every rendition: a held-out image is held out in all three.

``new_task_images`` gives the adaptation task that plays K-MNIST's role: classes never seen in
pre-training (procedural objects, ``circuitlab.worlds.object_images``) in the same 16 x 16
tokens.
"""

from __future__ import annotations

import math

import pandas as pd
import torch
import torch.nn.functional as F

from circuitlab.kinds import ni
from circuitlab.task import Batch
from circuitlab.worlds.tasks.digits import split_digits

__all__ = [
    "DIGIT_RENDITIONS",
    "DigitRenditions",
    "TOKEN_DIM",
    "new_task_images",
    "patch_tokens",
    "render",
]

DIGIT_RENDITIONS = ("plain", "inverted", "textured")
IMAGE_SIZE = 16
PATCH = 4
N_PATCHES = (IMAGE_SIZE // PATCH) ** 2
TOKEN_DIM = PATCH * PATCH + N_PATCHES


def patch_tokens(images: torch.Tensor) -> torch.Tensor:
    """Images (B, 16, 16) -> tokens (B, 16, 32): each 4 x 4 patch's pixels (row-major) and its
    position as a one-hot, patches in row-major order.

    Parameters
    ----------
    images
        (B, 16, 16) images.
    """
    b = images.shape[0]
    grid = IMAGE_SIZE // PATCH
    patches = images.reshape(b, grid, PATCH, grid, PATCH).permute(0, 1, 3, 2, 4)
    pixels = patches.reshape(b, N_PATCHES, PATCH * PATCH)
    position = torch.eye(N_PATCHES, dtype=images.dtype).expand(b, -1, -1)
    return torch.cat([pixels, position], dim=-1)


def _resized(images: torch.Tensor) -> torch.Tensor:
    """(N, 64) in [0, 1] -> (N, 16, 16), bilinear."""
    square = images.reshape(-1, 1, 8, 8)
    return F.interpolate(square, size=IMAGE_SIZE, mode="bilinear", align_corners=False)[:, 0]


def _shifted(images: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Each image moved by -1, 0 or 1 pixel on each axis (zeros come in)."""
    out = torch.zeros_like(images)
    dy, dx = torch.randint(-1, 2, (2, len(images)), generator=g)
    for i in range(len(images)):
        y, x = int(dy[i]), int(dx[i])
        src = images[i, max(0, -y) : IMAGE_SIZE - max(0, y), max(0, -x) : IMAGE_SIZE - max(0, x)]
        out[i, max(0, y) : max(0, y) + src.shape[0], max(0, x) : max(0, x) + src.shape[1]] = src
    return out


def _gratings(n: int, g: torch.Generator) -> torch.Tensor:
    """``n`` random sinusoidal gratings in [0, 1], (n, 16, 16): random period 3-8 px, angle,
    phase and amplitude 0.4-1."""
    coords = torch.arange(IMAGE_SIZE, dtype=torch.float32)
    yy, xx = torch.meshgrid(coords, coords, indexing="ij")
    angle = torch.rand(n, 1, 1, generator=g) * math.pi
    period = 3 + 5 * torch.rand(n, 1, 1, generator=g)
    phase = torch.rand(n, 1, 1, generator=g) * 2 * math.pi
    amplitude = 0.4 + 0.6 * torch.rand(n, 1, 1, generator=g)
    wave = torch.sin(2 * math.pi * (xx * angle.cos() + yy * angle.sin()) / period + phase)
    return 0.5 + 0.5 * amplitude * wave


def render(images: torch.Tensor, rendition: str, g: torch.Generator) -> torch.Tensor:
    """16 x 16 digits in [0, 1] (N, 16, 16) drawn in ``rendition``, moved and with noise.

    Parameters
    ----------
    images, rendition
        As above.
    g
        The random generator.
    """
    if rendition not in DIGIT_RENDITIONS:
        raise ValueError(f"rendition must be one of {DIGIT_RENDITIONS}, got {rendition!r}")
    x = _shifted(images, g)
    if rendition == "inverted":
        contrast = 0.5 + 0.5 * torch.rand(len(x), 1, 1, generator=g)
        x = 1.0 - contrast * x
    elif rendition == "textured":
        x = (_gratings(len(x), g) - x).abs()
    noise = 0.05 if rendition == "plain" else 0.1
    return (x + noise * torch.randn(x.shape, generator=g)).clamp(0.0, 1.0)


class DigitRenditions:
    """``digit-renditions``: 3 tasks (renditions) of 10 digits; tokens (B, 16, 32).

    Parameters
    ----------
    conditional
        Must be False: the task has no sentences (ValueError otherwise).
    n_test
        Images of the 1,797 held out (in every rendition).
    data_seed
        Seed of the split.
    """

    name = "digit-renditions"
    objective = "multitask"
    model_kinds = (ni.NAME,)
    conditional = False
    cond_vocab = None
    cond_dim = None
    input_dim = TOKEN_DIM
    n_classes = 10
    task_names = DIGIT_RENDITIONS
    n_tasks = len(DIGIT_RENDITIONS)

    def __init__(self, *, conditional: bool = False, n_test: int = 540, data_seed: int = 0) -> None:
        if conditional:
            raise ValueError("digit-renditions has no sentences: train it unconditional")
        train_x, self.train_labels, test_x, self.test_labels = split_digits(n_test, data_seed)
        self.train_images, self.test_images = _resized(train_x), _resized(test_x)

    def token_names(self) -> list[str]:
        grid = IMAGE_SIZE // PATCH
        return [f"patch {r},{c}" for r in range(grid) for c in range(grid)]

    def _batch(self, pool: str, task_ids: torch.Tensor, rows: torch.Tensor, seed: int) -> Batch:
        images = self.train_images if pool == "train" else self.test_images
        labels = self.train_labels if pool == "train" else self.test_labels
        g = torch.Generator().manual_seed(seed)
        drawn = torch.empty(len(rows), IMAGE_SIZE, IMAGE_SIZE)
        for k, rendition in enumerate(DIGIT_RENDITIONS):
            pick = (task_ids == k).nonzero().flatten()
            if len(pick):
                drawn[pick] = render(images[rows[pick]], rendition, g)
        return Batch(patch_tokens(drawn), torch.stack([task_ids, labels[rows]], dim=1))

    def sample(self, batch_size: int, seed: int) -> Batch:
        """Training images, the renditions in turn (an equal share each), labels (B, 2)."""
        g = torch.Generator().manual_seed(seed)
        rows = torch.randint(0, len(self.train_labels), (batch_size,), generator=g)
        task_ids = torch.arange(batch_size) % self.n_tasks
        return self._batch("train", task_ids, rows, seed + 1)

    def validation(self, batch_size: int, seed: int) -> Batch:
        """Held-out images, the renditions in turn: example i is image i // 3 in rendition
        i % 3 (the first ``3 * n_test`` examples cover every held-out image in each)."""
        index = torch.arange(batch_size)
        rows = (index // self.n_tasks) % len(self.test_labels)
        return self._batch("test", index % self.n_tasks, rows, seed + 7)

    def rendition(self, name: str, batch_size: int, seed: int) -> Batch:
        """The first ``batch_size`` held-out images in rendition ``name`` alone."""
        if name not in DIGIT_RENDITIONS:
            raise ValueError(f"rendition must be one of {DIGIT_RENDITIONS}, got {name!r}")
        rows = torch.arange(batch_size) % len(self.test_labels)
        task_ids = torch.full((batch_size,), DIGIT_RENDITIONS.index(name))
        return self._batch("test", task_ids, rows, seed + 7)

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """``n`` held-out examples (the renditions in turn), described by rendition and digit."""
        batch = self.validation(n, seed)
        tasks, digits = batch.labels[:, 0].tolist(), batch.labels[:, 1].tolist()
        names = [DIGIT_RENDITIONS[t] for t in tasks]
        frame = pd.DataFrame(
            {
                "text": [f"{r} digit {d}" for r, d in zip(names, digits, strict=True)],
                "label": [str(d) for d in digits],
                "split": "test",
                "dataset": self.name,
                "categories": [[r] for r in names],
            }
        )
        return batch, frame


def new_task_images(
    n_shots: int, seed: int, n_queries: int = 100, class_seed: int = 0
) -> tuple[Batch, Batch]:
    """The adaptation task in K-MNIST's role: 8 classes of procedural objects no pre-training
    image showed (``ObjectImages.few_shot``'s held-out classes, drawn at 16 x 16 with no
    distractors), as patch tokens: ``n_shots`` support and ``n_queries`` query images per
    class, labels (B,) in 0..7.

    Parameters
    ----------
    n_shots
        Support images per class.
    seed
        Seed of the support and query images.
    n_queries
        Query images per class.
    class_seed
        Seed of the classes.
    """
    from circuitlab.worlds.tasks.object_images import ObjectImages

    objects = ObjectImages(
        size=IMAGE_SIZE, distractors=0, noise=0.05, jitter=1.0, class_seed=class_seed
    )
    support, query = objects.few_shot(n_shots, seed, n_queries=n_queries)

    def tokens(batch: Batch) -> Batch:
        return Batch(patch_tokens(batch.inputs[:, 0].clamp(0.0, 1.0)), batch.labels)

    return tokens(support), tokens(query)
