"""Can the signature kernel express a graph prior? Signatures alone fitted to each prior's target.

A NAC's link probabilities are P = exp(-(1 - cos(s_i, s_j)) / eps): not every target is
reachable. A ring of cliques asks each block's first node (its hub) for P = 1 to every node of
the next block while the two blocks stay apart; on the sphere a point close to two clusters
pulls them together (for small angles P(across) ~ P(hub) ** 4), so the hubs settle between.
This bench fits U signatures of the object-images recipe's size (128 x 16, eps 0.25) to a
target by the regulariser's own loss (matched MSE, rematched every 50 steps; no task, so an
upper bound on how close training can come) and reads the result as object_priors does: the
mean P on the target's groups of pairs and the family ``best_prior`` names for graphs drawn
from it (5 draws).

    OMP_NUM_THREADS=1 python bench/prior_expressibility.py   # about 5 minutes

Writes bench/results/prior_expressibility.csv.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from common import write_table
from tqdm import tqdm

from circuitlab.analysis.prior_verdict import best_prior
from circuitlab.nn.kernel import link_probability
from circuitlab.prior_loss import matched_mse
from circuitlab.prior_targets import closest_permutation, sample_graph, target

# (name, prior, target parameters): the object-images recipes' targets, and the ring of cliques
# at the target's default p_out beside the recipe's
TARGETS = [
    ("planted_partition", "planted_partition", {"n_blocks": 12}),
    ("ring_of_cliques p_out 0.05", "ring_of_cliques", {"n_blocks": 12}),
    ("ring_of_cliques p_out 0.02", "ring_of_cliques", {"n_blocks": 12, "p_out": 0.02}),
    ("ring_of_cliques p_out 0.01", "ring_of_cliques", {"n_blocks": 12, "p_out": 0.01}),
    ("erdos_renyi", "erdos_renyi", {}),
]
REMATCH_EVERY = 50


def fit_signatures(
    g: np.ndarray, sig_dim: int, eps: float, steps: int, seed: int = 0
) -> np.ndarray:
    """Signatures (U, sig_dim) fitted by Adam to minimise matched MSE(P, g); returns P (U, U)."""
    torch.manual_seed(seed)
    signatures = torch.randn(len(g), sig_dim, requires_grad=True)
    target_g = torch.tensor(g, dtype=torch.float32)
    optimizer = torch.optim.Adam([signatures], lr=0.05)
    perm = torch.arange(len(g))
    for step in range(steps):
        p = link_probability(signatures, signatures, eps)
        if step % REMATCH_EVERY == 0:
            perm = torch.from_numpy(closest_permutation(p.detach().double().numpy(), g))
        loss = matched_mse(p, target_g, perm)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        return link_probability(signatures, signatures, eps).double().numpy()


def group_means(p: np.ndarray, g: np.ndarray) -> dict[str, float]:
    """Mean of P (relabelled to match g) over g's pairs at 1 (hubs), at its largest value below
    1 (inside blocks) and at its smallest (outside); off the diagonal."""
    q = p[np.ix_(perm := closest_permutation(p, g), perm)]
    off = ~np.eye(len(g), dtype=bool)
    values = np.unique(g[off])
    groups = {"outside": g == values.min()}
    if len(values) > 1:
        groups["inside"] = g == values[values < 1].max()
    if (g[off] == 1).any():
        groups["hubs"] = g == 1
    return {f"p_{name}": float(q[mask & off].mean()) for name, mask in groups.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processors", type=int, default=128)
    parser.add_argument("--sig-dim", type=int, default=16)
    parser.add_argument("--eps", type=float, default=0.25)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--draws", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for name, prior, params in tqdm(TARGETS, desc="targets"):
        g = target(prior, args.processors, **params)
        p = fit_signatures(g, args.sig_dim, args.eps, args.steps)
        verdicts = [
            best_prior(sample_graph(p, np.random.default_rng(draw)), seed=0).family
            for draw in range(args.draws)
        ]
        rows.append(
            {
                "target": name,
                **group_means(p, g),
                "named_imposed": sum(v == prior for v in verdicts),
                "draws": args.draws,
                "verdicts": " ".join(verdicts),
            }
        )
    write_table(
        rows,
        "prior_expressibility",
        f"signatures alone fitted to each target ({args.processors} x {args.sig_dim}, "
        f"eps {args.eps}): mean P by the target's groups and the family of graphs drawn from P",
    )


if __name__ == "__main__":
    main()
