"""Graphs, statistics and prior fits of circuitlab.analysis on graphs of known structure."""

from math import comb, log

import networkx as nx
import numpy as np
import pytest

from circuitlab import prior_targets
from circuitlab.analysis import blocks
from circuitlab.analysis.communities import communities
from circuitlab.analysis.graphs import to_graph
from circuitlab.analysis.matrix import LinkMatrixError, check_link_matrix, link_matrix
from circuitlab.analysis.prior_families import (
    PlantedPartitionFit,
    RingOfCliquesFit,
    ScaleFreeFit,
    group_code,
    label_cost,
)
from circuitlab.analysis.prior_verdict import (
    AMBIGUITY_NATS,
    NO_PRIOR_FITS,
    best_prior,
    block_order,
    fit_priors,
)
from circuitlab.analysis.recovery import recovery, summary
from circuitlab.analysis.stats import graph_stats
from circuitlab.circuit import Circuit


def test_to_graph_threshold_top_k_and_sample():
    p = np.array(
        [[1.0, 0.9, 0.2, 0.1], [0.9, 1.0, 0.6, 0.3], [0.2, 0.6, 1.0, 0.4], [0.1, 0.3, 0.4, 1.0]]
    )
    assert sorted(to_graph(p).edges) == [(0, 1), (1, 2)]
    assert sorted(to_graph(p, threshold=0.35).edges) == [(0, 1), (1, 2), (2, 3)]
    # top-1: 0->1, 1->0, 2->1, 3->2 (kept if either end chose it)
    assert sorted(to_graph(p, top_k=1).edges) == [(0, 1), (1, 2), (2, 3)]
    graph = to_graph(p, top_k=1)
    assert graph.edges[1, 2]["p"] == pytest.approx(0.6)
    assert graph.nodes[1]["degree"] == 2 and graph.nodes[3]["role"] == "processor"
    draws = np.mean([to_graph(p, sample=True, seed=s).has_edge(0, 1) for s in range(400)])
    assert draws == pytest.approx(0.9, abs=0.05)
    assert sorted(to_graph(p, sample=True, seed=3).edges) == sorted(
        to_graph(p, sample=True, seed=3).edges
    )
    with pytest.raises(ValueError, match="pick one"):
        to_graph(p, threshold=0.5, top_k=2)
    with pytest.raises(ValueError, match="top_k"):
        to_graph(p, top_k=4)


def test_to_graph_of_a_circuit_keeps_roles_and_matches_circuit_graph():
    rng = np.random.default_rng(0)
    roles = ["processor"] * 6 + ["readout"] * 2
    circuit = Circuit(rng.standard_normal((8, 4)), roles, eps=1.0)
    graph = to_graph(circuit)
    assert sorted(graph.edges) == sorted(circuit.to_networkx(0.5).edges)
    assert graph.nodes[7]["role"] == "readout"


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((2, 3)), "square"),
        (np.zeros((0, 0)), "empty"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "NaN"),
        (np.array([[0.0, 1.5], [1.5, 0.0]]), r"outside \[0, 1\]"),
        (np.array([[0.0, 0.2], [0.7, 0.0]]), "not symmetric"),
    ],
)
def test_bad_matrices_are_refused_with_the_reason(matrix, message):
    with pytest.raises(LinkMatrixError, match=message):
        check_link_matrix(matrix)


def test_graph_stats_on_known_graphs():
    complete = graph_stats(nx.complete_graph(6)).iloc[0]
    assert complete["density"] == 1 and complete["transitivity"] == 1
    assert complete["eigenvalue_1"] == pytest.approx(5.0)  # K_n: n - 1
    assert complete["components"] == 1
    two = graph_stats(nx.disjoint_union(nx.complete_graph(5), nx.complete_graph(5))).iloc[0]
    assert two["communities"] == 2 and two["components"] == 2
    assert two["modularity"] == pytest.approx(0.5)
    empty = graph_stats(nx.empty_graph(4)).iloc[0]
    assert empty["edges"] == 0 and empty["modularity"] == 0 and empty["components"] == 4
    star = graph_stats(nx.star_graph(30)).iloc[0]
    assert star["hubs"] == 1 and star["degree_max"] == 30
    with pytest.raises(ValueError, match="at least one node"):
        graph_stats(nx.Graph())
    with pytest.raises(ValueError, match="backend"):
        communities(nx.path_graph(3), backend="nope")


def test_codes_match_a_direct_count():
    nll, cost = group_code([3, 0], [10, 4])
    assert nll == pytest.approx(log(comb(10, 3)) + log(comb(4, 0)))
    assert cost == pytest.approx(log(11) + log(5))
    # two blocks of 2 among 4 nodes, blocks exchangeable: K, sizes, labels, less log 2!
    expected = log(4) + log(comb(3, 1)) + log(comb(4, 2)) - log(2)
    assert label_cost(np.array([2, 2]), log(2)) == pytest.approx(expected)


def test_planted_partition_recovers_blocks_and_rates():
    graph = nx.planted_partition_graph(4, 40, 0.5, 0.02, seed=1)
    fit = PlantedPartitionFit().fit(link_matrix(graph))
    truth = np.repeat(np.arange(4), 40)
    assert fit.n_blocks_ == 4
    # the same partition up to renaming the blocks
    assert len(set(zip(fit.labels_, truth, strict=True))) == 4
    assert fit.p_in_ == pytest.approx(0.5, abs=0.05) and fit.p_out_ == pytest.approx(0.02, abs=0.01)


def test_ring_order_is_found_for_shuffled_cliques():
    rng = np.random.default_rng(0)
    graph = nx.ring_of_cliques(12, 8)
    perm = rng.permutation(graph.number_of_nodes())
    shuffled = nx.relabel_nodes(graph, dict(enumerate(perm)))
    fit = RingOfCliquesFit().fit(link_matrix(shuffled))
    assert fit.n_cliques_ == 12 and fit.p_in_ == 1.0 and fit.p_out_ == 0.0
    assert fit.bridges_ == "exact"
    # every clique's ring neighbours are the cliques it has a bridge to
    a = link_matrix(shuffled)
    links, _ = blocks.block_counts(a, fit.labels_)
    order = list(fit.order_)
    for t, c in enumerate(order):
        assert links[c, order[(t + 1) % 12]] == 1


def test_split_blocks_are_merged_back_by_description_length():
    """Each of 4 planted blocks split in two: merge_blocks joins the halves (the refinement
    sweeps, which move single nodes, cannot), and its code is the planted partition fit's."""
    from scipy.special import gammaln

    from circuitlab.analysis.prior_families import merge_blocks, planted_partition_code

    a = prior_targets.sample_graph(
        prior_targets.planted_partition(96, n_blocks=4), np.random.default_rng(1)
    )
    halves = np.repeat(np.arange(8), 12)
    links, pairs = blocks.block_counts(a, halves)
    inside, inside_pairs = np.trace(links), np.trace(pairs)
    nll, cost = planted_partition_code(
        inside,
        inside_pairs,
        (links.sum() - inside) / 2,
        (pairs.sum() - inside_pairs) / 2,
        gammaln(np.bincount(halves) + 1).sum(),
        96,
        np.array(8),
    )
    fit = PlantedPartitionFit().fit(a, [halves])
    assert float(nll + cost) == pytest.approx(fit.description_length_)
    assert float(-nll) == pytest.approx(fit.log_likelihood_)
    merged = merge_blocks(a, halves)
    truth = np.repeat(np.arange(4), 24)
    assert merged.max() == 3 and len(set(zip(merged, truth, strict=True))) == 4
    assert np.array_equal(merge_blocks(a, truth), truth)  # nothing to merge


def test_ring_heads_of_the_authors_target_are_found():
    """A graph drawn from prior_targets.ring_of_cliques: each block's first node links to every
    node of its own block and the next. The fit codes those links through heads (one group at
    rate 1) instead of fitting each head as a block of its own."""
    n, k = 128, 12
    g = prior_targets.ring_of_cliques(n, n_blocks=k, p_out=0.01)
    a = prior_targets.sample_graph(g, np.random.default_rng(3))
    fit = RingOfCliquesFit().fit(a)
    assert fit.n_cliques_ == k and fit.bridges_ == "heads"
    assert fit.p_head_ == pytest.approx(1.0) and fit.p_bridge_ < 0.03
    starts = np.concatenate([[0], np.cumsum(prior_targets.block_sizes(n, k))[:-1]])
    assert set(fit.heads_) == set(starts)
    # each head links to every node of a block next to its own on the fitted ring
    position = {int(b): t for t, b in enumerate(fit.order_)}
    for head, block in zip(fit.heads_, fit.head_targets_, strict=True):
        assert a[head, fit.labels_ == block].all()
        step = abs(position[int(block)] - position[int(fit.labels_[head])])
        assert step in (1, k - 1)
    # p_ring keeps its meaning: the rate over every pair of neighbouring blocks
    links, pairs = blocks.block_counts(a, fit.labels_)
    order = list(fit.order_)
    neighbours = [(order[t], order[(t + 1) % k]) for t in range(k)]
    rate = sum(links[b, c] for b, c in neighbours) / sum(pairs[b, c] for b, c in neighbours)
    assert fit.p_ring_ == pytest.approx(rate)
    assert fit.expected()[fit.heads_[0], fit.labels_ == fit.head_targets_[0]].min() == 1.0


def test_scale_free_fit_reads_m_and_exponent():
    fit = ScaleFreeFit().fit(link_matrix(nx.barabasi_albert_graph(400, 3, seed=2)))
    assert fit.m_ == 3 and fit.k_min_ == 3
    assert 2.2 < fit.exponent_ < 3.3  # BA's degree tail is k^-3; finite n fits lower


def test_fit_priors_table_and_verdict():
    frame = fit_priors(nx.barabasi_albert_graph(300, 2, seed=0))
    assert list(frame["family"]) == [  # the order of prior_targets.PRIOR_NAMES
        "scale_free",
        "planted_partition",
        "ring_of_cliques",
        "erdos_renyi",
    ]
    assert frame["weight"].sum() == pytest.approx(1.0)
    best = frame.loc[frame["gap"] == 0, "family"].item()
    assert best == "scale_free" and set(frame["verdict"]) == {"scale_free"}
    parts = frame["model_cost"] - frame["log_likelihood"]
    assert np.allclose(parts, frame["description_length"])
    assert frame.loc[frame["family"] == "scale_free", "m"].item() == 2
    assert frame.attrs["goodness"]["outside"] == []


def test_weighted_expected_matrix_is_fitted_as_expected_links():
    target = prior_targets.planted_partition(96, n_blocks=3, p_in=0.6, p_out=0.05)
    verdict = best_prior(target, check=False)
    assert verdict.family == "planted_partition"
    assert verdict.params["n_blocks"] == 3
    assert verdict.params["p_in"] == pytest.approx(0.6)
    assert verdict.params["p_out"] == pytest.approx(0.05)


def test_degenerate_graphs_have_defined_verdicts():
    empty = fit_priors(nx.empty_graph(10))
    assert set(empty["verdict"]) == {"erdos_renyi"}
    er = empty.set_index("family").loc["erdos_renyi"]
    assert er["p"] == 0 and empty["description_length"].isna().sum() == 3
    complete = best_prior(nx.complete_graph(10))
    assert complete.family == "erdos_renyi" and complete.params == {"p": 1.0}
    with pytest.raises(LinkMatrixError, match="at least 3 nodes"):
        best_prior(nx.path_graph(2))
    with pytest.raises(LinkMatrixError, match="no nodes"):
        best_prior(nx.Graph())


def test_ambiguity_threshold_turns_a_small_gap_ambiguous():
    # a ring of 4 cliques carries ~3 nats more than 4 random bridges: not enough evidence
    verdict = best_prior(nx.ring_of_cliques(4, 10))
    assert verdict.gap < AMBIGUITY_NATS + 3
    assert verdict.family in {"ambiguous", "planted_partition"}


@pytest.mark.slow(107)
def test_recovery_on_sampled_graphs_of_each_family():
    """A small draw of the recovery benchmark of docs/results.md (bench/prior_recovery.py)."""
    table = summary(recovery(count=5, seed=1))
    assert (
        table.loc[
            ["erdos_renyi", "planted_partition", "ring_of_cliques", "scale_free"], "recovered"
        ]
        >= 0.8
    ).all()
    assert table.loc["random_signatures", "recovered"] >= 0.6  # verdict no_prior_fits
    assert (table["count_exact"].dropna() >= 0.8).all()
    assert (table["rates_within_10pct"].dropna() >= 0.8).all()
    assert NO_PRIOR_FITS == "no_prior_fits"


def test_no_simulations_is_refused_with_the_way_to_skip_the_check():
    with pytest.raises(ValueError, match="n_simulations must be at least 1.*check=False"):
        best_prior(nx.barabasi_albert_graph(60, 2, seed=0), n_simulations=0)


def test_block_order_draws_a_shuffled_ring_of_cliques_block_by_block_around_its_ring():
    n, cliques = 48, 6
    target = prior_targets.ring_of_cliques(n, cliques, p_in=0.9, p_out=0.01)
    truth = prior_targets.block_labels(n, cliques)
    shuffle = np.random.default_rng(3).permutation(n)
    a = target[np.ix_(shuffle, shuffle)]
    np.fill_diagonal(a, 0)
    fit = RingOfCliquesFit().fit(a)
    assert fit.params()["n_cliques"] == cliques
    order = block_order(a, fit.params())
    assert sorted(order.tolist()) == list(range(n))
    blocks = truth[shuffle][order]  # the true clique of each module, in the drawn order
    runs = [blocks[k] for k in range(n) if k == 0 or blocks[k] != blocks[k - 1]]
    assert len(runs) == cliques  # each clique drawn in one piece
    steps = {(b - a) % cliques for a, b in zip(runs, runs[1:] + runs[:1], strict=True)}
    assert steps in ({1}, {cliques - 1})  # next to its ring neighbours, one way round
    degrees = block_order(a, {"p": 0.1})  # no blocks: by descending expected degree
    assert (np.diff(a.sum(1)[degrees]) <= 0).all()
