"""Block structure of a graph: how many blocks, which node in which, and in what ring order.

Used by the planted-partition and ring-of-cliques fits. The number of blocks is estimated with
the Bethe Hessian (Saade, Krzakala & Zdeborova 2014: its negative eigenvalues count the
detectable communities, also in sparse graphs), nodes are clustered on the matching
eigenvectors with k-means, and the labels are refined by a few sweeps that move each node to
the block under which its links are most likely (planted-partition likelihood).
"""

from __future__ import annotations

import functools
import itertools

import networkx as nx
import numpy as np
from scipy.linalg import eigh
from threadpoolctl import ThreadpoolController

from circuitlab.analysis.communities import communities

__all__ = [
    "MAX_BLOCKS",
    "adjacency_embedding",
    "bethe_hessian_blocks",
    "block_counts",
    "cluster",
    "louvain",
    "refine",
    "relabel",
    "ring_order",
]

MAX_BLOCKS = 64


def bethe_hessian_blocks(a: np.ndarray, max_blocks: int = MAX_BLOCKS) -> tuple[int, np.ndarray]:
    """Estimated number of blocks K and the eigenvectors of the ``max_blocks`` smallest
    eigenvalues, (n, max_blocks), to cluster on (the first K for K blocks).

    ``a`` (n, n) symmetric, zero diagonal, entries in [0, 1] (0/1 or expected links).

    Parameters
    ----------
    a
        As above.
    max_blocks
        The most blocks considered.
    """
    n = a.shape[0]
    degrees = a.sum(axis=1)
    mean_degree = degrees.mean()
    if n < 3 or mean_degree <= 0:
        return 1, np.ones((n, max(1, min(n, max_blocks))))
    r = np.sqrt(max((degrees**2).mean() / mean_degree - 1.0, 1.0 + 1e-6))
    hessian = (r**2 - 1.0) * np.eye(n) - r * a + np.diag(degrees)
    top = min(n, max_blocks + 1)
    try:
        values, vectors = eigh(hessian, subset_by_index=[0, top - 1])
    except np.linalg.LinAlgError:  # LAPACK's subset driver fails on some small matrices
        values, vectors = np.linalg.eigh(hessian)
        values, vectors = values[:top], vectors[:, :top]
    k = int(max(1, min(max_blocks, np.sum(values < 0))))
    return k, vectors[:, :max_blocks]


def adjacency_embedding(a: np.ndarray, max_blocks: int = MAX_BLOCKS) -> tuple[int, np.ndarray]:
    """Estimated number of blocks K and the adjacency spectral embedding to cluster on.

    The eigenvectors of ``a`` (n, n) itself ordered by |eigenvalue|, largest first, each scaled
    by sqrt(|eigenvalue|): (n, max_blocks). K is where the |eigenvalues| drop most among the
    first ``max_blocks`` (at least 2). On a weighted P (a graphon) the blocks show as K large
    eigenvalues, where the Bethe Hessian, built for sparse 0/1 graphs, can miss some.

    Parameters
    ----------
    a
        (n, n) the graph or P.
    max_blocks
        The most blocks considered.
    """
    n = a.shape[0]
    values, vectors = np.linalg.eigh(a)
    order = np.argsort(-np.abs(values))[: min(n, max_blocks + 1)]
    values, vectors = np.abs(values[order]), vectors[:, order]
    drops = values[:-1] - values[1:]
    k = int(np.argmax(drops[:max_blocks])) + 1 if len(drops) else 1
    return max(k, 2), (vectors * np.sqrt(values))[:, :max_blocks]


def cluster(vectors: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """k-means labels (n,) of the rows of ``vectors`` (n, >= k), rows normalised first.

    Parameters
    ----------
    vectors, k
        As above.
    seed
        Seed of k-means.
    """
    if k <= 1:
        return np.zeros(vectors.shape[0], dtype=int)
    x = vectors[:, :k]
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    # one thread: these problems are small, and OpenMP threads spinning beside torch's made
    # each call 10x slower once torch was imported
    with _threadpools().limit(limits=1):
        from sklearn.cluster import KMeans  # here: importing scikit-learn takes ~1.5 s

        return KMeans(n_clusters=k, n_init=4, random_state=seed).fit_predict(x)


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The process's thread pools (BLAS, OpenMP), found once: finding them scans every loaded
    library (~4 ms with torch loaded), which ``threadpool_limits`` did on every call."""
    return ThreadpoolController()


def louvain(a: np.ndarray, seed: int = 0, resolution: float = 1.0) -> np.ndarray:
    """Louvain communities of the 0/1 graph ``a`` (networkx) as labels (n,). A ``resolution``
    above 1 finds smaller communities: at 1, Louvain merges cliques smaller than about
    sqrt(links) (its resolution limit).

    Parameters
    ----------
    a
        As above.
    seed
        Seed of Louvain.
    resolution
        As above.
    """
    graph = nx.from_numpy_array(a)
    if resolution == 1.0:
        found = communities(graph, backend="networkx", seed=seed)
    else:
        found = nx.community.louvain_communities(graph, resolution=resolution, seed=seed)
    labels = np.zeros(a.shape[0], dtype=int)
    for c, members in enumerate(found):
        labels[list(members)] = c
    return labels


def relabel(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0..K-1 in order of first appearance, empty blocks dropped.

    Parameters
    ----------
    labels
        (n,) block labels.
    """
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse]


def block_counts(a: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Links and node pairs between every pair of blocks: two (K, K) arrays.

    Diagonal entries count pairs inside a block once (i < j); off-diagonal entries count the
    pairs between two blocks.

    Parameters
    ----------
    a
        (n, n) the graph or P.
    labels
        (n,) each node's block, 0..K-1.
    """
    k = int(labels.max()) + 1
    onehot = np.eye(k)[labels]
    links = onehot.T @ a @ onehot
    sizes = onehot.sum(axis=0)
    pairs = np.outer(sizes, sizes)
    np.fill_diagonal(links, np.diag(links) / 2)
    np.fill_diagonal(pairs, sizes * (sizes - 1) / 2)
    return links, pairs


def refine(a: np.ndarray, labels: np.ndarray, sweeps: int = 8) -> np.ndarray:
    """Move nodes to the block that makes their links most likely under a planted partition.

    Each sweep refits p_in and p_out and reassigns every node at once to
    argmax_c [log(p_in (1-p_out) / (p_out (1-p_in))) * links(i, c) - log((1-p_out)/(1-p_in)) * n_c];
    stops when nothing moves. Blocks that empty out are dropped.

    Parameters
    ----------
    a
        (n, n) the graph or P.
    labels
        (n,) the blocks to start from.
    sweeps
        The most sweeps.
    """
    labels = relabel(labels)
    for _ in range(sweeps):
        k = int(labels.max()) + 1
        if k < 2:
            break
        links, pairs = block_counts(a, labels)
        inside, inside_pairs = np.trace(links), np.trace(pairs)
        p_in = _clip(inside / max(inside_pairs, 1))
        p_out = _clip((links.sum() - inside) / max(pairs.sum() - inside_pairs, 1))
        if p_in <= p_out:
            break
        gain = np.log(p_in * (1 - p_out) / (p_out * (1 - p_in)))
        cost = np.log((1 - p_out) / (1 - p_in))
        onehot = np.eye(k)[labels]
        score = gain * (a @ onehot) - cost * (onehot.sum(axis=0)[None, :] - onehot)
        new = score.argmax(axis=1)
        if np.array_equal(new, labels):
            break
        labels = relabel(new)
    return labels


def ring_order(density: np.ndarray) -> np.ndarray:
    """Cyclic order of K blocks that maximises the summed density between neighbours.

    ``density`` (K, K) symmetric. Exhaustive for K <= 8, else nearest-neighbour tours from
    every start improved by 2-opt. Returns a permutation (K,) starting at block 0.

    Parameters
    ----------
    density
        As above.
    """
    k = density.shape[0]
    if k <= 3:
        return np.arange(k)

    def tour_value(tour: tuple[int, ...] | list[int]) -> float:
        return float(sum(density[tour[t], tour[(t + 1) % k]] for t in range(k)))

    if k <= 8:
        best = max(((0, *rest) for rest in itertools.permutations(range(1, k))), key=tour_value)
        return np.array(best)
    best_tour, best_value = None, -np.inf
    for start in range(k):
        tour = [start]
        while len(tour) < k:
            remaining = [b for b in range(k) if b not in tour]
            tour.append(max(remaining, key=lambda b: density[tour[-1], b]))
        tour = _two_opt(tour, density)
        value = tour_value(tour)
        if value > best_value:
            best_tour, best_value = tour, value
    shift = best_tour.index(0)
    return np.array(best_tour[shift:] + best_tour[:shift])


def _two_opt(tour: list[int], density: np.ndarray) -> list[int]:
    k = len(tour)
    improved = True
    while improved:
        improved = False
        for i in range(k - 1):
            for j in range(i + 2, k if i > 0 else k - 1):
                a, b, c, d = tour[i], tour[i + 1], tour[j], tour[(j + 1) % k]
                if density[a, c] + density[b, d] > density[a, b] + density[c, d] + 1e-12:
                    tour[i + 1 : j + 1] = reversed(tour[i + 1 : j + 1])
                    improved = True
    return tour


def _clip(p: float) -> float:
    return float(np.clip(p, 1e-9, 1 - 1e-9))
