"""What the app shows of one circuit store: search, typed sentences, the map and nearest
circuits, one circuit's graph (drawn by ``CircuitElements``, memoised), its prior fit and a
module's details; statistics over the store in ``StoreStatistics``."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from importlib.util import find_spec

import numpy as np
import pandas as pd

from circuitlab.analysis.embedding import embed, embedding_is_cached, fit_pca, lower_triangle
from circuitlab.analysis.goodness import degree_histograms
from circuitlab.analysis.graphs import to_graph
from circuitlab.analysis.layout import layout_is_cached, module_colors, module_layout
from circuitlab.analysis.prior_verdict import best_prior, block_order, read_matrix
from circuitlab.app.circuit_elements import CircuitElements
from circuitlab.app.store_statistics import StoreStatistics
from circuitlab.circuit import Circuit
from circuitlab.prior_targets import sample_graph
from circuitlab.store import CircuitStore, category_lists, row_of_id

__all__ = [
    "CircuitGenerator",
    "FILTER_COLUMNS",
    "MAX_EDGES",
    "MAX_SENTENCE",
    "StoreView",
    "is_prepared",
    "load_circuit_generator",
    "prepare_store",
]

RECENT = 64  # circuits whose drawing and prior fit a store view keeps

MAX_EDGES = 5000
MAX_SENTENCE = 300  # characters of a typed sentence
FILTER_COLUMNS = ("split", "label", "correct")


class CircuitGenerator:
    """A conditional NLVR or pair-world model as a function: sentence -> its Circuit.

    Parameters
    ----------
    model
        A conditional NAC.
    task
        Its task (``encode_text``).
    """

    def __init__(self, model, task) -> None:
        self.model, self.task = model, task
        self.n_modules = model.config.n_processors + model.config.n_readouts

    def __call__(self, text: str) -> Circuit:
        return self.model.circuits(*self.task.encode_text([text]))[0]


def load_circuit_generator(checkpoint: str | os.PathLike) -> CircuitGenerator:
    """The circuit generator of the conditional NLVR or pair-world model at ``checkpoint``,
    with its task (tiny sentence pools: enough to encode sentences and batch scenes as the run
    did).

    Parameters
    ----------
    checkpoint
        A run directory or checkpoint file.
    """
    from circuitlab.loading import load_model, tiny_task

    model, config = load_model(checkpoint)
    if not model.config.conditional or config.task not in ("nlvr", "pairs"):
        raise ValueError(
            f"{checkpoint} is not a conditional NLVR or pair-world model: it reads no text"
        )
    return CircuitGenerator(model, tiny_task(config))


def prepare_store(store: CircuitStore) -> None:
    """Compute and cache in ``store`` what the app's first open of it would otherwise compute
    while a visitor waits: the module layout and the t-SNE map of its circuits (about 15 s for
    4,000 circuits on 2 cores). ``circuitlab export`` runs it on every store it writes.

    Parameters
    ----------
    store
        A NAC store.
    """
    module_layout(store)
    if len(store) >= 3:
        embed(store, "tsne")


def is_prepared(store: CircuitStore) -> bool:
    """Whether ``store`` holds what ``prepare_store`` caches, so that opening it as a
    ``StoreView`` reads its layout and map rather than computing them.

    Parameters
    ----------
    store
        A NAC store.
    """
    return layout_is_cached(store) and (len(store) < 3 or embedding_is_cached(store, "tsne"))


class StoreView:
    """Read-only view of a store for the app. ``max_edges`` is the drawing guard.

    Parameters
    ----------
    store
        A NAC store.
    max_edges
        As above.
    """

    def __init__(self, store: CircuitStore, *, max_edges: int = MAX_EDGES) -> None:
        self.store = store
        self.frame = store.frame.reset_index(drop=True)
        if "categories" in self.frame.columns:  # one list of strings per row, whatever was stored
            self.frame["categories"] = category_lists(self.frame)
        self.max_edges = max_edges
        self.n_modules = store.meta["n_modules"]
        self.positions = module_layout(store)  # both cached in the store (prepare_store)
        self.colors = module_colors(self.n_modules)
        self.embedding = embed(store, "tsne") if len(store) >= 3 else None
        self.texts = self.frame["text"].fillna("").astype(str) if "text" in self.frame else None
        self.statistics = StoreStatistics(store, self.frame, self.categories())
        self.renderer = CircuitElements(self.positions, self.colors, store.roles, max_edges)
        self._pca = None
        # sentence -> Circuit (a CircuitGenerator, or the app's model that made this store, set
        # by AppStores); else what typing a sentence tells the user
        self.generate_circuit: Callable[[str], Circuit] | None = None
        self.no_model_reason = (
            "no model attached: start the app with --checkpoint to type sentences"
        )
        # typed sentences' circuits and map positions by text: a cache only; which sentences a
        # visitor typed lives in their own page (the "typed-sentences" store), never here
        self._cached_typed = lru_cache(maxsize=256)(self._generate_typed)
        self._typed_circuits = lru_cache(maxsize=256)(lambda text: self.generate_circuit(text))
        self._maps: dict[str, pd.DataFrame] = {}
        # the drawn elements (~70 kB) and prior fits (~40 kB) of the circuits last shown, so
        # that a colour, view or threshold change redraws without recomputing; 64 each keeps a
        # store's share of a worker's memory near 7 MB (512 each filled ~110 MB a store in a
        # 10-minute soak of 5 visitors, per worker)
        self._cached_elements = lru_cache(maxsize=RECENT)(self._store_elements)
        self._cached_fit = lru_cache(maxsize=RECENT)(self._store_fit)

    @property
    def has_sentences(self) -> bool:
        """Whether the store's circuits are conditioned on inputs (one per sentence or example);
        False for a store of unconditional models (one circuit per model: the priors store)."""
        return bool(self.store.meta.get("config", {}).get("conditional", True))

    # ----------------------------------------------------------------------------- search
    def categories(self) -> list[str]:
        if "categories" not in self.frame:
            return []
        return sorted({c for cats in self.frame["categories"] for c in cats})

    def filter_options(self) -> dict[str, list[str]]:
        return {
            c: sorted(self.frame[c].astype(str).unique()) for c in FILTER_COLUMNS if c in self.frame
        }

    def search(
        self,
        text: str = "",
        category: str | None = None,
        filters: dict[str, str | None] | None = None,
        limit: int = 200,
    ) -> tuple[pd.DataFrame, int]:
        """Table rows of the circuits whose text contains ``text`` (case-insensitive, plain
        substring), with the ``category`` and every column filter given: the first ``limit``,
        and how many match in all."""
        keep = np.ones(len(self.frame), dtype=bool)
        if text and self.texts is not None:
            keep &= self.texts.str.contains(text, case=False, regex=False).to_numpy()
        if category:
            keep &= self.frame["categories"].map(lambda cats: category in cats).to_numpy()
        for column, value in (filters or {}).items():
            if value not in (None, "") and column in self.frame:
                keep &= (self.frame[column].astype(str) == value).to_numpy()
        rows = self.frame[keep].head(limit)
        return self.table_rows(rows.index), int(keep.sum())

    def table_rows(self, indices) -> pd.DataFrame:
        rows = self.frame.loc[list(indices)]
        out = pd.DataFrame({"id": rows["id"].to_numpy(), "index": list(rows.index)})
        for column in ("text", "label", "split"):
            if column in rows:
                out[column] = rows[column].astype(str).to_numpy()
        if "categories" in rows:
            out["categories"] = rows["categories"].map(", ".join).to_numpy()
        return out

    def index_of(self, circuit_id: object) -> int | None:
        """Row of the circuit whose ``id`` is ``circuit_id`` (an int or its text), else None."""
        return row_of_id(self.frame, circuit_id)

    def id_of(self, index: int) -> int | str:
        """The id of the circuit in row ``index``, as a plain int or str (``index_of``'s
        inverse)."""
        return self.frame["id"].iloc[[index]].tolist()[0]

    # ----------------------------------------------------------------------------- typed sentences
    def typed_circuit(self, text: str | None) -> Circuit:
        """The circuit of a typed sentence (generated once per text, then cached).

        Raises ValueError with a message for the page: no model, an empty or over-long
        sentence. The text is kept as text (the page never renders it as HTML).
        """
        return self._cached_typed(self.checked_sentence(text))[0]

    def typed_position(self, text: str, method: str = "tsne") -> tuple[float, float]:
        """Where a typed sentence's circuit falls on the ``method`` map (see ``project``)."""
        return self._cached_typed(self.checked_sentence(text), method)[1]

    def checked_sentence(self, text: str | None) -> str:
        """``text`` stripped, or ValueError saying why this view cannot take it."""
        if self.generate_circuit is None:
            raise ValueError(self.no_model_reason)
        text = text.strip() if isinstance(text, str) else ""
        if not text:
            raise ValueError("type a sentence first")
        if len(text) > MAX_SENTENCE:
            raise ValueError(f"the sentence has {len(text)} characters; at most {MAX_SENTENCE}")
        return text

    def _generate_typed(self, text: str, method: str = "tsne") -> tuple[Circuit, tuple]:
        circuit = self._typed_circuits(text)
        return circuit, self.project(circuit, method)

    def project(self, circuit: Circuit, method: str = "tsne") -> tuple[float, float]:
        """Where a new circuit falls on the ``method`` map: its own first two principal
        components on the PCA map; elsewhere the mean map position of its 10 nearest circuits
        in the PCA space of P (the map itself is not refitted)."""
        if self.embedding is None:
            return (0.0, 0.0)
        pca, reduced = self.pca()
        point = pca.transform(lower_triangle(circuit.link_probability())[None, :])
        if method == "pca":
            return float(point[0, 0]), (float(point[0, 1]) if point.shape[1] > 1 else 0.0)
        nearest = np.argsort(np.linalg.norm(reduced - point, axis=1))[:10]
        xy = self.map_frame(method)[["x", "y"]].to_numpy()[nearest].mean(axis=0)
        return float(xy[0]), float(xy[1])

    def pca(self):
        """(fitted PCA, the store's circuits in it (N, <= 64)), computed once."""
        if self._pca is None:
            self._pca = fit_pca(self.store)
        return self._pca

    def map_methods(self) -> list[str]:
        """The maps this view offers: t-SNE, PCA, and UMAP where umap-learn is installed."""
        return ["tsne", "pca", *(["umap"] if find_spec("umap") is not None else [])]

    def map_frame(self, method: str = "tsne") -> pd.DataFrame:
        """(N,) x, y of every circuit on the ``method`` map (t-SNE and UMAP cached in the
        store by the analysis layer; PCA from this view's own PCA)."""
        if method not in self._maps:
            if method == "tsne":
                self._maps[method] = self.embedding
            elif method == "pca":
                reduced = self.pca()[1]
                y = reduced[:, 1] if reduced.shape[1] > 1 else np.zeros(len(reduced))
                self._maps[method] = pd.DataFrame({"x": reduced[:, 0], "y": y})
            else:
                self._maps[method] = embed(self.store, method)
        return self._maps[method]

    def nearest(self, index: int, k: int = 5) -> list[int]:
        """The ``k`` store circuits nearest to circuit ``index`` in the PCA space of P."""
        reduced = self.pca()[1]
        distance = np.linalg.norm(reduced - reduced[index], axis=1)
        distance[index] = np.inf
        return np.argsort(distance)[:k].tolist()

    # ----------------------------------------------------------------------------- one circuit
    def circuit_of(self, key: dict) -> Circuit:
        """The circuit a page state names: ``{"index": row}`` or ``{"typed": k, "text": text}``
        (the visitor's k-th typed sentence)."""
        return self.typed_circuit(key["text"]) if "typed" in key else self.store[key["index"]]

    def graph_elements(
        self, key: dict, threshold: float, top_k: int | None, color_by: str
    ) -> tuple[list[dict], int]:
        """Cytoscape elements of the circuit ``key`` names and its number of edges (store
        circuits memoised)."""
        if "typed" in key:
            return self.renderer.elements(self.circuit_of(key), threshold, top_k, color_by)
        return self._cached_elements(key["index"], threshold, top_k, color_by)

    def _store_elements(self, index: int, threshold: float, top_k: int | None, color_by: str):
        return self.renderer.elements(self.store[index], threshold, top_k, color_by)

    def visible_graph(self, key: dict, threshold: float, top_k: int | None):
        """The networkx graph the view shows."""
        circuit = self.circuit_of(key)
        if top_k is not None:
            return to_graph(circuit, top_k=top_k)
        return to_graph(circuit, threshold=threshold)

    # ----------------------------------------------------------------------------- comparing
    def reference_elements(self, reference: dict, threshold: float) -> tuple[list[dict], int]:
        """Elements of the circuit to compare with: ``{"index": row}`` or ``{"category": c}``
        (the category's mean P)."""
        if "category" in reference:
            mean = self.statistics.mean_p(reference["category"])
            return self.renderer.elements(mean, threshold, None, "module")
        return self.graph_elements(reference, threshold, None, "module")

    def difference_elements(
        self, key: dict, reference: dict, scale: str = "z"
    ) -> tuple[list[dict], int, int]:
        """The links that differ between the circuit ``key`` names and ``reference`` (a row or
        a category's mean P), as ``CircuitElements.difference`` draws them."""
        q = (
            self.statistics.mean_p(reference["category"])
            if "category" in reference
            else self.store[reference["index"]].link_probability()
        )
        return self.renderer.difference(self.circuit_of(key).link_probability(), q, scale)

    def prior_fit(self, key: dict) -> dict:
        """The library's prior reading of the circuit (``best_prior``: P among the processors,
        against random signatures of the store's width and eps) and the degree histogram of a
        graph drawn from that P beside the mean histogram of 20 graphs drawn from the best fit
        (store circuits memoised: colour or mode changes redraw without refitting)."""
        if "typed" in key:
            return self._fit(self.circuit_of(key))
        return self._cached_fit(key["index"])

    def _store_fit(self, index: int) -> dict:
        return self._fit(self.store[index])

    def _fit(self, circuit: Circuit) -> dict:
        verdict = best_prior(circuit)
        params = {k: v for k, v in verdict.params.items() if k not in ("labels", "ring_order")}
        a, _ = read_matrix(circuit)
        observed, simulated = degree_histograms(
            sample_graph(a, np.random.default_rng(0)),
            verdict.fits[verdict.best],
            np.random.default_rng(0),
            size=len(a),
        )
        order = block_order(a, verdict.fits[verdict.best].params())
        return {
            "family": verdict.family,
            "best": verdict.best,
            "gap": verdict.gap,
            "params": params,
            "reading": verdict.reading,
            "null": None if verdict.null is None else verdict.null.to_dict(),
            "observed": observed.tolist(),
            "fitted": simulated.tolist(),
            "order": order.tolist(),
            "matrix": np.round(a[np.ix_(order, order)], 3).tolist(),
        }

    def module_details(self, key: dict, module: int, threshold: float) -> dict:
        """Role, degree, strongest links in the circuit ``key`` names, the store circuits where
        the module is most connected relative to their other modules, and by category."""
        p = self.circuit_of(key).link_probability()
        row = p[module].copy()
        row[module] = -1
        strongest = np.argsort(-row)[:5]
        top = np.argsort(-self.statistics.relative_strength()[:, module])[:5]
        return {
            "module": module,
            "role": str(self.store.roles[module]),
            "degree": int(np.sum(row > threshold)),
            "links": [(int(j), float(row[j])) for j in strongest],
            "sentences": self.table_rows(top).to_dict("records"),
            "by_category": self.statistics.module_by_category(module),
        }
