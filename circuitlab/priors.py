"""Graph priors over module connectivity and the structure regulariser that imposes them.

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
import torch
from scipy.optimize import linear_sum_assignment

PRIOR_NAMES = ("scale_free", "planted_partition", "ring_of_cliques", "erdos_renyi")


def _with_unit_diagonal(g: np.ndarray) -> np.ndarray:
    np.fill_diagonal(g, 1.0)
    return g


def block_sizes(n_modules: int, n_blocks: int) -> list[int]:
    """Sizes of ``n_blocks`` contiguous blocks covering ``n_modules`` nodes, near-equal."""
    if not 1 <= n_blocks <= n_modules:
        raise ValueError(f"n_blocks must be in [1, {n_modules}], got {n_blocks}")
    return [len(b) for b in np.array_split(np.arange(n_modules), n_blocks)]


def block_labels(n_modules: int, n_blocks: int) -> np.ndarray:
    """Block index of every node: (U,) int."""
    return np.repeat(np.arange(n_blocks), block_sizes(n_modules, n_blocks))


def default_blocks(n_modules: int) -> int:
    return max(1, n_modules // 32)


def scale_free(n_modules: int) -> np.ndarray:
    """G_ij = min(1, sqrt(U) / (16 sqrt(i j))), i, j = 1..U: (U, U) float64."""
    i = np.arange(1, n_modules + 1, dtype=np.float64)
    g = np.minimum(1.0, np.sqrt(n_modules) / (16.0 * np.sqrt(np.outer(i, i))))
    return _with_unit_diagonal(g)


def planted_partition(
    n_modules: int, n_blocks: int | None = None, p_in: float = 0.9, p_out: float = 0.05
) -> np.ndarray:
    """p_in inside C contiguous diagonal blocks, p_out elsewhere: (U, U) float64."""
    labels = block_labels(n_modules, n_blocks or default_blocks(n_modules))
    g = np.where(labels[:, None] == labels[None, :], p_in, p_out).astype(np.float64)
    return _with_unit_diagonal(g)


def ring_of_cliques(
    n_modules: int, n_blocks: int | None = None, p_in: float = 0.9, p_out: float = 0.05
) -> np.ndarray:
    """Planted-partition blocks whose first nodes link each block to the next, ring closed."""
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
    n = g.shape[0]
    return float((g.sum() - np.trace(g)) / (n * (n - 1)))


def erdos_renyi(n_modules: int, p: float | None = None) -> np.ndarray:
    """Every off-diagonal entry p (default: the planted-partition target's density)."""
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
    """The expected adjacency E[G] of prior ``name`` for ``n_modules`` modules: (U, U)."""
    if name not in TARGETS:
        raise ValueError(f"unknown prior {name!r}; choose one of {PRIOR_NAMES}")
    allowed = set(inspect.signature(TARGETS[name]).parameters) - {"n_modules"}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"prior {name!r} takes parameters {sorted(allowed)}, not {unknown}")
    return TARGETS[name](n_modules, **params)


def sample_adjacency(expected: np.ndarray, seed: int | None = None) -> np.ndarray:
    """A symmetric 0/1 adjacency (unit diagonal) with independent edges P(i~j) = expected_ij."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random(expected.shape) < expected, k=1)
    return _with_unit_diagonal((upper | upper.T).astype(np.float64))


def _row_cost(g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """cost[t, i] = mean_k (g[t, k] - p[i, k])^2 for (U, U) inputs."""
    n = g.shape[1]
    return (g**2).mean(1)[:, None] + (p**2).mean(1)[None, :] - 2.0 * g @ p.T / n


def closest_permutation(p: np.ndarray, g: np.ndarray, max_refinements: int = 20) -> np.ndarray:
    """perm with P[perm][:, perm] close to G, by linear assignment of rows.

    Rows are first matched by their sorted entries (cost[t, i] = mean_k (sort G_t - sort P_i)^2),
    which, unlike comparing rows column by column, does not depend on how P's modules are
    ordered; then rows are re-matched with P's columns aligned by the current permutation until
    the matching stops changing (at most ``max_refinements`` rounds). The sorted start alone
    cannot tell planted blocks apart (their rows look alike); the refinement finds them.
    Returns perm (U,) int with perm[t] = the module of P placed at G's node t.
    """
    perm = linear_sum_assignment(_row_cost(np.sort(g, axis=1), np.sort(p, axis=1)))[1]
    for _ in range(max_refinements):
        refined = linear_sum_assignment(_row_cost(g, p[:, perm]))[1]
        if np.array_equal(refined, perm):
            break
        perm = refined
    return perm


def matched_mse(p: torch.Tensor, g: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    """MSE(P[perm][:, perm], G) for P (..., U, U), G (U, U); mean over any batch dimension."""
    return ((p[..., perm, :][..., :, perm] - g) ** 2).mean()


def spectral_loss(p: torch.Tensor, g: torch.Tensor, beta: float | None = None) -> torch.Tensor:
    """||eigvalsh(P) - eigvalsh(G)||^2 / U + beta ||sort(deg P) - sort(deg G)||^2.

    Exactly invariant to relabelling P's modules. ``beta`` defaults to 1 / U. P (..., U, U).
    """
    n = g.shape[-1]
    beta = 1.0 / n if beta is None else beta
    spectrum = ((torch.linalg.eigvalsh(p) - torch.linalg.eigvalsh(g)) ** 2).sum(-1) / n
    degrees = ((p.sum(-1).sort(-1).values - g.sum(-1).sort(-1).values) ** 2).sum(-1)
    return (spectrum + beta * degrees).mean()


class GraphPriorRegularizer(torch.nn.Module):
    """weight * loss(P, G): pulls the link probabilities P of processor modules towards a prior.

    ``loss="matched_mse"`` compares P, relabelled by the closest permutation, with G; the
    matching (no gradient through it) is recomputed every ``rematch_every`` calls, on the batch
    mean of P for a conditional NAC. ``loss="spectral"`` is the exactly permutation-invariant
    loss. The cached permutation is a buffer, so a checkpoint resumes with the same matching.
    """

    def __init__(
        self,
        prior: str,
        n_modules: int,
        *,
        weight: float = 0.1,
        loss: str = "matched_mse",
        rematch_every: int = 50,
        beta: float | None = None,
        **params: float,
    ) -> None:
        super().__init__()
        if loss not in ("matched_mse", "spectral"):
            raise ValueError(f"loss must be 'matched_mse' or 'spectral', got {loss!r}")
        if rematch_every < 1:
            raise ValueError(f"rematch_every must be >= 1, got {rematch_every}")
        self.prior, self.weight, self.loss, self.beta = prior, weight, loss, beta
        self.rematch_every = rematch_every
        self.register_buffer("target", torch.tensor(target(prior, n_modules, **params)).float())
        self.register_buffer("perm", torch.arange(n_modules))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, p: torch.Tensor) -> torch.Tensor:
        """P (U, U) or (B, U, U) -> weighted scalar loss."""
        if p.shape[-1] != self.target.shape[0]:
            raise ValueError(
                f"P has {p.shape[-1]} modules but the prior was built for {self.target.shape[0]}"
            )
        g = self.target.to(p.dtype)
        if self.loss == "spectral":
            return self.weight * spectral_loss(p, g, self.beta)
        # Evaluation always matches afresh; training reuses the matching between rematches.
        if not self.training or int(self.calls) % self.rematch_every == 0:
            mean_p = p.detach().reshape(-1, *p.shape[-2:]).mean(0).cpu().double().numpy()
            perm = closest_permutation(mean_p, self.target.cpu().double().numpy())
            self.perm.copy_(torch.from_numpy(perm))
        if self.training:
            self.calls += 1
        return self.weight * matched_mse(p, g, self.perm)
