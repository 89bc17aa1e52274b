"""Publication figures: matplotlib functions that return a figure, ``save_figure`` to write it
as PNG, SVG and PDF, and a plotly version of the embedding for interactive use."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

__all__ = [
    "degree_figure",
    "draw_circuit",
    "dropping_figure",
    "embedding_figure",
    "embedding_plotly",
    "prior_samples_figure",
    "save_figure",
]

matplotlib.use("Agg")  # figures are files; never open a window
import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from plotly.colors import qualitative  # noqa: E402

from circuitlab import prior_targets  # noqa: E402
from circuitlab.analysis.embedding import single_category_labels  # noqa: E402
from circuitlab.analysis.goodness import degree_histograms  # noqa: E402
from circuitlab.analysis.graphs import to_graph  # noqa: E402
from circuitlab.analysis.layout import module_colors, module_layout  # noqa: E402
from circuitlab.analysis.matrix import is_binary, link_matrix  # noqa: E402
from circuitlab.analysis.prior_families import PriorFit  # noqa: E402
from circuitlab.analysis.prior_verdict import best_prior  # noqa: E402
from circuitlab.circuit import Circuit  # noqa: E402
from circuitlab.prior_targets import sample_graph  # noqa: E402
from circuitlab.store import CircuitStore  # noqa: E402

FORMATS = ("png", "svg", "pdf")
FAMILY_TITLES = {
    "scale_free": "scale-free",
    "planted_partition": "planted partition",
    "ring_of_cliques": "ring of cliques",
    "erdos_renyi": "Erdos-Renyi",
}


def save_figure(
    fig: Figure,
    out_dir: str | os.PathLike,
    name: str,
    formats: Sequence[str] = FORMATS,
    dpi: int = 200,
) -> list[Path]:
    """Write ``fig`` as ``out_dir/name.{png,svg,pdf}``; returns the paths. ``dpi`` sets the
    PNG's resolution (200: print; about 100 keeps a figure in the docs small).

    Parameters
    ----------
    fig
        The figure.
    out_dir
        The folder written into (made if missing).
    name
        The files' name without suffix.
    formats
        The suffixes written.
    dpi
        As above.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{name}.{fmt}" for fmt in formats]
    for path in paths:
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return paths


def draw_circuit(
    ax: plt.Axes,
    graph: nx.Graph,
    positions: np.ndarray,
    colors: Sequence[str] | None = None,
    title: str = "",
    *,
    labels: bool = False,
    cut: Iterable[tuple[int, int]] = (),
    knocked: Iterable[int] = (),
    forced: Iterable[tuple[int, int]] = (),
) -> None:
    """Draw ``graph`` on ``ax`` at ``positions`` (U, 2), edge width and alpha by ``p``.
    ``labels``: each module's number on it; ``cut`` (undirected pairs, drawn whether or not
    the graph has them) dashed red, ``forced`` (the same; a cut wins) dashed green, as the app
    draws them, ``knocked`` modules hollow and dashed: an edited circuit.

    Parameters
    ----------
    ax
        The axes drawn on.
    graph
        The circuit's graph (``to_graph``).
    positions
        (U, 2) module positions.
    colors
        U module colours (default: ``module_colors``).
    title
        The axes' title.
    labels, cut, knocked, forced
        As above.
    """
    colors = colors or module_colors(graph.number_of_nodes())
    pos = {i: positions[i] for i in graph.nodes}
    cut = {(min(i, j), max(i, j)) for i, j in cut}
    forced = {(min(i, j), max(i, j)) for i, j in forced} - cut
    kept = [(u, v) for u, v in graph.edges if (min(u, v), max(u, v)) not in cut | forced]
    p = np.array([graph.edges[u, v].get("p", 1.0) for u, v in kept])
    nx.draw_networkx_edges(
        graph, pos, edgelist=kept, ax=ax, width=0.3 + 1.5 * p, alpha=0.25, edge_color="#555"
    )
    for edited, color in ((cut, "#d62728"), (forced, "#2ca02c")):
        if edited:
            nx.draw_networkx_edges(
                nx.Graph(list(edited)), pos, ax=ax, width=1.2, edge_color=color, style="dashed"
            )
    knocked = set(knocked)
    shapes = {"processor": "o", "readout": "s"}
    for role, marker in shapes.items():
        nodes = [i for i, d in graph.nodes(data=True) if d.get("role", "processor") == role]
        for hollow in (False, True):
            chosen = [i for i in nodes if (i in knocked) == hollow]
            nx.draw_networkx_nodes(
                graph,
                pos,
                nodelist=chosen,
                node_color=["white" if hollow else colors[i] for i in chosen],
                node_shape=marker,
                node_size=110 if labels else 60,
                ax=ax,
                edgecolors="#d62728" if hollow else "black",
                linewidths=0.8 if hollow else 0.4,
            )
    if labels:
        nx.draw_networkx_labels(graph, pos, ax=ax, font_size=5)
    ax.set_title(title, fontsize=9)
    ax.set_axis_off()


def prior_samples_figure(n_modules: int = 128, seed: int = 0) -> Figure:
    """One graph sampled from each of the four priors' targets (paper Fig. 3).

    Parameters
    ----------
    n_modules
        Nodes of each sampled graph.
    seed
        Seed of the samples.
    """
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.8))
    rng = np.random.default_rng(seed)
    for ax, name in zip(axes, prior_targets.PRIOR_NAMES, strict=True):
        expected = prior_targets.target(name, n_modules)
        adjacency = sample_graph(np.where(np.eye(n_modules, dtype=bool), 0, expected), rng)
        graph = to_graph(adjacency)
        positions = nx.spring_layout(graph, seed=seed)
        xy = np.array([positions[i] for i in range(n_modules)])
        if name in ("planted_partition", "ring_of_cliques"):
            labels = prior_targets.block_labels(n_modules, prior_targets.default_blocks(n_modules))
            colors = [module_colors(20)[label % 20] for label in labels]
        else:
            colors = module_colors(n_modules)
        draw_circuit(
            ax, graph, xy, colors, f"{FAMILY_TITLES[name]} ({graph.number_of_edges()} links)"
        )
    fig.suptitle(f"Graphs sampled from the four priors, U = {n_modules}")
    return fig


def dropping_figure(results: pd.DataFrame) -> Figure:
    """Accuracy and throughput against the fraction of processor modules dropped (paper Fig. 5).

    ``results``: columns ``model``, ``dropped`` (fraction), ``accuracy`` and ``throughput``
    (samples per second), one row per model and fraction; with a ``task`` column, one row of
    panels per task (models of different tasks share no scale).

    Parameters
    ----------
    results
        As above.
    """
    missing = {"model", "dropped", "accuracy", "throughput"} - set(results.columns)
    if missing:
        raise ValueError(f"dropping results lack columns {sorted(missing)}")
    tasks = list(results.groupby("task", sort=False)) if "task" in results else [(None, results)]
    fig, axes = plt.subplots(len(tasks), 2, figsize=(11, 3.8 * len(tasks)), squeeze=False)
    for (task, task_rows), (acc_ax, speed_ax) in zip(tasks, axes, strict=True):
        for model, rows in task_rows.sort_values("dropped").groupby("model", sort=False):
            acc_ax.plot(rows["dropped"], rows["accuracy"], marker="o", label=model)
            speed_ax.plot(rows["dropped"], rows["throughput"], marker="o", label=model)
        acc_ax.set(xlabel="fraction of processor modules dropped", ylabel="accuracy")
        speed_ax.set(xlabel="fraction of processor modules dropped", ylabel="samples / s")
        speed_ax.set_yscale("log")
        if task is not None:
            acc_ax.set_title(f"{task}: accuracy", fontsize=10)
            speed_ax.set_title(f"{task}: throughput", fontsize=10)
        acc_ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def embedding_figure(
    store: CircuitStore,
    embedding: pd.DataFrame,
    categories: Sequence[str] | None = None,
    *,
    threshold: float = 0.5,
    n_examples: int = 4,
) -> Figure:
    """The circuit embedding coloured by reasoning category, beside one example circuit of each
    of the ``n_examples`` most common categories: the circuit nearest its category's centre
    (paper Fig. 6). Circuits with no or several of the categories are grey.

    Parameters
    ----------
    store
        A NAC's store whose frame has ``categories``.
    embedding
        The circuits' 2-D embedding (``embed``'s frame).
    categories
        The categories coloured (default: every one that occurs).
    threshold
        P above which an example circuit's links are drawn.
    n_examples
        Categories shown with an example circuit.
    """
    labels = single_category_labels(store.frame, categories)
    top = labels.value_counts().index[:n_examples]
    fig = plt.figure(figsize=(13, 5.5))
    grid = fig.add_gridspec(2, 4, width_ratios=[1.4, 1.4, 1, 1])
    ax = fig.add_subplot(grid[:, :2])
    xy = embedding[["x", "y"]].to_numpy()
    ax.scatter(xy[:, 0], xy[:, 1], s=3, color="#cccccc", label="other")
    palette = plt.get_cmap("tab10" if labels.nunique() <= 10 else "tab20")
    for i, category in enumerate(labels.value_counts().index):
        rows = labels.index[labels == category]
        ax.scatter(xy[rows, 0], xy[rows, 1], s=5, color=palette(i % 20), label=category)
    ax.legend(fontsize=7, markerscale=3, loc="best")
    ax.set_title("circuits, t-SNE of P, by reasoning category", fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    positions = module_layout(store)
    for k, category in enumerate(top):
        rows = labels.index[labels == category]
        centre = xy[rows].mean(axis=0)
        pick = int(rows[np.argmin(np.linalg.norm(xy[rows] - centre, axis=1))])
        graph = to_graph(store[pick], threshold=threshold)
        text = str(store.frame["text"].iloc[pick]) if "text" in store.frame else ""
        sub = fig.add_subplot(grid[k // 2, 2 + k % 2])
        draw_circuit(sub, graph, positions, title=f"{category}\n{_shorten(text, 38)}")
    fig.tight_layout()
    return fig


def degree_figure(
    source: Circuit | nx.Graph | np.ndarray,
    fit: PriorFit | None = None,
    *,
    n_simulations: int = 20,
    seed: int = 0,
) -> Figure:
    """The degree distribution with the fitted prior overlaid: observed degree histogram and
    the mean histogram of ``n_simulations`` graphs drawn from ``fit`` (default: the best fit of
    ``best_prior``'s reading, which fits a weighted P itself). A weighted P is drawn once into
    a 0/1 graph for the histogram.

    Parameters
    ----------
    source
        A circuit, graph or (n, n) matrix, read as ``best_prior`` reads it.
    fit
        The prior fit to overlay (default: the best).
    n_simulations
        Graphs drawn from the fit for its mean histogram.
    seed
        Seed of the fit and the draws.
    """
    a = link_matrix(source)
    rng = np.random.default_rng(seed)
    weighted = not is_binary(a)
    graph = sample_graph(a, rng) if weighted else a
    if fit is None:
        verdict = best_prior(a, check=False, null=None, seed=seed)
        fit = verdict.fits[verdict.best]
    counts, mean_counts = degree_histograms(graph, fit, rng, n_simulations)
    degrees = np.arange(len(counts))
    fig, ax = plt.subplots(figsize=(5, 3.6))
    ax.bar(degrees, counts, color="#9ecae1", label="drawn from P" if weighted else "observed")
    ax.plot(degrees, mean_counts, color="#d62728", marker=".", label=f"fit: {fit.family}")
    ax.set(xlabel="degree", ylabel="modules")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# distinct colours for the map's groups: plotly's 24 dark then 24 light qualitative colours,
# so 12 NLVR2 category groups never share one (plotly's default colorway has 10)
GROUP_COLORS = [*qualitative.Dark24, *qualitative.Light24]


def embedding_plotly(frame: pd.DataFrame, color: str | None = None) -> go.Figure:
    """WebGL scatter of an embedding frame (columns x, y, id, and ``color`` if given), one
    trace and one distinct colour per group of ``color`` (cycled past 48 groups).

    Parameters
    ----------
    frame
        The embedding frame.
    color
        The column to colour by (None: one colour).
    """
    if color is not None and color not in frame.columns:
        raise ValueError(f"no column {color!r} to colour by; columns: {list(frame.columns)}")
    fig = go.Figure()
    groups = [(None, frame)] if color is None else frame.groupby(color, sort=True)
    for k, (name, rows) in enumerate(groups):
        fig.add_trace(
            go.Scattergl(
                x=rows["x"],
                y=rows["y"],
                mode="markers",
                name=str(name),
                customdata=rows["id"].tolist(),  # a list: plotly packs arrays as base64
                marker={"size": 4, "color": GROUP_COLORS[k % len(GROUP_COLORS)]},
                text=rows["text"] if "text" in rows else None,
            )
        )
    # the legend below the plot: at the right it sat under plotly's toolbar
    fig.update_layout(
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        dragmode="lasso",
        legend={"orientation": "h", "yanchor": "top", "y": -0.08, "x": 0},
    )
    return fig


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
