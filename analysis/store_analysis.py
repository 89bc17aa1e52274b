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
from circuitlab.analysis.prior_verdict import PriorVerdict, best_prior
from circuitlab.analysis.stats import graph_stats
from circuitlab.kinds import nac
from circuitlab.store import CircuitStore

__all__ = ["analyze_graphs", "analyze_store", "write_figures"]

GRAPH_KEY = "graphs"
GRAPH_COLUMNS = ("links", "density", "transitivity", "modularity", "components")
PRIOR_COLUMNS = ("prior", "prior_best", "prior_gap", "prior_null_z")


def analyze_graphs(
    store: CircuitStore,
    *,
    threshold: float = 0.5,
    check: bool = True,
    seed: int = 0,
    recompute: bool = False,
) -> pd.DataFrame:
    """Graph statistics and prior verdict of every circuit, added to the store (cached) and
    returned with ``id``.

    - ``graph_links``, ``graph_density``, ... : the graph of links with P > ``threshold``;
    - ``prior``, ``prior_best``, ``prior_gap``: ``best_prior(store[i])``, the library's one
      reading (P among the processors, against random signatures of the store's width and
      eps); ``prior_null_z``: the largest |z| of the circuit's density and structure against
      that null (above ``NULL_Z`` the circuit is distinguishable from one that learned nothing).
    The reading and the null are recorded in the store's analysis parameters.

    Parameters
    ----------
    store
        A NAC's store.
    threshold
        P above which a link is in the graph the statistics read.
    check
        Run ``best_prior``'s goodness-of-fit check on each circuit.
    seed
        Seed of the fits, the community detection and the null.
    recompute
        Recompute what the store has cached.
    """
    params = {
        "threshold": threshold,
        "check": check,
        "seed": seed,
        "n_circuits": len(store),
        "prior_reading": PRIOR_READING,
    }
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
    null_source = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)  # k-means on tiny graphs
        for index in tqdm(range(len(store)), desc="graphs and priors", unit="circuit"):
            circuit = store[index]
            p = circuit.link_probability()
            adjacency = np.triu(p > threshold, k=1)
            key = np.packbits(adjacency).tobytes()
            if key not in seen:
                stats = graph_stats(to_graph(p, threshold=threshold), seed=seed).iloc[0]
                seen[key] = [
                    stats[c]
                    for c in ("edges", "density", "transitivity", "modularity", "components")
                ]
            verdict = best_prior(circuit, check=check, seed=seed)
            null_source = verdict.null.source if verdict.null is not None else None
            rows.append(seen[key] + [verdict.family, verdict.best, verdict.gap, null_z(verdict)])
    columns = pd.DataFrame(rows, columns=names)
    extra = {"distinct_graphs": len(seen), "prior_null": null_source}
    store.add_analysis(GRAPH_KEY, {**params, **extra}, columns)
    return store.frame[["id", *names]]


# what analyze_graphs' prior columns read (stored with them; a change recomputes them)
PRIOR_READING = "best_prior: P among processors, random-signature null"


def null_z(verdict: PriorVerdict) -> float:
    """The largest |z| of a verdict's statistics against its null (NaN without a null)."""
    if verdict.null is None or not verdict.null.z_scores:
        return float("nan")
    return float(max(abs(z) for z in verdict.null.z_scores.values()))


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
    (one row per prior verdict: circuits, share, median |z| against the null, and the mean
    links, density, transitivity and modularity of the graphs at P > ``threshold``).

    Parameters
    ----------
    path
        The store's folder.
    threshold, check, seed, recompute
        As ``analyze_graphs`` takes them.
    method
        The map to compute and cache (``embed``'s ``method``).
    """
    store = _nac_store(path)
    graphs = analyze_graphs(store, threshold=threshold, check=check, seed=seed, recompute=recompute)
    if len(store) >= 3:
        embed(store, method, seed=seed, recompute=recompute)
    module_layout(store, seed=seed, recompute=recompute)
    summary = graphs.groupby("prior").agg(
        circuits=("id", "size"),
        null_z=("prior_null_z", "median"),
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
    samples; the degree distribution of the store's mean circuit (P among the processors, one
    graph drawn from it) with its fitted prior; the
    embedding by category with example circuits (stores with categories); accuracy and speed
    against modules dropped when a ``dropping`` CSV is given (see ``dropping_figure``).

    Parameters
    ----------
    path
        The store's folder.
    out
        The folder written into.
    dropping
        A CSV of ``bench/object_dropping.py`` (None: no dropping figure).
    method, threshold, seed
        The map, the link threshold of the drawn circuits and the seed of fits and draws.
    """
    store = _nac_store(path)
    written = save_figure(prior_samples_figure(seed=seed), out, "prior_samples")
    processors = np.flatnonzero(np.asarray(store.roles) == "processor")
    mean_p = store.mean_link_probability()[np.ix_(processors, processors)]
    if len(processors) >= 3 and mean_p.max() > 0:
        written += save_figure(degree_figure(mean_p, seed=seed), out, "degree_mean_circuit")
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
    if store.kind != nac.NAME:
        raise ValueError(
            f"{store.path} is a store of kind {store.kind!r}: graph statistics, prior fits and "
            "figures read a NAC's module graphs; read a Neural Interpreter's routing with "
            "circuitlab.analysis.routing, a Modular Network's paths with "
            "circuitlab.analysis.paths, an NFM network's reads with "
            "circuitlab.analysis.layer_reads, or open any of them in `circuitlab app`"
        )
    return store
