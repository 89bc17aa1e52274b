"""What the app shows of a Neural Interpreter's store (kind "ni"): per input, a tokens x
functions heatmap of the routing at each step and the graph of how functions hand tokens on;
the map of all inputs by their routing."""

from __future__ import annotations

import numpy as np
import pandas as pd

from circuitlab.analysis.embedding import embed
from circuitlab.analysis.routing import transitions
from circuitlab.app.input_map import input_map_figure, unit_heatmap
from circuitlab.kinds import ni
from circuitlab.store import CircuitStore

__all__ = ["RoutingView"]

TRANSITION_THRESHOLD = 0.1  # the share of a function's tokens an arrow needs to be drawn


class RoutingView:
    """Read-only view of a Neural Interpreter's store for the app.

    Parameters
    ----------
    store
        A Neural Interpreter's store (ValueError for another kind's).
    """

    def __init__(self, store: CircuitStore) -> None:
        if store.kind != ni.NAME:
            raise ValueError(f"{store.path} is a store of kind {store.kind!r}, not {ni.NAME!r}")
        self.store = store
        self.frame = store.frame.reset_index(drop=True)
        self.routing = store.array("routing")  # (N, steps, U, V), memory-mapped
        self.tokens: list[str] = list(store.meta["tokens"])
        self.step_names = [
            f"script {s['script']}, iteration {s['iteration']}" for s in store.meta["steps"]
        ]
        self.n_functions = int(self.routing.shape[2])
        self.embedding = embed(store, "tsne") if len(store) >= 3 else None

    def rows(self) -> list[dict]:
        """The inputs table: id, text and, when the store has targets, the mean absolute error."""
        table = pd.DataFrame({"id": self.frame["id"], "index": self.frame.index})
        table["text"] = self.frame["text"].astype(str) if "text" in self.frame else ""
        if "targets" in self.store.array_names:
            error = np.abs(self.store.array("outputs") - self.store.array("targets")).mean(1)
            table["error"] = np.round(error.astype(float), 4)
        return table.to_dict("records")

    def heatmap(self, index: int, step: int) -> dict:
        """A plotly heatmap figure: functions (rows) x tokens (columns), C at ``step``."""
        c = np.asarray(self.routing[index, step], dtype=np.float32)
        return unit_heatmap(
            c.tolist(),
            self.tokens,
            [f"f{u}" for u in range(self.n_functions)],
            title=f"Routing at {self.step_names[step]}",
            hover="%{y} handles %{x}: %{z:.2f}",
            margin={"l": 40, "r": 10, "t": 40, "b": 60},
            trace={"colorbar": {"title": {"text": "C"}}},
            layout={"xaxis": {"tickangle": -60}},
        )

    def transition_elements(self, index: int) -> list[dict]:
        """Cytoscape elements: one node per function, an arrow u -> w where, averaged over
        consecutive steps, more than TRANSITION_THRESHOLD of u's tokens go to w next."""
        routing = np.asarray(self.routing[index], dtype=np.float64)  # (steps, U, V)
        mean, load = transitions(routing).mean(0), routing.sum(axis=(0, 2))
        nodes = [
            {"data": {"id": f"f{u}", "label": f"f{u}", "load": float(load[u])}}
            for u in range(self.n_functions)
        ]
        edges = [
            {
                "data": {
                    "source": f"f{u}",
                    "target": f"f{w}",
                    "weight": float(mean[u, w]),
                    "width": 1 + 6 * float(mean[u, w]),
                }
            }
            for u, w in zip(*np.nonzero(mean > TRANSITION_THRESHOLD), strict=True)
        ]
        return nodes + edges

    def map_figure(self, highlight: int | None = None) -> dict:
        """The t-SNE map of every input's routing, ``highlight`` marked."""
        return input_map_figure(self.embedding, self.frame, "routing", highlight)
