"""Graph priors over module connectivity: their expected adjacencies, in numpy.

The regulariser that pulls a NAC's link probabilities towards one is ``circuitlab.prior_loss``
(torch); ``circuitlab.analysis`` fits these families to learned graphs. Both read the names
and targets from here, so analysis never imports torch.

Targets G (U x U, symmetric, entries are link probabilities, node index i from 1), as in the
authors' released code:

- ``scale_free``: G_ij = min(1, sqrt(U) / (16 sqrt(i j)))  (Barabasi-Albert-like);
- ``planted_partition``: p_out everywhere, p_in on C contiguous diagonal blocks
  (default C = max(1, U // 32), p_in = 0.9, p_out = 0.05);
- ``ring_of_cliques``: the planted-partition blocks, plus the first node of block c linked with
  probability 1 to every node of blocks c and c + 1, the ring closed (block C-1 to block 0);
- ``erdos_renyi``: G_ij = p (default: the planted-partition target's density).

The diagonal is 1 in every target: P_ii = 1 for every signature, so self-links carry no signal.
"Density" always means the mean off-diagonal entry.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = [
    "PRIOR_NAMES",
    "block_labels",
    "block_sizes",
    "closest_permutation",
    "default_blocks",
    "erdos_renyi",
    "off_diagonal_density",
    "planted_partition",
    "ring_of_cliques",
    "sample_graph",
    "scale_free",
    "target",
]

PRIOR_NAMES = ("scale_free", "planted_partition", "ring_of_cliques", "erdos_renyi")


def _with_unit_diagonal(g: np.ndarray) -> np.ndarray:
    np.fill_diagonal(g, 1.0)
    return g


def block_sizes(n_modules: int, n_blocks: int) -> list[int]:
    """Sizes of ``n_blocks`` contiguous blocks covering ``n_modules`` nodes, near-equal.

    Parameters
    ----------
    n_modules
        Nodes.
    n_blocks
        Blocks.
    """
    if not 1 <= n_blocks <= n_modules:
        raise ValueError(f"n_blocks must be in [1, {n_modules}], got {n_blocks}")
    return [len(b) for b in np.array_split(np.arange(n_modules), n_blocks)]


def block_labels(n_modules: int, n_blocks: int) -> np.ndarray:
    """Block index of every node: (U,) int.

    Parameters
    ----------
    n_modules
        Nodes U.
    n_blocks
        Blocks.
    """
    return np.repeat(np.arange(n_blocks), block_sizes(n_modules, n_blocks))


def default_blocks(n_modules: int) -> int:
    """The number of blocks of a target over ``n_modules`` nodes when none is given.

    Parameters
    ----------
    n_modules
        Nodes U.
    """
    return max(1, n_modules // 32)


def scale_free(n_modules: int) -> np.ndarray:
    """G_ij = min(1, sqrt(U) / (16 sqrt(i j))), i, j = 1..U: (U, U) float64.

    Parameters
    ----------
    n_modules
        Nodes U.
    """
    i = np.arange(1, n_modules + 1, dtype=np.float64)
    g = np.minimum(1.0, np.sqrt(n_modules) / (16.0 * np.sqrt(np.outer(i, i))))
    return _with_unit_diagonal(g)


def planted_partition(
    n_modules: int, n_blocks: int | None = None, p_in: float = 0.9, p_out: float = 0.05
) -> np.ndarray:
    """p_in inside C contiguous diagonal blocks, p_out elsewhere: (U, U) float64.

    Parameters
    ----------
    n_modules
        Nodes U.
    n_blocks
        Blocks C (default: ``default_blocks``).
    p_in, p_out
        Link probabilities inside and between blocks.
    """
    labels = block_labels(n_modules, n_blocks or default_blocks(n_modules))
    g = np.where(labels[:, None] == labels[None, :], p_in, p_out).astype(np.float64)
    return _with_unit_diagonal(g)


def ring_of_cliques(
    n_modules: int, n_blocks: int | None = None, p_in: float = 0.9, p_out: float = 0.05
) -> np.ndarray:
    """Planted-partition blocks whose first nodes link each block to the next, ring closed.

    Parameters
    ----------
    n_modules
        Nodes U.
    n_blocks
        Cliques (default: ``default_blocks``).
    p_in, p_out
        Link probabilities inside and between cliques (the ring's links aside).
    """
    n_blocks = n_blocks or default_blocks(n_modules)
    g = planted_partition(n_modules, n_blocks, p_in, p_out)
    labels = block_labels(n_modules, n_blocks)
    starts = np.concatenate([[0], np.cumsum(block_sizes(n_modules, n_blocks))[:-1]])
    for c, head in enumerate(starts):
        for block in {c, (c + 1) % n_blocks}:
            members = labels == block
            g[head, members] = 1.0
            g[members, head] = 1.0
    return g


def off_diagonal_density(g: np.ndarray) -> float:
    """The mean off-diagonal entry of ``g`` (U, U).

    Parameters
    ----------
    g
        (U, U) a graph or its expectation.
    """
    n = g.shape[0]
    return float((g.sum() - np.trace(g)) / (n * (n - 1)))


def erdos_renyi(n_modules: int, p: float | None = None) -> np.ndarray:
    """Every off-diagonal entry p (default: the planted-partition target's density).

    Parameters
    ----------
    n_modules
        Nodes U.
    p
        As above.
    """
    if p is None:
        p = off_diagonal_density(planted_partition(n_modules))
    return _with_unit_diagonal(np.full((n_modules, n_modules), float(p)))


TARGETS: dict[str, Callable[..., np.ndarray]] = {
    "scale_free": scale_free,
    "planted_partition": planted_partition,
    "ring_of_cliques": ring_of_cliques,
    "erdos_renyi": erdos_renyi,
}


def target(name: str, n_modules: int, **params: float) -> np.ndarray:
    """The expected adjacency E[G] of prior ``name`` for ``n_modules`` modules: (U, U).

    Parameters
    ----------
    name
        The prior's name (``PRIOR_NAMES``).
    n_modules
        Nodes U.
    **params
        The prior's parameters (``prior_params``).
    """
    if name not in TARGETS:
        raise ValueError(f"unknown prior {name!r}; choose one of {PRIOR_NAMES}")
    allowed = set(inspect.signature(TARGETS[name]).parameters) - {"n_modules"}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"prior {name!r} takes parameters {sorted(allowed)}, not {unknown}")
    return TARGETS[name](n_modules, **params)


def sample_graph(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One symmetric 0/1 adjacency with independent links P(i ~ j) = p_ij, zero diagonal.

    Parameters
    ----------
    p
        (U, U) link probabilities.
    rng
        The random generator.
    """
    upper = np.triu(rng.random(p.shape) < p, k=1)
    return (upper | upper.T).astype(np.float64)


def _row_cost(g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """cost[t, i] = mean_k (g[t, k] - p[i, k])^2 for (U, U) inputs."""
    n = g.shape[1]
    return (g**2).mean(1)[:, None] + (p**2).mean(1)[None, :] - 2.0 * g @ p.T / n


def closest_permutation(
    p: np.ndarray, g: np.ndarray, max_refinements: int = 20, restarts: int = 4
) -> np.ndarray:
    """``perm`` with ``P[perm][:, perm]`` close to G, by linear assignment of rows.

    Rows are first matched by their sorted entries (cost[t, i] = mean_k (sort G_t - sort P_i)^2),
    which, unlike comparing rows column by column, does not depend on how P's modules are
    ordered; then rows are re-matched with P's columns aligned by the current permutation until
    the matching stops changing (at most ``max_refinements`` rounds). The sorted start alone
    cannot tell planted blocks apart (their rows look alike); the refinement finds them from
    most starts but can stop at a matching that mixes blocks, so ``restarts`` more sorted starts,
    each with G's nodes in another (seeded) order, are refined too, and the permutation with the
    least squared error kept (the first start's on a tie).
    Returns perm (U,) int with perm[t] = the module of P placed at G's node t.

    Parameters
    ----------
    p
        (U, U) the learned P.
    g
        (U, U) the target.
    max_refinements
        As above.
    restarts
        More starts refined beside the first, as above.
    """
    rng = np.random.default_rng(0)
    orders = [np.arange(len(g))] + [rng.permutation(len(g)) for _ in range(restarts)]
    starts = []
    for order in orders:  # G's nodes taken in another order: the ties between alike rows go
        # another way; drawn on G's side, so relabelling P relabels the answer
        start = np.empty(len(g), dtype=np.int64)
        start[order] = linear_sum_assignment(_row_cost(np.sort(g[order], 1), np.sort(p, 1)))[1]
        starts.append(start)
    best, best_error = starts[0], np.inf
    for start in starts:
        perm = _refined(p, g, start, max_refinements)
        error = float(((p[np.ix_(perm, perm)] - g) ** 2).mean())
        if error < best_error:
            best, best_error = perm, error
    return best


def _refined(p: np.ndarray, g: np.ndarray, perm: np.ndarray, max_refinements: int) -> np.ndarray:
    """``perm`` re-matched row by row with P's columns aligned by it, until it stops changing."""
    for _ in range(max_refinements):
        refined = linear_sum_assignment(_row_cost(g, p[:, perm]))[1]
        if np.array_equal(refined, perm):
            break
        perm = refined
    return perm
