"""Fig. 3 on object-images: does each graph prior shape the graph a NAC learns?

For every model of object_runs.PRIOR_MODELS (a NAC with each prior, and with none) and seed:
the validation accuracy, how far the processors' graph moved from its random start
(``analysis.graph_movement``: correlation with the initial P, share of links that crossed 0.5),
and the prior verdict of the library's one reading (``analysis.best_prior``: the families
fitted to P among the processors, as expected links) held against the model's **untrained
null** (the same config's P at initialisation over 20 seeds): ``verdict``, ``best``, ``gap``,
``null_z`` (the largest |z| of density and structure against the null; > 4 is
distinguishable) and ``recovered`` (``analysis.recovered_prior``: the imposed family named
*with its imposed parameters*). The single-draw and P > 0.5 readings stay beside it as named
columns (``verdict_drawn``, ``verdict_thresholded``): a graph drawn from a near-uniform P reads
Erdos-Renyi whatever was learned, and at P > 0.5 weak-link models are empty graphs.

Goal: >= 3 of the 4 imposed families recovered with their parameters on >= 2 of 3 seeds, each
distinguishable from its null; the no-prior model names no family.

Each seed's learned signatures and P among the processors are kept beside the CSV
(bench/results/object_priors/MODEL-seedS-{signatures,p}.npy, never weights), so a new reading
needs no retraining: a (model, seed) with no trained run is read from them.

    python bench/object_priors.py [--seeds 0 1 2] [--train] [--shipped]

``--shipped`` reads seed 0 from checkpoints/priors (the shipped models are those runs). Runs
come from runs/objects (bench/object_runs.py trains what is missing). Adds its rows to
bench/results/object_priors.csv (a rerun of a model and seed replaces its row) and draws
docs/figures/object_priors.png from seed 0's P when it reads them.
"""

from __future__ import annotations

import argparse
import json
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from common import FIGURES, RESULTS, merge_table, save_figure  # noqa: E402
from object_runs import (  # noqa: E402
    OBJECTS,
    PRIOR_MODELS,
    initial_processor_p,
    shipped_seed0,
)

from circuitlab.analysis.movement import graph_movement  # noqa: E402
from circuitlab.analysis.prior_null import PriorNull  # noqa: E402
from circuitlab.analysis.prior_verdict import best_prior  # noqa: E402
from circuitlab.analysis.recovery import recovered_prior  # noqa: E402
from circuitlab.circuit import Circuit  # noqa: E402
from circuitlab.prior_targets import sample_graph  # noqa: E402
from circuitlab.untrained import untrained_link_probabilities  # noqa: E402

KEPT = RESULTS / "object_priors"  # each (model, seed)'s learned signatures and P


def verdict(graph: np.ndarray) -> tuple[str, str, float]:
    """(verdict, best family by description length, gap in nats) of a 0/1 graph (no null: the
    named thresholded and single-draw readings)."""
    v = best_prior(graph, null=None, seed=0)
    return v.family, v.best, round(float(v.gap), 2)


def imposed_parameters(config) -> tuple[str | None, dict]:
    """The prior a config trains with and its imposed parameters."""
    return config.model.get("prior"), dict(config.model.get("prior_params") or {})


def reading_row(name: str, circuit: Circuit, config, null: PriorNull) -> dict:
    """The library's reading of one learned circuit against its untrained null, judged
    against the imposed prior, with the named drawn and thresholded readings beside it."""
    v = best_prior(circuit, null=null, seed=0)
    row = {
        "verdict": v.family,
        "best": v.best,
        "gap": round(float(v.gap), 2),
        "null_z": round(max(abs(z) for z in v.null.z_scores.values()), 2),
    }
    prior, params = imposed_parameters(config)
    if prior is not None:
        n = config.model["n_processors"]
        judged = recovered_prior(v, prior, n, **params)
        row["recovered"] = judged.recovered and v.null.distinguishable
        row["recovery"] = judged.describe()
    else:
        row["recovered"] = not v.names_family  # the control: no family named
        row["recovery"] = f"no prior imposed; verdict {v.family}"
    p = circuit.link_probability()[np.ix_(circuit.processors, circuit.processors)]
    drawn = sample_graph(p, np.random.default_rng(0))
    thresholded = (p > 0.5).astype(float)
    np.fill_diagonal(thresholded, 0)
    for reading, graph in (("drawn", drawn), ("thresholded", thresholded)):
        family, best, gap = verdict(graph)
        row.update({f"verdict_{reading}": family, f"best_{reading}": best, f"gap_{reading}": gap})
    return row


def graph_order(p: np.ndarray) -> np.ndarray:
    """An order of the modules that puts linked ones together: by the planted-partition blocks
    fitted to P when there are some, else by descending degree."""
    fits = best_prior(p, check=False, null=None).fits
    blocks = fits.get("planted_partition")
    if blocks is not None:
        return np.argsort(blocks.labels_, kind="stable")
    return np.argsort(-p.sum(1))


def figure(graphs: dict[str, np.ndarray], rows: list[dict]) -> None:
    fig, axes = plt.subplots(1, len(graphs), figsize=(3.2 * len(graphs), 3.4))
    for ax, (model, p) in zip(np.atleast_1d(axes), graphs.items(), strict=True):
        order = graph_order(p)
        ax.imshow(p[np.ix_(order, order)], cmap="viridis", vmin=0, vmax=1)
        row = next(r for r in rows if r["model"] == model and r["seed"] == 0)
        ax.set_title(f"prior: {model}\nverdict: {row['verdict']}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle("object-images, seed 0: learned P among 128 processors (ordered by blocks)")
    save_figure(fig, FIGURES / "object_priors.png", dpi=110)
    print(f"written: {FIGURES / 'object_priors.png'}")


def learned_circuits(args) -> list[tuple[str, int, Circuit, object, float | None]]:
    """(model, seed, learned circuit, its TrainConfig, val_acc or None) for every model and
    seed asked for: from a trained run (its signatures and P kept in ``KEPT``), from
    checkpoints/priors for seed 0 with ``--shipped``, else from the kept signatures."""

    found = []
    for seed in args.seeds:
        for name in args.models:
            config = OBJECTS.config(name, seed)
            if args.train or OBJECTS.is_trained(name, seed):
                _, _, model, config, summary = next(
                    OBJECTS.trained_runs([(name, seed)], train=args.train)
                )
                found.append((name, seed, model.circuit(), config, summary["val_acc"]))
            elif args.shipped and seed == 0 and (shipped := shipped_seed0(name)) is not None:
                model, config, summary = shipped
                found.append((name, seed, model.circuit(), config, summary["val_acc"]))
            elif (KEPT / f"{name}-seed{seed}-signatures.npy").is_file():
                signatures = np.load(KEPT / f"{name}-seed{seed}-signatures.npy")
                roles = json.loads((KEPT / f"{name}-seed{seed}-circuit.json").read_text())
                circuit = Circuit(signatures, roles["roles"], eps=roles["eps"])
                found.append((name, seed, circuit, config, None))
            else:
                print(
                    f"skipped {name} seed {seed}: no run or kept signatures; "
                    f"train it with {OBJECTS.how_to_train}"
                )
    return found


def keep(name: str, seed: int, circuit: Circuit) -> None:
    """Write the learned signatures, the processors' P and the roles beside the CSV."""
    KEPT.mkdir(parents=True, exist_ok=True)
    stem = KEPT / f"{name}-seed{seed}"
    np.save(f"{stem}-signatures.npy", circuit.signatures.astype(np.float32))
    keep_p = circuit.link_probability()[np.ix_(circuit.processors, circuit.processors)]
    np.save(f"{stem}-p.npy", keep_p.astype(np.float32))
    meta = {"roles": circuit.roles.tolist(), "eps": float(circuit.eps)}
    (KEPT / f"{name}-seed{seed}-circuit.json").write_text(json.dumps(meta) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--models", nargs="+", default=list(PRIOR_MODELS))
    parser.add_argument(
        "--train", action="store_true", help="train missing runs (else they are skipped)"
    )
    parser.add_argument(
        "--shipped", action="store_true", help="seed 0 from checkpoints/priors when not in runs/"
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    rows, graphs, nulls = [], {}, {}
    for name, seed, circuit, config, val_acc in learned_circuits(args):
        keep(name, seed, circuit)
        # one untrained null per architecture: the prior does not change the initialisation
        if name not in nulls:
            draws = untrained_link_probabilities(config)
            nulls[name] = PriorNull(draws, f"untrained {name} model, {len(draws)} seeds")
        p = circuit.link_probability()[np.ix_(circuit.processors, circuit.processors)]
        row = {"model": name, "seed": seed, "val_acc": val_acc}
        row.update(graph_movement(p, initial_processor_p(config)))
        row["mean_p"] = float(p[~np.eye(len(p), dtype=bool)].mean())
        row.update(reading_row(name, circuit, config, nulls[name]))
        rows.append(row)
        if seed == 0 and name in PRIOR_MODELS:  # the figure is Fig. 3's, not the levers'
            graphs[name] = p
    if not rows:
        raise SystemExit("no trained run found: python bench/object_runs.py --seeds 0 1 2")
    frame = merge_table(
        rows,
        "object_priors",
        "object-images, 128 processors: the prior verdict of P against the untrained null",
        keys=["model", "seed"],
    )
    if graphs and any(r["seed"] == 0 for r in rows):
        figure(graphs, rows)
    print("seeds on which the imposed family is recovered with its parameters (none: no family):")
    recovered = frame["recovered"].astype("boolean").fillna(False)
    print(recovered.groupby(frame["model"]).sum().to_string())


if __name__ == "__main__":
    main()
