"""``sort-of-clevr``: visual questions about small images of coloured shapes
(``circuitlab.worlds.sort_of_clevr``), for Neural Function Modules and their CNN-MLP baseline.

Fixed pools drawn once from ``data_seed``: ``n_train`` training scenes, ``n_test`` test scenes
of the same distribution and ``n_test`` held-out scenes (colour-shape combinations no training
scene shows; their questions are about an object of such a combination). A batch holds images
(B, 3, S, S) as ``inputs`` and question vectors (B, 12) as ``conditioning``; labels index
``ANSWERS``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from circuitlab.kinds import nfm
from circuitlab.task import Batch
from circuitlab.worlds.sort_of_clevr import ANSWERS, COLOURS, QUESTION_DIM, QUESTIONS, SortOfClevr

__all__ = ["SortOfClevrTask"]

SPLITS = ("train", "test", "heldout")


class SortOfClevrTask:
    """Questions drawn from the pools; ``split_batch(split, n)`` gives a test pool's first n.

    Parameters
    ----------
    conditional
        Must be False (ValueError otherwise): the questions are inputs.
    n_train, n_test
        Training scenes, and scenes of each test pool.
    image_size
        Side S of the images, in pixels.
    data_seed
        Seed of the pools.
    """

    name = "sort-of-clevr"
    objective = "classification"
    model_kinds = (nfm.NAME,)  # the model kinds this task is made for
    conditional = False
    cond_vocab = None
    cond_dim = QUESTION_DIM
    n_classes = len(ANSWERS)

    def __init__(
        self,
        *,
        conditional: bool = False,
        n_train: int = 5000,
        n_test: int = 300,
        image_size: int = 32,
        data_seed: int = 0,
    ) -> None:
        if conditional:
            raise ValueError("sort-of-clevr's questions are inputs: train it unconditional")
        if n_train < 1 or n_test < 1:
            raise ValueError(f"n_train and n_test must be >= 1, got {n_train} and {n_test}")
        self.image_size = image_size
        self.input_dim = 3 * image_size * image_size
        generator = SortOfClevr(size=image_size)
        seeds = np.random.SeedSequence(data_seed).spawn(3)
        sizes = {"train": n_train, "test": n_test, "heldout": n_test}
        self.pools = {
            split: generator.draw(
                sizes[split],
                int(seed.generate_state(1)[0]),
                split="heldout" if split == "heldout" else "train",
            )
            for split, seed in zip(SPLITS, seeds, strict=True)
        }
        # a fixed order of each test pool's questions, so that "the first n" mixes scenes
        self._order = {
            split: np.random.default_rng(k).permutation(len(self.pools[split]["answer"]))
            for k, split in enumerate(SPLITS)
        }

    def _batch(self, split: str, rows: np.ndarray) -> Batch:
        pool = self.pools[split]
        images = torch.from_numpy(pool["images"][pool["scene"][rows]])
        return Batch(
            inputs=images,
            labels=torch.from_numpy(pool["answer"][rows]),
            conditioning=torch.from_numpy(pool["vector"][rows]),
        )

    def sample(self, batch_size: int, seed: int) -> Batch:
        """``batch_size`` training questions drawn uniformly (with their scenes)."""
        rows = np.random.default_rng(seed).integers(
            0, len(self.pools["train"]["answer"]), batch_size
        )
        return self._batch("train", rows)

    def split_batch(self, split: str, batch_size: int) -> Batch:
        """The first ``batch_size`` questions of ``split`` ("train", "test", "heldout") in
        its fixed order (all of them if fewer)."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        return self._batch(split, self._order[split][:batch_size])

    def relational(self, split: str, batch_size: int) -> np.ndarray:
        """Whether each question of ``split_batch(split, batch_size)`` is relational."""
        return self.pools[split]["relational"][self._order[split][:batch_size]]

    def validation(self, batch_size: int, seed: int) -> Batch:
        """The test pool's first ``batch_size`` questions (a fixed split: no seed needed)."""
        return self.split_batch("test", batch_size)

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """The first ``n`` questions of the test pool, then as many of the held-out pool; the
        frame gives each one's question, answer, split and kind."""
        parts, rows = [], []
        for split in ("test", "heldout"):
            order = self._order[split][:n]
            parts.append(self._batch(split, order))
            pool = self.pools[split]
            for row in order:
                colour, question = pool["colour"][row], pool["question"][row]
                kind = "relational" if pool["relational"][row] else "non-relational"
                rows.append(
                    {
                        "text": QUESTIONS[question].format(c=COLOURS[colour]),
                        "label": ANSWERS[pool["answer"][row]],
                        "split": split,
                        "dataset": self.name,
                        "categories": [kind],
                        "question_kind": kind,
                    }
                )
        batch = Batch(
            inputs=torch.cat([p.inputs for p in parts]),
            labels=torch.cat([p.labels for p in parts]),
            conditioning=torch.cat([p.conditioning for p in parts]),
        )
        return batch, pd.DataFrame(rows)
