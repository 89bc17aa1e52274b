"""Can the signature kernel express a graph prior? Signatures alone fitted to each prior's target.

A NAC's link probabilities are P = exp(-(1 - cos(s_i, s_j)) / eps): not every target is
reachable. A ring of cliques asks each block's first node (its hub) for P = 1 to every node of
the next block while the two blocks stay apart; on the sphere a point close to two clusters
pulls them together (for small angles P(across) ~ P(hub) ** 4), so the hubs settle between.
This bench fits U signatures of the object-images recipe's size (128 x 16, eps 0.25) to a
target by the regulariser's own loss (matched MSE, rematched every 50 steps; no task, so an
upper bound on how close training can come, whatever the prior's weight) and reads the
result: the mean P on the target's groups of pairs, the verdict of ``best_prior`` on P
itself beside the random-signature null of the same width and eps (as object_priors reads a
trained model) and whether it recovers the target's parameters (``recovered_prior``), and
the families named for graphs drawn from P (5 draws; the older single-draw reading).

The scale-free target is tried at the recipe's kernel and at two levers: a sharper kernel
(eps 0.1) and the spectral loss (eigenvalues and sorted degrees: exactly
permutation-invariant, so hubs are matched by degree rather than by row).

    OMP_NUM_THREADS=1 python bench/prior_expressibility.py   # about 8 minutes

Writes bench/results/prior_expressibility.csv.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from common import write_table
from tqdm import tqdm

from circuitlab.analysis.prior_null import random_signature_null
from circuitlab.analysis.prior_verdict import best_prior
from circuitlab.analysis.recovery import recovered_prior
from circuitlab.nn.kernel import link_probability
from circuitlab.prior_loss import matched_mse, spectral_loss
from circuitlab.prior_targets import closest_permutation, sample_graph, target

# (name, prior, target parameters, sig_dim, eps, loss): the object-images recipes' targets at
# their kernel, the ring of cliques at the target's default p_out beside the recipe's, and the
# scale-free target at the recipe's kernel and at the two levers
RECIPE = (16, 0.25, "matched_mse")
TARGETS = [
    ("planted_partition", "planted_partition", {"n_blocks": 12}, *RECIPE),
    ("ring_of_cliques p_out 0.05", "ring_of_cliques", {"n_blocks": 12}, *RECIPE),
    ("ring_of_cliques p_out 0.02", "ring_of_cliques", {"n_blocks": 12, "p_out": 0.02}, *RECIPE),
    ("ring_of_cliques p_out 0.01", "ring_of_cliques", {"n_blocks": 12, "p_out": 0.01}, *RECIPE),
    ("erdos_renyi", "erdos_renyi", {}, *RECIPE),
    ("scale_free", "scale_free", {}, *RECIPE),
    ("scale_free, spectral loss", "scale_free", {}, 16, 0.25, "spectral"),
    ("scale_free, eps 0.1", "scale_free", {}, 16, 0.1, "matched_mse"),
    ("scale_free, eps 0.1, spectral loss", "scale_free", {}, 16, 0.1, "spectral"),
]
REMATCH_EVERY = 50


def fit_signatures(
    g: np.ndarray, sig_dim: int, eps: float, steps: int, seed: int = 0, loss: str = "matched_mse"
) -> np.ndarray:
    """Signatures (U, sig_dim) fitted by Adam to minimise ``loss`` (``matched_mse`` or
    ``spectral``) between P and g; returns P (U, U)."""
    torch.manual_seed(seed)
    signatures = torch.randn(len(g), sig_dim, requires_grad=True)
    target_g = torch.tensor(g, dtype=torch.float32)
    optimizer = torch.optim.Adam([signatures], lr=0.05)
    perm = torch.arange(len(g))
    for step in range(steps):
        p = link_probability(signatures, signatures, eps)
        if loss == "spectral":
            value = spectral_loss(p, target_g)
        else:
            if step % REMATCH_EVERY == 0:
                perm = torch.from_numpy(closest_permutation(p.detach().double().numpy(), g))
            value = matched_mse(p, target_g, perm)
        optimizer.zero_grad()
        value.backward()
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
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--draws", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for name, prior, params, sig_dim, eps, loss in tqdm(TARGETS, desc="targets"):
        g = target(prior, args.processors, **params)
        p = fit_signatures(g, sig_dim, eps, args.steps, loss=loss)
        verdicts = [
            best_prior(sample_graph(p, np.random.default_rng(draw)), seed=0).family
            for draw in range(args.draws)
        ]
        reading = best_prior(p, null=random_signature_null(args.processors, sig_dim, eps))
        judged = recovered_prior(reading, prior, args.processors, **params)
        rows.append(
            {
                "target": name,
                "sig_dim": sig_dim,
                "eps": eps,
                "loss": loss,
                **group_means(p, g),
                "verdict": reading.family,
                "best": reading.best,
                "null_z": max(abs(z) for z in reading.null.z_scores.values()),
                "outside_fit": " ".join(reading.goodness.outside) if reading.goodness else "",
                "recovered": judged.recovered,
                "recovery": judged.describe(),
                "named_imposed": sum(v == prior for v in verdicts),
                "draws": args.draws,
                "verdicts": " ".join(verdicts),
            }
        )
    write_table(
        rows,
        "prior_expressibility",
        f"signatures alone fitted to each target ({args.processors} processors): mean P by "
        "the target's groups, the reading of P beside its null, the family of graphs drawn "
        "from P",
    )


if __name__ == "__main__":
    main()
