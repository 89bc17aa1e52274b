"""Sort-of-CLEVR (Santoro et al. 2017), our own generator: small images of coloured shapes, and
relational and non-relational questions about them, answered from the scene.

A scene holds one object of each of the six colours, each a square or a circle at its own
position (no two overlap). For a colour c the questions are:

- non-relational: 0 "what shape is c?" (square / circle), 1 "is c on the left?" (its centre
  left of the image's middle), 2 "is c at the top?";
- relational: 3 "what shape is the object closest to c?", 4 "... furthest from c?",
  5 "how many objects have c's shape?" (c included: 1..6).

A question is a 12-vector: the colour one-hot, then the question one-hot. Answers are indices
into ``ANSWERS``. Everything is drawn from a seed; a colour always has the same RGB value.

The held-out split: some colour-shape combinations (``HELD_OUT``) never appear in a training
scene, and every held-out scene shows at least one of them, with its questions about an object
of a held-out combination (``SortOfClevr.draw(..., split="heldout")``). A colour keeps its
meaning in both: only which shape it wears changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ANSWERS",
    "COLOURS",
    "QUESTIONS",
    "QUESTION_DIM",
    "RGB",
    "Scene",
    "SortOfClevr",
    "answer",
    "encode_question",
    "held_out_pairs",
    "render",
]

COLOURS = ["red", "green", "blue", "orange", "gray", "yellow"]
RGB = np.array(
    [
        [0.9, 0.1, 0.1],
        [0.1, 0.7, 0.1],
        [0.1, 0.2, 0.9],
        [1.0, 0.6, 0.0],
        [0.5, 0.5, 0.5],
        [0.95, 0.9, 0.1],
    ],
    dtype=np.float32,
)
SHAPES = ["square", "circle"]
QUESTIONS = [
    "what shape is the {c} object?",
    "is the {c} object on the left?",
    "is the {c} object at the top?",
    "what shape is the object closest to the {c} object?",
    "what shape is the object furthest from the {c} object?",
    "how many objects have the shape of the {c} object?",
]
RELATIONAL = {3, 4, 5}
ANSWERS = ["yes", "no", "square", "circle", "1", "2", "3", "4", "5", "6"]
# (colour, shape) combinations no training scene shows
HELD_OUT = [("red", "circle"), ("blue", "square"), ("yellow", "circle")]
QUESTION_DIM = len(COLOURS) + len(QUESTIONS)


@dataclass
class Scene:
    """Object k has colour k: ``shapes`` (6,) indices into SHAPES, ``centres`` (6, 2) (x, y)
    in pixels, x to the right and y down; ``size`` the image's side, ``radius`` the objects'
    half-width.

    Parameters
    ----------
    shapes, centres, size, radius
        As above.
    """

    shapes: np.ndarray
    centres: np.ndarray
    size: int
    radius: float


def answer(scene: Scene, colour: int, question: int) -> int:
    """The index in ANSWERS of ``question`` (0-5) about the object of ``colour`` (0-5).

    Parameters
    ----------
    scene
        The scene.
    colour, question
        As above.
    """
    shape, (x, y) = scene.shapes[colour], scene.centres[colour]
    if question == 0:
        return ANSWERS.index(SHAPES[shape])
    if question in (1, 2):
        coordinate = x if question == 1 else y
        return ANSWERS.index("yes" if coordinate < scene.size / 2 else "no")
    if question in (3, 4):
        distance = np.linalg.norm(scene.centres - scene.centres[colour], axis=1)
        distance[colour] = np.inf if question == 3 else -np.inf
        other = int(distance.argmin() if question == 3 else distance.argmax())
        return ANSWERS.index(SHAPES[scene.shapes[other]])
    if question == 5:
        return ANSWERS.index(str(int((scene.shapes == shape).sum())))
    raise ValueError(f"question must be 0..{len(QUESTIONS) - 1}, got {question}")


def render(scene: Scene) -> np.ndarray:
    """The scene as an image (3, size, size) float32 in [0, 1] on a white background.

    Parameters
    ----------
    scene
        The scene.
    """
    size, r = scene.size, scene.radius
    image = np.ones((3, size, size), dtype=np.float32)
    ys, xs = np.mgrid[0:size, 0:size] + 0.5
    for colour, (shape, (cx, cy)) in enumerate(zip(scene.shapes, scene.centres, strict=True)):
        if SHAPES[shape] == "circle":
            mask = (xs - cx) ** 2 + (ys - cy) ** 2 <= r**2
        else:
            mask = (np.abs(xs - cx) <= r) & (np.abs(ys - cy) <= r)
        image[:, mask] = RGB[colour][:, None]
    return image


def encode_question(colour: int, question: int) -> np.ndarray:
    """The 12-vector of ``question`` about ``colour``: colour one-hot, then question one-hot.

    Parameters
    ----------
    colour, question
        The object's colour and the question, 0-5.
    """
    vector = np.zeros(QUESTION_DIM, dtype=np.float32)
    vector[colour] = 1
    vector[len(COLOURS) + question] = 1
    return vector


def held_out_pairs() -> set[tuple[int, int]]:
    """HELD_OUT as (colour index, shape index) pairs."""
    return {(COLOURS.index(c), SHAPES.index(s)) for c, s in HELD_OUT}


class SortOfClevr:
    """Seeded scenes and questions. ``size``: image side in pixels; ``radius``: the objects'
    half-width; objects' centres at least ``2 radius + 1`` apart.

    Parameters
    ----------
    size, radius
        As above.
    """

    def __init__(self, size: int = 32, radius: float = 2.5) -> None:
        if size < 8 * radius:
            raise ValueError(f"size {size} is too small for six objects of radius {radius}")
        self.size, self.radius = size, radius
        self.held_out = held_out_pairs()

    def scene(self, rng: np.random.Generator, split: str = "train") -> Scene:
        """A scene of ``split``: "train" (no held-out combination) or "heldout" (at least one);
        "any" draws shapes freely."""
        if split not in ("train", "heldout", "any"):
            raise ValueError(f"split must be 'train', 'heldout' or 'any', got {split!r}")
        while True:
            shapes = rng.integers(0, len(SHAPES), len(COLOURS))
            shown = {(c, int(s)) for c, s in enumerate(shapes)} & self.held_out
            if split == "any" or (split == "train") == (not shown):
                break
        return Scene(shapes, self._centres(rng), self.size, self.radius)

    def _centres(self, rng: np.random.Generator) -> np.ndarray:
        low, high = self.radius + 0.5, self.size - self.radius - 0.5
        gap = 2 * self.radius + 1
        while True:
            centres = rng.uniform(low, high, size=(len(COLOURS), 2))
            distance = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
            if (distance[np.triu_indices(len(COLOURS), 1)] >= gap).all():
                return centres.astype(np.float32)

    def draw(self, n_scenes: int, seed: int, split: str = "train") -> dict[str, np.ndarray]:
        """``n_scenes`` scenes with every question about every colour (36 per scene; for the
        held-out split only those about an object of a held-out combination): ``images``
        (n_scenes, 3, size, size), and per question ``scene`` (its image's row), ``colour``,
        ``question``, ``vector`` (Q, 12), ``answer`` and ``relational``."""
        rng = np.random.default_rng(seed)
        images, rows = [], []
        for index in range(n_scenes):
            scene = self.scene(rng, split)
            images.append(render(scene))
            for colour in range(len(COLOURS)):
                if split == "heldout" and (colour, int(scene.shapes[colour])) not in self.held_out:
                    continue
                for question in range(len(QUESTIONS)):
                    rows.append((index, colour, question, answer(scene, colour, question)))
        table = np.array(rows, dtype=np.int64).reshape(-1, 4)
        return {
            "images": np.stack(images),
            "scene": table[:, 0],
            "colour": table[:, 1],
            "question": table[:, 2],
            "answer": table[:, 3],
            "relational": np.isin(table[:, 2], list(RELATIONAL)),
            "vector": np.stack([encode_question(c, q) for c, q in table[:, 1:3]]),
        }
