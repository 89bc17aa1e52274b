"""``digits``: scikit-learn's 8 x 8 handwritten digits (1,797 images, shipped inside the
package: nothing is downloaded), as a finite image-classification task for Modular Networks.

A fixed split drawn from ``data_seed`` (independent of the run's seed): ``n_test`` held-out
images, the rest for training. Pixels are scaled to [0, 1]; inputs are the flattened 64 pixels
(the model reads them as (1, 8, 8) images through ``image_shape``).
"""

from __future__ import annotations

import pandas as pd
import torch

from circuitlab.kinds import mn
from circuitlab.task import Batch, sample_rows

__all__ = ["Digits", "split_digits"]


def load_digits_tensors() -> tuple[torch.Tensor, torch.Tensor]:
    """All 1,797 images (N, 64) in [0, 1] and their labels (N,)."""
    from sklearn.datasets import load_digits

    data = load_digits()
    return torch.tensor(data.data / 16.0, dtype=torch.float32), torch.tensor(data.target)


def split_digits(
    n_test: int, data_seed: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The fixed split drawn from ``data_seed``: (train images (N - n_test, 64), their labels,
    test images (n_test, 64), their labels).

    Parameters
    ----------
    n_test
        Images held out.
    data_seed
        Seed of the split.
    """
    images, labels = load_digits_tensors()
    if not 1 <= n_test < len(labels):
        raise ValueError(f"n_test must be in 1..{len(labels) - 1}, got {n_test}")
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(data_seed))
    test, train = order[:n_test], order[n_test:]
    return images[train], labels[train], images[test], labels[test]


class Digits:
    """``digits``: 10 classes, 64 pixels per image.

    Parameters
    ----------
    conditional
        Must be False: the task has no sentences (ValueError otherwise).
    n_test
        Images of the 1,797 held out.
    data_seed
        Seed of the split.
    """

    name = "digits"
    objective = "classification"
    model_kinds = (mn.NAME,)  # the model kinds this task is made for
    conditional = False
    cond_vocab = None
    cond_dim = None
    input_dim = 64
    image_shape = [1, 8, 8]
    n_classes = 10

    def __init__(self, *, conditional: bool = False, n_test: int = 540, data_seed: int = 0) -> None:
        if conditional:
            raise ValueError("digits has no sentences: train it unconditional")
        self.train_x, self.train_y, self.test_x, self.test_y = split_digits(n_test, data_seed)
        self.n_train = len(self.train_y)

    def sample(self, batch_size: int, seed: int) -> Batch:
        """``batch_size`` distinct training images (all of them if fewer), with their rows."""
        return sample_rows(self.train_x, self.train_y, batch_size, seed)

    def validation(self, batch_size: int, seed: int) -> Batch:
        """The first ``batch_size`` held-out images (a fixed split: the seed is not needed)."""
        return Batch(self.test_x[:batch_size], self.test_y[:batch_size])

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """The first ``n`` held-out images; ``label`` is the digit."""
        batch = self.validation(n, seed)
        labels = [str(v) for v in batch.labels.tolist()]
        frame = pd.DataFrame(
            {
                "text": [f"digit {v}" for v in labels],
                "label": labels,
                "split": "test",
                "dataset": self.name,
                "categories": [[f"digit {v}"] for v in labels],
            }
        )
        return batch, frame
