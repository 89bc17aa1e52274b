"""What the app shows of a Modular Network's store (kind "mn"): the layered module graph with
the chosen input's path highlighted, its controllers' probabilities, module usage by class and
the map of all inputs by their paths."""

from __future__ import annotations

import numpy as np
import pandas as pd

from circuitlab.analysis.embedding import embed
from circuitlab.analysis.paths import node, usage_by_label
from circuitlab.app.input_map import input_map_figure, unit_heatmap
from circuitlab.kinds import mn
from circuitlab.store import CircuitStore

__all__ = ["PathView"]

LAYER_GAP, MODULE_GAP = 160, 60  # pixels between layers (x) and modules (y) in the drawing


class PathView:
    """Read-only view of a Modular Network's store for the app.

    Parameters
    ----------
    store
        A Modular Network's store (ValueError for another kind's).
    """

    def __init__(self, store: CircuitStore) -> None:
        if store.kind != mn.NAME:
            raise ValueError(f"{store.path} is a store of kind {store.kind!r}, not {mn.NAME!r}")
        self.store = store
        self.frame = store.frame.reset_index(drop=True)
        self.paths = np.asarray(store.array("paths"), dtype=np.int64)  # (N, L, K)
        self.probabilities = store.array("probabilities")  # (N, L, C, M)
        self.usage = np.asarray(store.array("usage"), dtype=np.float64)  # (L, M)
        self.transitions = np.asarray(store.array("module_graph"), dtype=np.float64)
        self.n_layers, self.n_modules = self.usage.shape
        self.labels = self.frame["label"].astype(str) if "label" in self.frame else None
        self.embedding = embed(store, "tsne") if len(store) >= 3 else None

    def rows(self) -> list[dict]:
        """The inputs table: id, text, label, its path ("m3 -> m0") and whether it was answered
        right (classification) or its squared error (regression)."""
        table = pd.DataFrame({"id": self.frame["id"], "index": self.frame.index})
        table["text"] = self.frame["text"].astype(str) if "text" in self.frame else ""
        table["label"] = self.labels if self.labels is not None else ""
        table["path"] = [self.path_text(i) for i in range(len(self.frame))]
        if "targets" in self.store.array_names:
            error = ((self.store.array("outputs") - self.store.array("targets")) ** 2).sum(1)
            table["error"] = np.round(error.astype(float), 4)
        elif "correct" in self.frame:
            table["error"] = np.where(self.frame["correct"], "right", "wrong")
        return table.to_dict("records")

    def path_text(self, index: int) -> str:
        """The modules of input ``index`` layer by layer: "m3 -> m0+m5"."""
        layers = [sorted(set(picks)) for picks in self.paths[index].tolist()]
        return " -> ".join("+".join(f"m{m}" for m in picks) for picks in layers)

    def graph_elements(self, index: int) -> list[dict]:
        """Cytoscape elements of the layered module graph (preset positions: layers left to
        right): a node per module sized by its usage, an edge per transition some stored input
        takes, widths by their share; the input's path carries the class "picked"."""
        path = self.paths[index]
        picked = {node(layer, m) for layer in range(self.n_layers) for m in path[layer].tolist()}
        elements = []
        for layer in range(self.n_layers):
            for m in range(self.n_modules):
                name = node(layer, m)
                elements.append(
                    {
                        "data": {
                            "id": name,
                            "label": f"m{m}",
                            "usage": float(self.usage[layer, m]),
                            "size": 14 + 36 * float(self.usage[layer, m]),
                        },
                        "position": {"x": layer * LAYER_GAP, "y": m * MODULE_GAP},
                        "classes": "picked" if name in picked else "",
                    }
                )
        total = max(len(self.paths), 1)
        for layer, i, j in zip(*np.nonzero(self.transitions > 0), strict=True):
            source, target = node(layer, i), node(layer + 1, j)
            share = float(self.transitions[layer, i, j]) / total
            elements.append(
                {
                    "data": {"source": source, "target": target, "width": 1 + 8 * share},
                    "classes": "picked" if source in picked and target in picked else "",
                }
            )
        return elements

    def probabilities_figure(self, index: int) -> dict:
        """A heatmap of input ``index``'s controller probabilities: layers x modules (the mean
        over a layer's categoricals)."""
        p = np.asarray(self.probabilities[index], dtype=np.float64).mean(1)  # (L, M)
        return unit_heatmap(
            p.tolist(),
            [f"m{m}" for m in range(self.n_modules)],
            [f"layer {layer}" for layer in range(self.n_layers)],
            title="Controller probabilities",
            hover="%{y}, %{x}: p = %{z:.2f}",
            margin={"l": 60, "r": 10, "t": 40, "b": 40},
        )

    def usage_figure(self) -> dict:
        """A heatmap of module usage by label: labels x (layer, module), each the share of the
        label's inputs whose path picks the module."""
        if self.labels is None:
            return {"data": [], "layout": {"title": {"text": "no labels: no usage by class"}}}
        table = usage_by_label(self.paths, self.labels.to_numpy(), self.n_modules)
        return unit_heatmap(
            table.to_numpy().tolist(),
            list(table.columns),
            [str(label) for label in table.index],
            title="Module usage by class",
            hover="%{y}: %{x} in %{z:.2f} of paths",
            margin={"l": 80, "r": 10, "t": 40, "b": 60},
            colorscale="Viridis",
        )

    def map_figure(self, highlight: int | None = None) -> dict:
        """The t-SNE map of every input's path, ``highlight`` marked."""
        return input_map_figure(self.embedding, self.frame, "paths", highlight)
