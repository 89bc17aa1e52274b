"""Fit the four graph priors to a graph and compare them by description length.

Each family is an estimator in the scikit-learn shape: ``ErdosRenyiFit().fit(a)`` returns
itself with fitted values in attributes ending in ``_``. ``a`` is a checked (n, n) matrix
(``analysis.matrix.link_matrix``): a 0/1 adjacency, or a weighted P whose entries are read as
expected links (the likelihood becomes the expected log-likelihood, the same formulas).

Two-part description length, in nats: ``-log-likelihood`` of the links under the fitted model
plus the cost of the model itself. Block families (one block for Erdos-Renyi) send the number of
links in each group of node pairs (inside blocks, between ring neighbours, elsewhere) and then
which pairs they are; the model cost is the counts plus the node labels (block sizes, then
which node is in which block; up to relabelling of the blocks for a planted partition, up to
rotation and reflection of the ring for a ring of cliques). The scale-free family sends each
node's degree under a fitted discrete power law (exponent and k_min: 0.5 log n + log n), then
the links as one of the configuration-model pairings of those degrees,
log((2E - 1)!!) - sum_i log k_i!, which bounds the number of graphs with that degree sequence.
All codes are exact for 0/1 graphs; for a weighted P the same formulas run on real counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import gammaln, zeta

from circuitlab.analysis import blocks
from circuitlab.analysis.matrix import is_binary
from circuitlab.prior_targets import sample_graph

__all__ = [
    "PlantedPartitionFit",
    "PriorFit",
    "RingOfCliquesFit",
    "ScaleFreeFit",
    "fit_all",
    "group_code",
    "label_cost",
    "merge_blocks",
    "n_pairs",
    "planted_partition_code",
]

_EPS = 1e-12
LOUVAIN_MAX_LINKS = 50_000  # Louvain in networkx takes ~1 s at this size
# Louvain at resolution 1 merges small cliques (its resolution limit): resolutions 2 and 4 kept
# them apart on the graphon check, but their many small blocks made the ring fit's cyclic order
# (2-opt over every start) slow on large graphs, so only 1 runs by default
LOUVAIN_RESOLUTIONS = (1.0,)


def log_binomial(pairs: np.ndarray | float, links: np.ndarray | float) -> np.ndarray:
    """log C(pairs, links), elementwise; real arguments allowed (expected links of a weighted P)."""
    pairs, links = np.asarray(pairs, dtype=float), np.asarray(links, dtype=float)
    return gammaln(pairs + 1) - gammaln(links + 1) - gammaln(pairs - links + 1)


def group_code(links: np.ndarray | float, pairs: np.ndarray | float) -> tuple[float, float]:
    """Nats to send the links of groups of node pairs: (-log-likelihood, parameter cost).

    Per group: its number of links, uniform on 0..pairs (the parameter, log(pairs + 1)),
    then which pairs they are, uniform among the C(pairs, links) choices (the likelihood).

    Parameters
    ----------
    links, pairs
        Each group's links and node pairs (arrays, or one number).
    """
    links, pairs = np.atleast_1d(links).astype(float), np.atleast_1d(pairs).astype(float)
    used = pairs > 0
    nll = float(log_binomial(pairs[used], links[used]).sum())
    return nll, float(np.log(pairs[used] + 1).sum())


def n_pairs(n: int) -> int:
    """The node pairs of ``n`` nodes, n (n - 1) / 2.

    Parameters
    ----------
    n
        Nodes.
    """
    return n * (n - 1) // 2


def label_cost(sizes: np.ndarray, log_symmetries: float) -> float:
    """Nats to send a partition of n nodes into blocks of ``sizes``: K, the sizes, the labels,
    less ``log_symmetries``, the log-number of relabellings that give the same model.

    Parameters
    ----------
    sizes, log_symmetries
        As above.
    """
    sizes = np.asarray(sizes, dtype=float)
    n, k = sizes.sum(), len(sizes)
    log_k = np.log(n)
    log_sizes = gammaln(n) - gammaln(k) - gammaln(n - k + 1)  # compositions of n into k parts
    log_labels = gammaln(n + 1) - gammaln(sizes + 1).sum()
    return float(log_k + log_sizes + log_labels - log_symmetries)


class PriorFit:
    """Base of the four fits: ``fit(a)``, ``description_length_``, ``params()``, ``expected()``."""

    family: str = ""
    log_likelihood_: float
    model_cost_: float

    @property
    def description_length_(self) -> float:
        return -self.log_likelihood_ + self.model_cost_

    def params(self) -> dict:
        raise NotImplementedError

    def expected(self) -> np.ndarray:
        """(n, n) link probabilities of the fitted model, zero diagonal."""
        raise NotImplementedError

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """One 0/1 adjacency drawn from the fitted model."""
        return sample_graph(self.expected(), rng)


class ErdosRenyiFit(PriorFit):
    """Every pair linked independently with one probability ``p_``."""

    family = "erdos_renyi"

    def fit(self, a: np.ndarray) -> ErdosRenyiFit:
        self.n_ = a.shape[0]
        links, pairs = np.triu(a, 1).sum(), n_pairs(self.n_)
        self.p_ = float(links / max(pairs, 1))
        nll, self.model_cost_ = group_code(links, pairs)
        self.log_likelihood_ = -nll
        return self

    def params(self) -> dict:
        return {"p": self.p_}

    def expected(self) -> np.ndarray:
        p = np.full((self.n_, self.n_), self.p_)
        np.fill_diagonal(p, 0.0)
        return p


def candidate_partitions(a: np.ndarray, seed: int = 0) -> list[np.ndarray]:
    """Block labellings to try: k-means on the Bethe-Hessian eigenvectors for K-1, K, K+1,
    1.5 K and 2 K blocks (K the Bethe-Hessian estimate, at least 2), on the adjacency spectral
    embedding for K'-1, K', K'+1 (K' where the eigenvalues of ``a`` drop most) and, for a sparse
    0/1 graph, the Louvain communities (``LOUVAIN_RESOLUTIONS``); each as found, refined by
    likelihood sweeps, and refined after ``merge_blocks``."""
    n = a.shape[0]

    def allowed(ks: tuple[int, ...]) -> list[int]:
        return sorted({k for k in ks if 2 <= k <= min(n - 1, blocks.MAX_BLOCKS)})

    k_est, vectors = blocks.bethe_hessian_blocks(a)
    # the Bethe Hessian counts too few of many small dense blocks (16-18 of 24 blocks of 11
    # modules at U = 256): 1.5 K and 2 K clusters too, which the refinement merges back to
    # the blocks there are (a cluster left empty is dropped)
    ks = (k_est - 1, k_est, k_est + 1, 2, 3, round(1.5 * k_est), 2 * k_est)
    found = [blocks.cluster(vectors, k, seed=seed) for k in allowed(ks)]
    k_gap, embedding = blocks.adjacency_embedding(a)
    found += [
        blocks.cluster(embedding, k, seed=seed) for k in allowed((k_gap - 1, k_gap, k_gap + 1))
    ]
    if is_binary(a) and a.sum() / 2 <= LOUVAIN_MAX_LINKS:
        found += [blocks.louvain(a, seed=seed, resolution=r) for r in LOUVAIN_RESOLUTIONS]
    partitions = []
    for labels in found:
        raw = blocks.relabel(labels)
        refined = blocks.refine(a, raw)
        merged = blocks.refine(a, merge_blocks(a, refined))
        for labels in (refined, raw, merged):
            if labels.max() >= 1 and not any(np.array_equal(labels, p) for p in partitions):
                partitions.append(labels)
    return partitions


def planted_partition_code(
    inside: np.ndarray,
    inside_pairs: np.ndarray,
    outside: np.ndarray,
    outside_pairs: np.ndarray,
    log_factorial_sizes: np.ndarray,
    n: int,
    k: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The planted partition's code in nats, elementwise over candidates: (-log-likelihood,
    model cost), the links inside and between blocks (``group_code``) and the labels
    (``label_cost`` with the K! relabellings), from the groups' link and pair counts,
    sum_b log(size_b!) and K. Their sum is the description length.

    Parameters
    ----------
    inside, inside_pairs, outside, outside_pairs
        Links and node pairs inside blocks and between them, per candidate.
    log_factorial_sizes
        sum_b log(size_b!) per candidate.
    n
        Nodes.
    k
        Blocks K per candidate.
    """
    nll = log_binomial(inside_pairs, inside) + log_binomial(outside_pairs, outside)
    params = np.log(inside_pairs + 1) * (inside_pairs > 0)
    params = params + np.log(outside_pairs + 1) * (outside_pairs > 0)
    labels = (
        np.log(n)
        + gammaln(n)
        - gammaln(k)
        - gammaln(n - k + 1)
        + gammaln(n + 1)
        - log_factorial_sizes
        - gammaln(k + 1)
    )
    return nll, params + labels


def _planted_partition_counts(
    links: np.ndarray, pairs: np.ndarray, sizes: np.ndarray
) -> tuple[float, float, float, float, float]:
    """(links inside blocks, pairs inside, links between, pairs between, sum_b log(size_b!))
    from the block counts (K, K) of ``blocks.block_counts`` and the block sizes (K,)."""
    inside, inside_pairs = np.trace(links), np.trace(pairs)
    outside, outside_pairs = (links.sum() - inside) / 2, (pairs.sum() - inside_pairs) / 2
    return inside, inside_pairs, outside, outside_pairs, gammaln(sizes + 1).sum()


def merge_blocks(a: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels`` (n,) with blocks merged two at a time, each time the pair whose merge
    shortens the planted partition's description length most, until no merge does.

    Spectral clustering asked for too many blocks splits some in two (25 of 24 blocks at
    U = 256); the refinement sweeps move single nodes and cannot join two halves.

    Parameters
    ----------
    a
        (n, n) the graph or P.
    labels
        As above.
    """
    labels = blocks.relabel(labels)
    n = len(labels)
    while labels.max() >= 1:
        links, pairs = blocks.block_counts(a, labels)
        sizes = np.bincount(labels).astype(float)
        k = len(sizes)
        counts = _planted_partition_counts(links, pairs, sizes)
        inside, inside_pairs, outside, outside_pairs, log_sizes_sum = counts
        log_sizes = gammaln(sizes + 1)
        current = sum(planted_partition_code(*counts, n, np.array(k)))
        i, j = np.triu_indices(k, 1)
        merged = sum(
            planted_partition_code(
                inside + links[i, j],
                inside_pairs + pairs[i, j],
                outside - links[i, j],
                outside_pairs - pairs[i, j],
                log_sizes_sum - log_sizes[i] - log_sizes[j] + gammaln(sizes[i] + sizes[j] + 1),
                n,
                np.full(len(i), k - 1),
            )
        )
        best = int(np.argmin(merged))
        if merged[best] >= current - 1e-9:
            break
        labels = blocks.relabel(np.where(labels == j[best], i[best], labels))
    return labels


class PlantedPartitionFit(PriorFit):
    """K blocks; pairs inside a block linked with ``p_in_``, across blocks with ``p_out_``."""

    family = "planted_partition"

    def fit(self, a: np.ndarray, partitions: list[np.ndarray] | None = None) -> PlantedPartitionFit:
        self.n_ = a.shape[0]
        partitions = candidate_partitions(a) if partitions is None else partitions
        if not partitions:
            raise ValueError("a planted partition needs at least 2 blocks and 3 nodes")
        best = None
        for labels in partitions:
            links, pairs = blocks.block_counts(a, labels)
            counts = _planted_partition_counts(links, pairs, np.bincount(labels))
            inside, inside_pairs, outside, outside_pairs, _ = counts
            nll, cost = planted_partition_code(*counts, self.n_, np.array(len(links)))
            ll, cost = -float(nll), float(cost)
            if best is None or cost - ll < best[0]:
                p_in = inside / max(inside_pairs, 1)
                p_out = outside / max(outside_pairs, 1)
                best = (cost - ll, ll, cost, labels, p_in, p_out)
        _, self.log_likelihood_, self.model_cost_, self.labels_, p_in, p_out = best
        self.n_blocks_ = int(self.labels_.max()) + 1
        self.p_in_, self.p_out_ = float(p_in), float(p_out)
        return self

    def params(self) -> dict:
        return {
            "n_blocks": self.n_blocks_,
            "p_in": self.p_in_,
            "p_out": self.p_out_,
            "labels": self.labels_.tolist(),
        }

    def expected(self) -> np.ndarray:
        same = self.labels_[:, None] == self.labels_[None, :]
        p = np.where(same, self.p_in_, self.p_out_)
        np.fill_diagonal(p, 0.0)
        return p


class RingOfCliquesFit(PriorFit):
    """K >= 4 blocks on a ring: ``p_in_`` inside a block, ``p_ring_`` between blocks next to
    each other on the ring, ``p_out_`` between all other blocks.

    The links between ring neighbours are sent in the cheapest of three ways, at the cost of
    a flag (log 3): as one group (``bridges_ = "random"``); when every pair of neighbours is
    joined by the same number b of links, as b per pair (``bridges_ = "exact"``: networkx's
    ``ring_of_cliques`` joins neighbours by one link); or through **heads**, modules that link
    to every module of a neighbouring block (``bridges_ = "heads"``: the authors' target,
    ``circuitlab.prior_targets.ring_of_cliques``, links each block's first node to every node
    of the next block). With heads, the heads' links to their neighbours
    form one group (``p_head_``), the other neighbour pairs another (``p_bridge_``); which
    nodes are heads (``heads_``) and which neighbour each links to (``head_targets_``) are
    sent too (``_heads_code``).
    ``p_ring_`` is the rate over every neighbour pair whatever the coding, so it means the same
    for all three. Three blocks on a ring are all neighbours, the same model as a planted
    partition, so a ring needs four.
    """

    family = "ring_of_cliques"

    def fit(self, a: np.ndarray, partitions: list[np.ndarray] | None = None) -> RingOfCliquesFit:
        self.n_ = a.shape[0]
        partitions = candidate_partitions(a) if partitions is None else partitions
        partitions = [p for p in partitions if p.max() >= 3]
        if not partitions:
            raise ValueError("a ring of cliques needs at least 4 blocks (3 is a planted partition)")
        best = None
        for labels in partitions:
            links, pairs = blocks.block_counts(a, labels)
            k = len(links)
            order = blocks.ring_order(links / np.maximum(pairs, 1))
            position = np.empty(k, dtype=int)
            position[order] = np.arange(k)
            step = np.abs(position[:, None] - position[None, :])
            ring = np.triu((step == 1) | (step == k - 1))
            outside = np.triu(step > 1) & ~ring
            inside = np.eye(k, dtype=bool)
            nll, cost = group_code(
                [links[inside].sum(), links[outside].sum()],
                [pairs[inside].sum(), pairs[outside].sum()],
            )
            ring_nll, ring_cost, bridges = _ring_code(links[ring], pairs[ring])
            heads = _heads_code(a, labels, order)
            if heads.nll + heads.cost < ring_nll + ring_cost:
                ring_nll, ring_cost, bridges = heads.nll, heads.cost, "heads"
            ll = -(nll + ring_nll)
            cost += ring_cost + label_cost(np.bincount(labels), np.log(2 * k))
            if best is None or cost - ll < best[0]:
                groups = [(links[m].sum(), pairs[m].sum()) for m in (inside, ring, outside)]
                rates = [e / n if n > 0 else 0.0 for e, n in groups]
                best = (cost - ll, ll, cost, labels, order, rates, bridges, heads)
        _, self.log_likelihood_, self.model_cost_, self.labels_, self.order_ = best[:5]
        rates, bridges, heads = best[5:]
        self.p_in_, self.p_ring_, self.p_out_ = (float(r) for r in rates)
        self.bridges_ = bridges
        with_heads = bridges == "heads"
        self.heads_ = heads.heads if with_heads else None
        self.head_targets_ = heads.targets if with_heads else None
        self.p_head_ = heads.p_head if with_heads else self.p_ring_
        self.p_bridge_ = heads.p_bridge if with_heads else self.p_ring_
        self.n_cliques_ = int(self.labels_.max()) + 1
        self.clique_size_ = float(self.n_ / self.n_cliques_)
        return self

    def params(self) -> dict:
        return {
            "n_cliques": self.n_cliques_,
            "clique_size": self.clique_size_,
            "p_in": self.p_in_,
            "p_ring": self.p_ring_,
            "p_out": self.p_out_,
            "bridges": self.bridges_,
            "p_head": self.p_head_,
            "p_bridge": self.p_bridge_,
            "labels": self.labels_.tolist(),
            "ring_order": self.order_.tolist(),
            "heads": None if self.heads_ is None else self.heads_.tolist(),
            "head_targets": None if self.heads_ is None else self.head_targets_.tolist(),
        }

    def expected(self) -> np.ndarray:
        k = self.n_cliques_
        position = np.empty(k, dtype=int)
        position[self.order_] = np.arange(k)
        node_pos = position[self.labels_]
        step = np.abs(node_pos[:, None] - node_pos[None, :])
        p = np.where(step == 0, self.p_in_, self.p_out_)
        neighbours = (step == 1) | (step == k - 1)
        if self.heads_ is None:
            p = np.where(neighbours, self.p_ring_, p)
        else:
            p = np.where(neighbours, self.p_bridge_, p)
            for head, neighbour in zip(self.heads_, self.head_targets_, strict=True):
                p[head, self.labels_ == neighbour] = self.p_head_
                p[self.labels_ == neighbour, head] = self.p_head_
        np.fill_diagonal(p, 0.0)
        return p


@dataclass
class RingHeads:
    """The ring's links coded through heads (``_heads_code``): ``heads`` (H,) the head nodes
    and ``targets`` (H,) the neighbouring block each links to; nats ``nll`` and ``cost``; the
    rate on the heads' pairs and on the other neighbour pairs."""

    heads: np.ndarray
    targets: np.ndarray
    nll: float
    cost: float
    p_head: float
    p_bridge: float


def _heads_code(a: np.ndarray, labels: np.ndarray, order: np.ndarray) -> RingHeads:
    """Nats for the links between ring neighbours sent through heads.

    ``a`` (n, n), ``labels`` (n,) block of each node, ``order`` (K,) the blocks in ring order.
    A head is a node that links to every node of one of its block's two ring neighbours (the
    authors' target, ``circuitlab.prior_targets.ring_of_cliques``, makes each block's first
    node one; a partition may put it in either block it links to, so a block can hold zero,
    one or two). Nodes are taken as heads in the order of their rate of links to their best
    neighbour, as many as make the code shortest: the heads' pairs are one group
    (``p_head``), the other neighbour pairs another (``p_bridge``); plus the number of heads,
    which nodes (log C(n, H)), each one's neighbour (log 2) and log 3 for the flag that picks
    this coding.
    """
    n, k = len(labels), len(order)
    position = np.empty(k, dtype=int)
    position[order] = np.arange(k)
    members = [labels == b for b in range(k)]
    ring_links = ring_pairs = 0.0
    for t in range(k):
        here, after = members[order[t]], members[order[(t + 1) % k]]
        ring_links += a[np.ix_(here, after)].sum()
        ring_pairs += here.sum() * after.sum()
    # each node's better ring neighbour and its rate of links there
    neighbours = np.stack(
        [order[(position[labels] + 1) % k], order[(position[labels] - 1) % k]], axis=1
    )
    to_block = np.stack([a[:, members[b]].sum(axis=1) for b in range(k)], axis=1)  # (n, K)
    sizes = np.bincount(labels, minlength=k)
    rates = np.take_along_axis(to_block, neighbours, axis=1) / sizes[neighbours]
    better = np.argmax(rates, axis=1)
    chosen = neighbours[np.arange(n), better]
    ranked = np.argsort(-rates[np.arange(n), better], kind="stable")
    covered = np.zeros((n, n), dtype=bool)
    head_links = head_pairs = 0.0
    best = None
    for count in range(n + 1):
        if count:
            node = ranked[count - 1]
            new = members[chosen[node]] & ~covered[node]
            head_links += a[node, new].sum()
            head_pairs += new.sum()
            covered[node, new] = covered[new, node] = True
        rest_links, rest_pairs = ring_links - head_links, ring_pairs - head_pairs
        nll, cost = group_code([head_links, rest_links], [head_pairs, rest_pairs])
        cost += np.log(n + 1) + float(log_binomial(n, count)) + count * np.log(2) + np.log(3)
        if best is None or nll + cost < best[0] + best[1]:
            p_head = head_links / head_pairs if head_pairs else 0.0
            p_bridge = rest_links / rest_pairs if rest_pairs else 0.0
            best = (nll, cost, count, float(p_head), float(p_bridge))
    nll, cost, count, p_head, p_bridge = best
    heads = ranked[:count]
    return RingHeads(heads, chosen[heads], nll, cost, p_head, p_bridge)


def _ring_code(links: np.ndarray, pairs: np.ndarray) -> tuple[float, float, str]:
    """Nats for the links between ring neighbours, (nll, cost, "random" | "exact").

    ``links``, ``pairs`` (K,): one entry per neighbouring pair of blocks. One group, or b links
    in each pair when all counts are the same integer b; plus log 3 for which of the three
    codings (the third, through heads, is ``_heads_code``).
    """
    nll, cost = group_code(links.sum(), pairs.sum())
    best = (nll, cost + np.log(3), "random")
    count = links[0]
    if np.all(links == count) and float(count).is_integer():
        exact_nll = float(log_binomial(pairs, count).sum())
        exact_cost = float(np.log(pairs.min() + 1)) + np.log(3)
        if exact_nll + exact_cost < best[0] + best[1]:
            best = (exact_nll, exact_cost, "exact")
    return best


class ScaleFreeFit(PriorFit):
    """Degrees drawn from a discrete power law k^-``exponent_`` (k >= ``k_min_``), links a
    configuration-model pairing of them. Degrees below k_min (a Barabasi-Albert graph's seed
    nodes) are sent uniformly on 1..k_min-1, isolated nodes by their number and positions;
    k_min is the value (at most the median degree) that makes the degree code shortest.
    ``m_`` is the Barabasi-Albert m that gives this many links (the root of m (n - m) = E,
    rounded)."""

    family = "scale_free"

    def fit(self, a: np.ndarray) -> ScaleFreeFit:
        n = self.n_ = a.shape[0]
        degrees = a.sum(axis=1)
        links = degrees.sum() / 2
        self.m_ = int(max(1, round((n - np.sqrt(max(n * n - 4 * links, 0.0))) / 2)))
        counts = np.rint(degrees).astype(int)
        self.k_min_, self.exponent_, degree_nll = _degree_code(counts)
        self.degrees_ = degrees
        self.log_likelihood_ = -_pairing_code(degrees)
        self.model_cost_ = degree_nll
        return self

    def params(self) -> dict:
        return {"m": self.m_, "exponent": self.exponent_, "k_min": self.k_min_}

    def expected(self) -> np.ndarray:
        """Chung-Lu link probabilities of the observed degrees (an approximation of the
        model's expected links, used for overlays)."""
        return _chung_lu(self.degrees_)

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """Degrees drawn from the fitted power law (isolated nodes kept isolated), joined by a
        configuration model; multi-links and self-loops dropped."""
        n = self.n_
        observed = np.rint(self.degrees_)
        tail = np.flatnonzero(observed >= self.k_min_)
        low = np.flatnonzero((observed > 0) & (observed < self.k_min_))
        support = np.arange(self.k_min_, max(self.k_min_ + 1, n))
        weights = support ** -float(self.exponent_)
        degrees = np.zeros(n, dtype=int)
        degrees[tail] = rng.choice(support, size=len(tail), p=weights / weights.sum())
        degrees[low] = rng.integers(1, self.k_min_, size=len(low))
        linked = np.flatnonzero(degrees)
        if degrees.sum() % 2 and len(linked):
            degrees[linked[0]] += 1
        graph = nx.configuration_model(degrees.tolist(), seed=int(rng.integers(2**31)))
        a = nx.to_numpy_array(nx.Graph(graph), nodelist=range(n), weight=None)
        np.fill_diagonal(a, 0.0)
        return np.minimum(a, 1.0)


def _chung_lu(degrees: np.ndarray) -> np.ndarray:
    total = max(degrees.sum(), _EPS)
    p = np.minimum(1.0, np.outer(degrees, degrees) / total)
    np.fill_diagonal(p, 0.0)
    return p


def _pairing_code(degrees: np.ndarray) -> float:
    """log((2E - 1)!!) - sum_i log k_i!: nats to pick a graph among the stub pairings."""
    stubs = degrees.sum()
    links = stubs / 2
    pairings = gammaln(stubs + 1) - links * np.log(2) - gammaln(links + 1)
    return float(pairings - gammaln(degrees + 1).sum())


def _degree_code(counts: np.ndarray) -> tuple[int, float, float]:
    """(k_min, exponent, nats) of the shortest degree code over k_min <= the median degree:
    isolated nodes and nodes below k_min by their number and positions (the low ones' degrees
    uniform on 1..k_min-1), the rest under the fitted power law; plus 0.5 log n + log n for the
    exponent and k_min."""
    n = len(counts)
    positive = counts[counts > 0]
    if len(positive) == 0:
        return 1, float("nan"), 0.0
    overhead = 1.5 * np.log(n)
    best = None
    for k_min in np.unique(positive[positive <= np.median(positive)]):
        tail, low = positive[positive >= k_min], positive[positive < k_min]
        exponent, nats = _fit_power_law(tail, int(k_min))
        for group in (n - len(positive), len(low)):
            if group:
                nats += np.log(n + 1) + float(log_binomial(n, group))
        if len(low):
            nats += len(low) * np.log(k_min - 1)
        if best is None or nats < best[2]:
            best = (int(k_min), exponent, nats)
    k_min, exponent, nats = best
    return k_min, exponent, nats + overhead


def _fit_power_law(degrees: np.ndarray, k_min: int) -> tuple[float, float]:
    """Maximum-likelihood exponent of a discrete power law on ``degrees`` >= ``k_min`` and the
    -log-likelihood there: p(k) = k^-alpha / zeta(alpha, k_min)."""
    if len(degrees) == 0:
        return float("nan"), 0.0
    log_sum = np.log(degrees).sum()
    count = len(degrees)

    def nll(alpha: float) -> float:
        return float(alpha * log_sum + count * np.log(zeta(alpha, k_min)))

    result = minimize_scalar(nll, bounds=(1.05, 12.0), method="bounded")
    return float(result.x), float(result.fun)


def fit_all(a: np.ndarray, seed: int = 0) -> dict[str, PriorFit]:
    """Fit every family that applies to the checked matrix ``a`` (n, n): {family: fit}.

    Parameters
    ----------
    a
        As above.
    seed
        Seed of the partitions' k-means.
    """
    fits: dict[str, PriorFit] = {"erdos_renyi": ErdosRenyiFit().fit(a)}
    density = fits["erdos_renyi"].p_
    if density in (0.0, 1.0):
        return fits
    partitions = candidate_partitions(a, seed=seed)
    for family, fit in (
        ("planted_partition", PlantedPartitionFit()),
        ("ring_of_cliques", RingOfCliquesFit()),
    ):
        try:
            fits[family] = fit.fit(a, partitions)
        except ValueError:  # too few blocks for this family
            pass
    fits["scale_free"] = ScaleFreeFit().fit(a)
    return fits
