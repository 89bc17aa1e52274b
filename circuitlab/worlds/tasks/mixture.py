"""The regression toy of Modular Networks (Kirsch et al. 2018, section 3.1): a 2-D mixture whose
components are each transformed by their own linear function.

x is drawn from one of ``components`` Gaussian clusters (centres on a circle of radius 3,
standard deviation 0.4: even 8 clusters barely overlap) and y = T_c x with the component's own
matrix T_c (rotations, scalings, a shear, a reflection). One linear module cannot fit two
components; a module per component can, if the controller learns to tell the clusters apart.

A finite dataset: ``n_train`` training and ``n_test`` held-out examples drawn once from
``data_seed`` (independent of the run's seed), so that Viterbi EM can keep one best path per
training example (``Batch.index``).
"""

from __future__ import annotations

import math

import pandas as pd
import torch

from circuitlab.kinds import mn
from circuitlab.task import Batch, sample_rows

__all__ = ["MixtureRegression", "TRANSFORMS"]


def _rotation(degrees: float) -> list[list[float]]:
    a = math.radians(degrees)
    return [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]


# (name, matrix) of each component, in order: two components use the first two
TRANSFORMS: list[tuple[str, list[list[float]]]] = [
    ("rotate 90", _rotation(90)),
    ("scale 2", [[2.0, 0.0], [0.0, 2.0]]),
    ("rotate -135", _rotation(-135)),
    ("scale 0.5", [[0.5, 0.0], [0.0, 0.5]]),
    ("rotate 45", _rotation(45)),
    ("scale -1", [[-1.0, 0.0], [0.0, -1.0]]),
    ("shear", [[1.0, 1.0], [0.0, 1.0]]),
    ("reflect", [[1.0, 0.0], [0.0, -1.0]]),
]
RADIUS, SPREAD = 3.0, 0.4


def draw_mixture(n: int, components: int, seed: int) -> tuple[torch.Tensor, ...]:
    """``n`` examples: x (n, 2), y (n, 2) and their component (n,)."""
    g = torch.Generator().manual_seed(seed)
    component = torch.randint(components, (n,), generator=g)
    angles = 2 * math.pi * component.float() / components
    centres = RADIUS * torch.stack([angles.cos(), angles.sin()], 1)
    x = centres + SPREAD * torch.randn(n, 2, generator=g)
    matrices = torch.tensor([m for _, m in TRANSFORMS[:components]])[component]  # (n, 2, 2)
    y = torch.einsum("nij,nj->ni", matrices, x)
    return x, y, component


class MixtureRegression:
    """``mixture-regression``: y = T_c x on a ``components``-cluster 2-D mixture.

    Parameters
    ----------
    conditional
        Must be False: the task has no sentences (ValueError otherwise).
    components
        Gaussian clusters, each with its own linear map.
    n_train, n_test
        Training and held-out examples.
    data_seed
        Seed of the dataset.
    """

    name = "mixture-regression"
    objective = "regression"
    model_kinds = (mn.NAME,)  # the model kinds this task is made for
    conditional = False
    cond_vocab = None
    cond_dim = None
    input_dim = 2
    n_outputs = 2
    n_classes = 2  # one output per target coordinate

    def __init__(
        self,
        *,
        conditional: bool = False,
        components: int = 2,
        n_train: int = 2000,
        n_test: int = 1000,
        data_seed: int = 0,
    ) -> None:
        if conditional:
            raise ValueError("mixture-regression has no sentences: train it unconditional")
        if not 1 <= components <= len(TRANSFORMS):
            raise ValueError(f"components must be in 1..{len(TRANSFORMS)}, got {components}")
        if n_train < 1 or n_test < 1:
            raise ValueError(f"n_train and n_test must be >= 1, got {n_train} and {n_test}")
        self.components = components
        self.component_names = [name for name, _ in TRANSFORMS[:components]]
        x, y, c = draw_mixture(n_train + n_test, components, data_seed)
        self.train_x, self.train_y, self.train_c = x[:n_train], y[:n_train], c[:n_train]
        self.test_x, self.test_y, self.test_c = x[n_train:], y[n_train:], c[n_train:]
        self.n_train = n_train

    def sample(self, batch_size: int, seed: int) -> Batch:
        """``batch_size`` distinct training examples (all of them if fewer), with their rows."""
        return sample_rows(self.train_x, self.train_y, batch_size, seed)

    def validation(self, batch_size: int, seed: int) -> Batch:
        """The first ``batch_size`` held-out examples (the seed is not needed: a fixed split)."""
        return Batch(self.test_x[:batch_size], self.test_y[:batch_size])

    def test_components(self, n: int | None = None) -> torch.Tensor:
        """The component of each held-out example, in ``validation``'s order."""
        return self.test_c[:n]

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """The first ``n`` held-out examples; ``label`` names each one's component."""
        batch = self.validation(n, seed)
        components = self.test_c[: len(batch)].tolist()
        frame = pd.DataFrame(
            {
                "text": [f"x = ({a:.2f}, {b:.2f})" for a, b in batch.inputs.tolist()],
                "label": [self.component_names[c] for c in components],
                "split": "test",
                "dataset": self.name,
                "categories": [[self.component_names[c]] for c in components],
            }
        )
        return batch, frame
