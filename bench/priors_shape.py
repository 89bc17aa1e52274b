"""Do the graph priors shape the learned graph? (The paper's claim, re-measured small.)

Trains an unconditional NAC on the toy task with each of the four priors and with none (64
processors; planted partition and ring of cliques with 4 blocks), then fits the four priors to
each learned processor graph (P > 0.5) with the analysis layer: is the fitted family the imposed
one? As a control, the same fit on one graph sampled from each prior's own target says whether
the family is recognisable at this size at all. How far training moved the graph from its
random initial one: mean |P - P_init| and the correlation of P with P_init.

Runs are kept in runs/toy_claims/ (bench/toy_runs.py) and resumed, so an interrupted bench
loses nothing.

    python bench/priors_shape.py [--steps 1000] [--seed 0] [--prior-weight 0.1]
                                 [--signature-lr-scale 1]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from common import initial_model, prior_overrides, write_table
from toy_runs import PRIORS, PROCESSORS, trained_with_prior

from circuitlab.analysis.matrix import link_matrix
from circuitlab.analysis.prior_verdict import best_prior
from circuitlab.config import NACConfig
from circuitlab.prior_targets import sample_graph, target


def verdict_row(graph: np.ndarray) -> dict:
    verdict = best_prior(link_matrix(graph), seed=0)
    return {
        "verdict": verdict.family,
        "best_by_length": verdict.best,
        "gap_nats": verdict.gap,
        "density": float(graph[np.triu_indices(len(graph), 1)].mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--prior-weight", type=float, default=None, help="regulariser weight (default: 0.1)"
    )
    parser.add_argument(
        "--signature-lr-scale", type=float, default=1.0, help="signatures' lr / the others'"
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    rows = []
    for prior in PRIORS:
        model, config, summary = trained_with_prior(
            prior, args.steps, args.seed, args.prior_weight, args.signature_lr_scale
        )
        p = model.circuit().link_probability()[:PROCESSORS, :PROCESSORS]
        p_init = initial_model(config).circuit().link_probability()[:PROCESSORS, :PROCESSORS]
        learned = (p > 0.5).astype(float)
        np.fill_diagonal(learned, 0)
        row = {"prior": prior or "none", "val_accuracy": summary["val_acc"]}
        row.update({f"learned_{k}": v for k, v in verdict_row(learned).items()})
        row["mean_abs_change_from_init"] = float(np.abs(p - p_init).mean())
        row["corr_with_init"] = float(np.corrcoef(p.ravel(), p_init.ravel())[0, 1])
        if prior is not None:
            params = prior_overrides(prior)["prior_params"]
            expected = target(prior, PROCESSORS, **params)
            sample = sample_graph(expected, np.random.default_rng(args.seed))
            row["target_sample_verdict"] = verdict_row(sample)["verdict"]
        rows.append(row)
    weight = NACConfig().prior_weight if args.prior_weight is None else args.prior_weight
    suffix = "" if args.prior_weight is None else f"_w{weight:g}"
    suffix += "" if args.signature_lr_scale == 1.0 else f"_slr{args.signature_lr_scale:g}"
    suffix += "" if args.seed == 0 else f"_seed{args.seed}"
    write_table(
        rows,
        f"priors_shape{suffix}",
        f"toy task, {PROCESSORS} processors, {args.steps} steps, seed {args.seed}, "
        f"prior weight {weight:g}, signature lr x{args.signature_lr_scale:g}: "
        "prior fitted to the learned processor graph (P > 0.5)",
    )
    hits = sum(r["learned_verdict"] == r["prior"] for r in rows if r["prior"] != "none")
    print(f"learned graph recovered as the imposed family: {hits} of {len(PRIORS) - 1}")


if __name__ == "__main__":
    main()
