"""What the app shows of an NFM network's store (kind "nfm"): per input its image, the graph of
which layer reads what each layer wrote (first pass left, second pass right, the null slot
below) and the reads as a heatmap; the map of all inputs by their reads."""

from __future__ import annotations

import numpy as np
import pandas as pd

from circuitlab.analysis.embedding import embed
from circuitlab.analysis.layer_reads import slot_label, top_down_share
from circuitlab.app.input_map import input_map_figure, unit_heatmap
from circuitlab.kinds import nfm
from circuitlab.store import CircuitStore

__all__ = ["ReadView"]

PASS_GAP, LAYER_GAP = 220, 80  # pixels between the passes (x) and the layers (y)
READ_THRESHOLD = 0.05  # the weight an arrow needs to be drawn


class ReadView:
    """Read-only view of an NFM network's store for the app.

    Parameters
    ----------
    store
        A NFM network's store (ValueError for another kind's).
    """

    def __init__(self, store: CircuitStore) -> None:
        if store.kind != nfm.NAME:
            raise ValueError(f"{store.path} is a store of kind {store.kind!r}, not {nfm.NAME!r}")
        self.store = store
        self.frame = store.frame.reset_index(drop=True)
        self.attention = store.array("attention")  # (N, L, 2 L + 1)
        self.images = store.array("images")  # (N, C, S, S) float16
        self.slots: list[str] = list(store.meta["slots"])
        self.n_layers = int(store.meta["n_layers"])
        self.embedding = embed(store, "tsne") if len(store) >= 3 else None

    def rows(self) -> list[dict]:
        """The inputs table: id, question, answer, split, right or wrong, top-down share."""
        table = pd.DataFrame({"id": self.frame["id"], "index": self.frame.index})
        for column in ("text", "label", "split"):
            table[column] = self.frame[column].astype(str) if column in self.frame else ""
        if "correct" in self.frame:
            table["answered"] = np.where(self.frame["correct"], "right", "wrong")
        share = top_down_share(np.asarray(self.attention, dtype=np.float64)).mean(-1)
        table["top-down"] = np.round(share, 3)
        return table.to_dict("records")

    def image_figure(self, index: int) -> dict:
        """The input's image as a plotly image trace (RGB 0-255)."""
        rgb = np.asarray(self.images[index], dtype=np.float32).transpose(1, 2, 0)
        pixels = (np.clip(rgb, 0, 1) * 255).round().astype(int)
        return {
            "data": [{"type": "image", "z": pixels.tolist()}],
            "layout": {
                "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
                "xaxis": {"visible": False},
                "yaxis": {"visible": False},
            },
        }

    def graph_elements(self, index: int) -> list[dict]:
        """Cytoscape elements (preset positions): a node per slot, first-pass layers left,
        second-pass layers right, the null slot below; an arrow slot -> reader wherever the
        reader puts more than READ_THRESHOLD of its weight, width by that weight, class
        "top-down" when it reads a deeper first-pass layer."""
        reads = np.asarray(self.attention[index], dtype=np.float64)
        n = self.n_layers
        elements = []
        for slot in range(2 * n + 1):
            name = slot_label(slot, n)
            if slot == 2 * n:
                position = {"x": PASS_GAP / 2, "y": n * LAYER_GAP}
            else:
                position = {"x": (slot // n) * PASS_GAP, "y": (slot % n) * LAYER_GAP}
            elements.append({"data": {"id": name, "label": name}, "position": position})
        for reader in range(n):
            for slot in np.nonzero(reads[reader] > READ_THRESHOLD)[0]:
                weight = float(reads[reader, slot])
                top_down = slot < n and slot > reader
                elements.append(
                    {
                        "data": {
                            "source": slot_label(int(slot), n),
                            "target": slot_label(n + reader, n),
                            "weight": weight,
                            "width": 1 + 8 * weight,
                        },
                        "classes": "top-down" if top_down else "",
                    }
                )
        return elements

    def heatmap(self, index: int) -> dict:
        """A plotly heatmap of the input's reads: second-pass layers x slots."""
        reads = np.asarray(self.attention[index], dtype=np.float64)
        return unit_heatmap(
            reads.tolist(),
            self.slots,
            [f"pass 2 layer {r + 1}" for r in range(self.n_layers)],
            title="What each layer reads",
            hover="%{y} reads %{x}: %{z:.2f}",
            margin={"l": 110, "r": 10, "t": 40, "b": 90},
            layout={"xaxis": {"tickangle": -45}},
        )

    def map_figure(self, highlight: int | None = None) -> dict:
        """The t-SNE map of every input's reads, ``highlight`` marked."""
        return input_map_figure(self.embedding, self.frame, "reads", highlight)
