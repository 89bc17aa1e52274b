"""One layout and one colour per module for a whole store, so a module keeps its place and its
colour in every circuit's drawing."""

from __future__ import annotations

import networkx as nx
import numpy as np
from matplotlib import colormaps

from circuitlab.store import CircuitStore

__all__ = [
    "MIN_DISTANCE",
    "layout_from_similarity",
    "layout_is_cached",
    "module_colors",
    "module_layout",
    "spread_apart",
]

LAYOUT_KEY = "layout"
# the closest two modules may sit, in layout units ([-1, 1]): the app draws a module as a 24-pixel
# disc at 260 pixels a unit (0.09), so 0.12 keeps every disc clear of its neighbours and
# clickable; a spring layout alone puts modules with strong mutual links on top of each other
MIN_DISTANCE = 0.12


def module_layout(
    store: CircuitStore, *, seed: int = 0, max_circuits: int = 2048, recompute: bool = False
) -> np.ndarray:
    """(U, 2) positions in [-1, 1] from a force layout whose springs are the modules' mean
    link probability over the store (up to ``max_circuits`` circuits, evenly spaced):
    modules whose signatures are similar on average sit close. Cached in store.json.

    Parameters
    ----------
    store
        A NAC's store.
    seed
        Seed of the force layout.
    max_circuits
        Circuits averaged at most.
    recompute
        Recompute a cached layout.
    """
    n = len(store)
    params = _layout_params(store, seed, max_circuits)
    cached = _cached_positions(store, params)
    if not recompute and cached is not None:
        return np.asarray(cached, dtype=float)
    picks = np.unique(np.linspace(0, n - 1, params["circuits"]).astype(int))
    positions = layout_from_similarity(store.mean_link_probability(picks), seed=seed)
    store.add_analysis(LAYOUT_KEY, {"params": params, "positions": positions.tolist()})
    return positions


def layout_is_cached(store: CircuitStore, *, seed: int = 0, max_circuits: int = 2048) -> bool:
    """Whether ``module_layout`` with these settings would read ``store``'s cache rather than
    compute the layout.

    Parameters
    ----------
    store, seed, max_circuits
        As ``module_layout`` takes them.
    """
    return _cached_positions(store, _layout_params(store, seed, max_circuits)) is not None


def _cached_positions(store: CircuitStore, params: dict) -> list | None:
    """The positions ``store`` cached for a layout computed from ``params``; None if none."""
    cached = store.analysis_params(LAYOUT_KEY)
    if cached is None or cached.get("params") != params:
        return None
    return cached["positions"]


def _layout_params(store: CircuitStore, seed: int, max_circuits: int) -> dict:
    """What a cached layout was computed from: the settings and the store's size."""
    n = len(store)
    return {
        "seed": seed,
        "circuits": min(n, max_circuits),
        "n_circuits": n,
        "min_distance": MIN_DISTANCE,
    }


def layout_from_similarity(
    similarity: np.ndarray, seed: int = 0, min_distance: float = MIN_DISTANCE
) -> np.ndarray:
    """(U, 2) spring layout of the complete graph with edge weights ``similarity`` (U, U),
    scaled into [-1, 1] and spread so that no two modules are closer than ``min_distance``.

    Parameters
    ----------
    similarity, min_distance
        As above.
    seed
        Seed of the spring layout.
    """
    u = similarity.shape[0]
    graph = nx.Graph()
    graph.add_nodes_from(range(u))
    rows, cols = np.triu_indices(u, k=1)
    graph.add_weighted_edges_from(
        (int(i), int(j), float(max(similarity[i, j], 1e-6)))
        for i, j in zip(rows, cols, strict=True)
    )
    positions = nx.spring_layout(graph, weight="weight", seed=seed)
    xy = np.array([positions[i] for i in range(u)], dtype=float)
    xy -= xy.mean(axis=0)
    return spread_apart(xy / max(np.abs(xy).max(), 1e-12), min_distance, seed=seed)


def spread_apart(
    xy: np.ndarray, min_distance: float, seed: int = 0, rounds: int = 200
) -> np.ndarray:
    """``xy`` (U, 2) in [-1, 1] with every pair closer than ``min_distance`` pushed apart along
    the line between them (coincident points along a seeded random direction), each point
    moving half the shortfall and kept inside [-1, 1]; repeated until no pair is too close (or
    ``rounds`` passes), then scaled to touch the box. Points far from any crowding keep their
    relative places. Many points get a smaller distance, 0.6 of a square grid's spacing.

    Parameters
    ----------
    xy, min_distance
        As above.
    seed
        Seed of the directions of coincident points.
    rounds
        The most rounds.
    """
    u = len(xy)
    if u < 2 or min_distance <= 0:
        return xy
    # a square grid of U points in [-1, 1] has spacing 2 / (sqrt(U) - 1): ask for at most
    # 0.6 of that, which the pushes reach quickly (hundreds of modules get closer)
    min_distance = min(min_distance, 1.2 / max(np.sqrt(u) - 1, 1))
    rng = np.random.default_rng(seed)
    # push a little further than asked: exactly the shortfall converges only asymptotically
    target = 1.05 * min_distance
    for _ in range(rounds):
        offset = xy[:, None, :] - xy[None, :, :]  # (U, U, 2): i minus j
        distance = np.linalg.norm(offset, axis=-1)
        np.fill_diagonal(distance, np.inf)
        if distance.min() >= min_distance:
            break
        coincident = distance < 1e-9
        if coincident.any():
            angle = rng.uniform(0, 2 * np.pi, size=distance.shape)
            random = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
            random = (random - random.transpose(1, 0, 2)) / 2  # antisymmetric: i, j move apart
            offset = np.where(coincident[..., None], random, offset)
            distance = np.where(coincident, 1e-9, distance)
        shortfall = np.clip(target - distance, 0, None)  # (U, U), 0 on the diagonal (inf)
        direction = offset / np.linalg.norm(offset, axis=-1, keepdims=True).clip(1e-12)
        # clipped rather than rescaled: rescaling would shrink every gap each round
        xy = np.clip(xy + (shortfall[..., None] / 2 * direction).sum(axis=1), -1, 1)
    return xy / np.abs(xy).max()  # only ever grows the gaps: everything lay inside the box


def module_colors(n_modules: int) -> list[str]:
    """A fixed hex colour per module index (tab20, cycled), the same in every figure.

    Parameters
    ----------
    n_modules
        How many colours.
    """
    cmap = colormaps["tab20"]
    return [
        "#{:02x}{:02x}{:02x}".format(*(int(255 * c) for c in cmap(i % 20)[:3]))
        for i in range(n_modules)
    ]
