"""Fuzzy Boolean recomposition (Neural Interpreters, section 4.1): regress many fuzzy Boolean
functions of the same variables at once, one CLS token per function.

``n_tables`` random truth tables over ``n_variables`` variables are drawn from ``table_seed``;
the first ``n_pretrain`` are the pre-training functions, the rest are held out for adaptation
(``functions="adapt"``). A truth table T becomes a fuzzy function through its disjunctive normal
form in product logic (AND a*b, OR a + b - ab, NOT 1 - a):

    f(x) = 1 - prod_{b : T(b) = 1} (1 - m_b(x)),   m_b(x) = prod_k (x_k if b_k else 1 - x_k),

which equals T on the corners of [0, 1]^n. Inputs x are uniform on [0, 1]^n; variable k enters
as the token [x_k, one-hot(k)]. The score is R^2 (per function, averaged).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import torch

from circuitlab.task import Batch

__all__ = ["FuzzyBoolean", "corners", "fuzzy_evaluate", "r_squared", "truth_tables"]

FUNCTION_SETS = ("pretrain", "adapt")


def truth_tables(n_tables: int, n_variables: int, seed: int) -> torch.Tensor:
    """Random truth tables, (n_tables, 2**n_variables) of 0/1, none constant.

    Parameters
    ----------
    n_tables, n_variables
        Tables, and the variables of each.
    seed
        Seed of the tables.
    """
    rng = np.random.default_rng(seed)
    tables = []
    while len(tables) < n_tables:
        table = rng.integers(0, 2, 2**n_variables)
        if 0 < table.sum() < len(table):
            tables.append(table)
    return torch.tensor(np.stack(tables), dtype=torch.float32)


def corners(n_variables: int) -> torch.Tensor:
    """Every 0/1 assignment, (2**n, n), row b = the bits of b (variable 0 most significant).

    Parameters
    ----------
    n_variables
        Variables n.
    """
    return torch.tensor(list(itertools.product((0.0, 1.0), repeat=n_variables)))


def fuzzy_evaluate(tables: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The product-logic DNF of each table at x: tables (F, 2**n), x (B, n) -> (B, F).

    Parameters
    ----------
    tables, x
        As above.
    """
    bits = corners(x.shape[1])  # (2**n, n)
    literals = torch.where(bits.bool(), x[:, None, :], 1.0 - x[:, None, :])  # (B, 2**n, n)
    minterms = literals.prod(-1)  # (B, 2**n)
    # OR over the table's true rows: 1 - prod(1 - m); false rows contribute a factor 1
    return 1.0 - torch.exp(torch.log1p(-minterms.clamp(max=1 - 1e-7)) @ tables.T)


def r_squared(predictions: torch.Tensor, targets: torch.Tensor) -> float:
    """Mean over outputs of 1 - SSE / SST: (B, F), (B, F) -> float.

    Parameters
    ----------
    predictions, targets
        (B, F) each.
    """
    residual = ((targets - predictions) ** 2).sum(0)
    total = ((targets - targets.mean(0)) ** 2).sum(0).clamp_min(1e-12)
    return float((1.0 - residual / total).mean())


class FuzzyBoolean:
    """Seeded batches of x ~ U[0, 1]^n as tokens (B, n, 1 + n) and targets (B, F).

    Parameters
    ----------
    conditional
        Must be False: the task has no sentences (ValueError otherwise).
    n_variables
        Variables n of every function.
    n_tables
        Random truth tables drawn.
    n_pretrain
        The first ``n_pretrain`` tables are the pre-training functions; the rest are held out.
    table_seed
        Seed of the tables.
    functions
        "pretrain" (the first ``n_pretrain``) or "adapt" (the held-out ones).
    """

    name = "fuzzy-boolean"
    objective = "regression"
    conditional = False
    cond_vocab = None
    cond_dim = None

    def __init__(
        self,
        *,
        conditional: bool = False,
        n_variables: int = 5,
        n_tables: int = 30,
        n_pretrain: int = 20,
        table_seed: int = 0,
        functions: str = "pretrain",
    ) -> None:
        if conditional:
            raise ValueError("fuzzy-boolean has no sentences: train it unconditional")
        if functions not in FUNCTION_SETS:
            raise ValueError(f"functions must be one of {FUNCTION_SETS}, got {functions!r}")
        if not 0 < n_pretrain < n_tables:
            raise ValueError(f"need 0 < n_pretrain < n_tables, got {n_pretrain}, {n_tables}")
        self.n_variables = n_variables
        self.functions = functions
        tables = truth_tables(n_tables, n_variables, table_seed)
        self.tables = tables[:n_pretrain] if functions == "pretrain" else tables[n_pretrain:]
        self.n_outputs = len(self.tables)
        self.n_classes = self.n_outputs  # one output per function (a regression target each)
        self.input_dim = 1 + n_variables

    def token_names(self) -> list[str]:
        return [f"x{k}" for k in range(self.n_variables)]

    def tokens(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, n) -> tokens (B, n, 1 + n): the value and the variable's one-hot."""
        eye = torch.eye(self.n_variables).expand(len(x), -1, -1)
        return torch.cat([x.unsqueeze(-1), eye], dim=-1)

    def _draw(self, batch_size: int, seed: int) -> Batch:
        generator = torch.Generator().manual_seed(seed)
        x = torch.rand(batch_size, self.n_variables, generator=generator)
        return Batch(self.tokens(x), fuzzy_evaluate(self.tables, x))

    def sample(self, batch_size: int, seed: int) -> Batch:
        return self._draw(batch_size, seed)

    def validation(self, batch_size: int, seed: int) -> Batch:
        return self._draw(batch_size, seed + 1_000_003)

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """``n`` inputs, each described by its values ("x = 0.12 0.80 ...")."""
        batch = self.validation(n, seed)
        values = batch.inputs[:, :, 0]
        frame = pd.DataFrame(
            {
                "text": ["x = " + " ".join(f"{v:.2f}" for v in row) for row in values.tolist()],
                "label": "",
                "split": "validation",
                "dataset": self.name,
                "categories": [[] for _ in range(n)],
            }
        )
        return batch, frame
