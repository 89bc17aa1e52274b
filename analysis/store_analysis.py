"""``circuitlab analyze`` and ``circuitlab figures``: a whole store's graphs, prior fits,
embedding and layout, cached in the store, and the figures drawn from them."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from circuitlab.analysis.embedding import embed
from circuitlab.analysis.figures import (
    degree_figure,
    dropping_figure,
    embedding_figure,
    prior_samples_figure,
    save_figure,
)
from circuitlab.analysis.graphs import to_graph
from circuitlab.analysis.layout import module_layout
from circuitlab.analysis.prior_verdict import best_prior
from circuitlab.analysis.stats import graph_stats
from circuitlab.store import CircuitStore

GRAPH_KEY = "graphs"
GRAPH_COLUMNS = ("links", "density", "transitivity", "modularity", "components")
PRIOR_COLUMNS = ("prior", "prior_best", "prior_gap")


def analyze_graphs(
    store: CircuitStore,
    *,
    threshold: float = 0.5,
    check: bool = True,
    seed: int = 0,
    recompute: bool = False,
) -> pd.DataFrame:
    """Graph statistics and prior verdict of every circuit at P > ``threshold``, added to the
    store as columns ``graph_*`` and ``prior``, ``prior_best``, ``prior_gap`` (cached; circuits
    with the same graph are fitted once). Returns those columns with ``id``."""
    params = {"threshold": threshold, "check": check, "seed": seed, "n_circuits": len(store)}
    names = [f"graph_{c}" for c in GRAPH_COLUMNS] + list(PRIOR_COLUMNS)
    cached = store.analysis_params(GRAPH_KEY) or {}
    fresh = {k: cached.get(k) for k in params} == params
    if not recompute and fresh and set(names) <= set(store.frame.columns):
        return store.frame[["id", *names]]
    u = store.meta["n_modules"]
    if u < 3:
        raise ValueError(f"graph analysis needs at least 3 modules; {store.path} has {u}")
    seen: dict[bytes, list] = {}
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)  # k-means on tiny graphs
        batches = store.link_probability_batches(batch=512)
        for _, ps in tqdm(
            batches, total=-(-len(store) // 512), desc="graphs", unit="x512 circuits"
        ):
            for p in ps:
                adjacency = np.triu(p > threshold, k=1)
                key = np.packbits(adjacency).tobytes()
                if key not in seen:
                    graph = to_graph(p, threshold=threshold)
                    stats = graph_stats(graph, seed=seed).iloc[0]
                    verdict = best_prior(graph, check=check, seed=seed)
                    seen[key] = [
                        stats["edges"],
                        stats["density"],
                        stats["transitivity"],
                        stats["modularity"],
                        stats["components"],
                        verdict.family,
                        verdict.best,
                        verdict.gap,
                    ]
                rows.append(seen[key])
    columns = pd.DataFrame(rows, columns=names)
    store.add_analysis(GRAPH_KEY, {**params, "distinct_graphs": len(seen)}, columns)
    return store.frame[["id", *names]]


def analyze_store(
    path: str | os.PathLike,
    *,
    threshold: float = 0.5,
    check: bool = True,
    method: str = "tsne",
    seed: int = 0,
    recompute: bool = False,
) -> tuple[CircuitStore, pd.DataFrame]:
    """Run every cached analysis on the store at ``path``; returns it and a summary table
    (one row per prior verdict: circuits, share, mean links, density, transitivity)."""
    store = _nac_store(path)
    graphs = analyze_graphs(store, threshold=threshold, check=check, seed=seed, recompute=recompute)
    if len(store) >= 3:
        embed(store, method, seed=seed, recompute=recompute)
    module_layout(store, seed=seed, recompute=recompute)
    summary = graphs.groupby("prior").agg(
        circuits=("id", "size"),
        links=("graph_links", "mean"),
        density=("graph_density", "mean"),
        transitivity=("graph_transitivity", "mean"),
        modularity=("graph_modularity", "mean"),
        gap_nats=("prior_gap", "median"),
    )
    summary.insert(1, "share", summary["circuits"] / len(store))
    return store, summary.sort_values("circuits", ascending=False)


def write_figures(
    path: str | os.PathLike,
    out: str | os.PathLike,
    *,
    dropping: str | os.PathLike | None = None,
    method: str = "tsne",
    threshold: float = 0.5,
    seed: int = 0,
) -> list[Path]:
    """Write the figures for the store at ``path`` into ``out`` (PNG, SVG, PDF each): prior
    samples; the degree distribution of the store's mean circuit with its fitted prior; the
    embedding by category with example circuits (stores with categories); accuracy and speed
    against modules dropped when a ``dropping`` CSV is given (see ``dropping_figure``)."""
    store = _nac_store(path)
    written = save_figure(prior_samples_figure(seed=seed), out, "prior_samples")
    mean_graph = to_graph(store.mean_link_probability(), threshold=threshold)
    if mean_graph.number_of_nodes() >= 3 and mean_graph.number_of_edges():
        written += save_figure(degree_figure(mean_graph, seed=seed), out, "degree_mean_circuit")
    if "categories" in store.frame.columns and len(store) >= 3:
        embedding = embed(store, method, seed=seed)
        written += save_figure(
            embedding_figure(store, embedding, threshold=threshold), out, "embedding_by_category"
        )
    if dropping is not None:
        results = pd.read_csv(dropping)
        written += save_figure(dropping_figure(results), out, "dropping")
    return written


def _nac_store(path: str | os.PathLike) -> CircuitStore:
    """The NAC store at ``path``; a store of another kind is refused with where to look."""
    store = CircuitStore.open(path)
    if store.kind != "nac":
        raise ValueError(
            f"{store.path} is a store of kind {store.kind!r}: graph statistics, prior fits and "
            "figures read a NAC's module graphs; read a Neural Interpreter's routing with "
            "circuitlab.analysis.routing, a Modular Network's paths with "
            "circuitlab.analysis.paths, an NFM network's reads with "
            "circuitlab.analysis.layer_reads, or open any of them in `circuitlab app`"
        )
    return store
