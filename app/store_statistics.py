"""Statistics over a store's circuits that the app's panels read: each module's strength in
every circuit (absolute and relative to its circuit), by category, every circuit's P
z-scored within itself, a category's mean P, a selection against the rest."""

from __future__ import annotations

import numpy as np
import pandas as pd

from circuitlab.store import CircuitStore

__all__ = ["StoreStatistics", "within_z"]


def within_z(p: np.ndarray) -> np.ndarray:
    """(U, U) link probabilities z-scored over the circuit's own off-diagonal links (its
    density and spread factored out; the diagonal set to 0).

    Parameters
    ----------
    p
        (U, U) link probabilities.
    """
    off = ~np.eye(len(p), dtype=bool)
    spread = p[off].std()
    z = (p - p[off].mean()) / (spread if spread > 0 else 1.0)
    return np.where(off, z, 0.0)


class StoreStatistics:
    """Computed on first use and kept. ``frame``: the store's rows (with ``categories`` as
    lists of strings where the store tags its circuits); ``categories``: the sorted tags.

    Parameters
    ----------
    store
        A NAC store.
    frame, categories
        As above.
    """

    def __init__(self, store: CircuitStore, frame: pd.DataFrame, categories: list[str]) -> None:
        self.store, self.frame, self.categories = store, frame, categories
        self.n_modules = store.meta["n_modules"]
        self._strength: np.ndarray | None = None
        self._z_stack: np.ndarray | None = None
        self._category_rows: dict[str, np.ndarray] | None = None

    def mean_p(self, category: str) -> np.ndarray:
        """(U, U) mean P of the store circuits tagged ``category``."""
        rows = self.category_rows().get(category) if "categories" in self.frame else None
        if rows is None or not rows.any():
            raise ValueError(f"no circuit is tagged {category!r}")
        return self.store.mean_link_probability(np.flatnonzero(rows))

    def module_strength(self) -> np.ndarray:
        """(N, U) summed link probability of every module in every circuit (computed once)."""
        if self._strength is None:
            out = np.empty((len(self.store), self.n_modules), dtype=np.float32)
            for start, p in self.store.link_probability_batches(batch=1024):
                out[start : start + len(p)] = p.sum(axis=2) - 1.0
            self._strength = out
        return self._strength

    def relative_strength(self) -> np.ndarray:
        """(N, U) each module's strength z-scored within its circuit: how connected it is
        against the circuit's other modules, overall density factored out (raw strength ranks
        circuits by density: every module is "most connected" in the same dense circuits)."""
        # in float64: a nearly full circuit's spread is small, and float32 z-scores of it would
        # miss a mean of 0 by more than rounding
        strength = self.module_strength().astype(np.float64)
        spread = strength.std(axis=1, keepdims=True)
        return (strength - strength.mean(axis=1, keepdims=True)) / np.where(spread > 0, spread, 1)

    def module_by_category(self, module: int) -> list[tuple[str, float, int]]:
        """(category, mean relative strength of ``module`` in its circuits minus the mean over
        all circuits, circuits) per category, most connected first."""
        if "categories" not in self.frame:
            return []
        z = self.relative_strength()[:, module]
        out = [
            (category, float(z[rows].mean() - z.mean()), int(rows.sum()))
            for category, rows in self.category_rows().items()
        ]
        return sorted(out, key=lambda item: -item[1])

    def category_rows(self) -> dict[str, np.ndarray]:
        """category -> boolean (N,) mask of the circuits tagged with it (computed once)."""
        if self._category_rows is None:
            self._category_rows = {
                c: self.frame["categories"].map(lambda cats, c=c: c in cats).to_numpy()
                for c in self.categories
            }
        return self._category_rows

    def z_stack(self) -> np.ndarray:
        """(N, U, U) every circuit's P z-scored within itself (``within_z``; computed once)."""
        if self._z_stack is None:
            out = np.empty((len(self.store), self.n_modules, self.n_modules), dtype=np.float32)
            for start, p in self.store.link_probability_batches(batch=1024):
                for k, one in enumerate(p):
                    out[start + k] = within_z(one)
            self._z_stack = out
        return self._z_stack

    def selection_summary(self, rows: list[int], k: int = 3) -> dict:
        """A selection of circuits against the rest of the store: per category the share of
        each tagged with it (the ``k`` most over- and under-represented in the selection), and
        the ``k`` links most stronger and weaker in the selection (mean within-circuit z of P,
        selection minus rest). Empty lists when the selection is empty or the whole store."""
        chosen = np.zeros(len(self.store), dtype=bool)
        chosen[rows] = True
        if not chosen.any() or chosen.all():
            return {"categories": [], "stronger": [], "weaker": []}
        shares = [
            (c, float(mask[chosen].mean()), float(mask[~chosen].mean()))
            for c, mask in self.category_rows().items()
        ]
        shares.sort(key=lambda item: item[2] - item[1])
        z = self.z_stack()
        difference = z[chosen].mean(0) - z[~chosen].mean(0)
        i, j = np.triu_indices(self.n_modules, 1)
        order = np.argsort(difference[i, j])
        links = [(int(i[n]), int(j[n]), float(difference[i[n], j[n]])) for n in order]
        over = [s for s in shares[:k] if s[1] > s[2]]
        under = [s for s in shares[::-1][:k] if s[1] < s[2]]
        return {
            "categories": over + under,
            "stronger": [link for link in links[::-1][:k] if link[2] > 0],
            "weaker": [link for link in links[:k] if link[2] < 0],
        }
