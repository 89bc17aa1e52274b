"""Faithfulness curves on the demo stores: keep each example's k best-ranked links, cut the rest,
and see how much of the answer comes back (``circuitlab.faithfulness``).

Per store (``make demo`` writes them), on the first --limit examples with a scene, each with its
stored circuit, over every link the NAC has (processor pairs and processor-read-out pairs) and its
reads: f(k) = (m(C_k) - m(empty)) / (m(full) - m(empty)) with m the mean p(answer), at MIB's budgets
(shares of the elements kept), for links ranked by each one's exact effect (cut alone) and by the
first-order estimate, for links and each processor's reads of the input's tokens ranked together by
their estimates and by the refined estimates (``--rankings`` adds them ranked exactly), and for
20 seeded random rankings of the same elements (the band). CPR is the area under f (higher is
better), CMD the area under |1 - f| (lower is better). Goal (issue 82's acceptance): the
attribution ranking's CPR above the random band's 95th percentile.

    python bench/faithfulness.py                   # both stores, 256 examples each
    python bench/faithfulness.py --rankings "links, estimate" --limit 64

Writes bench/results/faithfulness.csv (a row per store, ranking and budget: f, and the band's
5th / 50th / 95th percentiles), faithfulness_summary.csv (a row per store and ranking) and
docs/figures/faithfulness.png.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from attribution import STORES
from common import FIGURES, RESULTS, save_figure, write_table
from tqdm import tqdm

from circuitlab.app.attribution_view import store_links, stored_circuits
from circuitlab.app.scene_kinds import scene_examples
from circuitlab.app.store_view import load_circuit_generator
from circuitlab.attribution import link_effect_estimates, link_effects
from circuitlab.faithfulness import FaithfulnessCurve, faithfulness_curve
from circuitlab.read_attribution import read_effect_estimates, read_effects
from circuitlab.refined_attribution import refined_estimates
from circuitlab.store import CircuitStore

# ranking name -> (what is ranked, by what): links alone by each link's exact effect or its
# estimate; links and each processor's reads together by their estimates, by the refined
# estimates (``refined_estimates``: midpoint reads, the top 32 and 40 most disputed exact), or
# exactly (each read cut alone: about a model run per read, so not by default)
RANKINGS = {
    "links, exact": ("links", "exact"),
    "links, estimate": ("links", "estimate"),
    "links and reads, estimate": ("links and reads", "estimate"),
    "links and reads, refined": ("links and reads", "refined"),
    "links and reads, exact": ("links and reads", "exact"),
}
DEFAULT_RANKINGS = list(RANKINGS)[:4]
RANDOM_RANKINGS = 20


def store_curves(
    name: str, limit: int, rankings: list[str], seed: int
) -> tuple[dict[str, FaithfulnessCurve], int]:
    """The faithfulness curve of each ranking on store ``name``'s first ``limit`` examples with
    a scene, and how many examples that is."""
    path, checkpoint = STORES[name]
    store = CircuitStore.open(path)
    generator = load_circuit_generator(checkpoint)
    model, frame = generator.model, store.frame.reset_index(drop=True)
    rows = np.flatnonzero(frame["scene"].map(lambda s: isinstance(s, str)).to_numpy())[:limit]
    links = store_links(store)
    batch = generator.task.batch_for(scene_examples(frame.iloc[rows]))
    circuits = stored_circuits(store, rows)
    scorers = {
        ("links", "exact"): lambda: link_effects(model, batch, **circuits, links=links)[1],
        ("links", "estimate"): lambda: link_effect_estimates(model, batch, **circuits, links=links)[
            1
        ],
        ("reads", "exact"): lambda: read_effects(model, batch, **circuits)[1],
        ("reads", "estimate"): lambda: read_effect_estimates(model, batch, **circuits)[1],
    }
    curves = {}
    for ranking in tqdm(rankings, desc=f"{name}: rankings", unit="ranking"):
        what, by = RANKINGS[ranking]
        if by == "refined":
            link_scores, read_scores = refined_estimates(model, batch, **circuits, links=links)
        else:
            link_scores = scorers["links", by]()
            read_scores = scorers["reads", by]() if what == "links and reads" else None
        curves[ranking] = faithfulness_curve(
            model,
            batch,
            link_scores,
            read_scores=read_scores,
            **circuits,
            links=links,
            random_rankings=RANDOM_RANKINGS,
            seed=seed,
        )
    return curves, len(rows)


def curve_rows(name: str, ranking: str, curve: FaithfulnessCurve, examples: int) -> list[dict]:
    band = np.percentile(curve.random_f, [5, 50, 95], axis=0)
    return [
        {
            "store": name,
            "ranking": ranking,
            "examples": examples,
            "budget": float(share),
            "elements_kept_mean": float(share * (curve.links + curve.reads)),
            "f": float(curve.f[k]),
            "random_p5": float(band[0, k]),
            "random_p50": float(band[1, k]),
            "random_p95": float(band[2, k]),
        }
        for k, share in enumerate(curve.budgets)
    ]


def summary_row(name: str, ranking: str, curve: FaithfulnessCurve, examples: int) -> dict:
    return {
        "store": name,
        "ranking": ranking,
        "examples": examples,
        "links": curve.links,
        "reads_mean": curve.reads,
        "p_answer_full": curve.full,
        "p_answer_empty": curve.empty,
        "cpr": curve.cpr,
        "cmd": curve.cmd,
        "random_cpr_p95": float(np.percentile(curve.random_cpr, 95)),
        "random_cpr_mean": float(curve.random_cpr.mean()),
        "random_cmd_p5": float(np.percentile(curve.random_cmd, 5)),
        "random_cmd_mean": float(curve.random_cmd.mean()),
        "random_rankings": len(curve.random_f),
        "cpr_above_share": curve.cpr_above(),
        "cmd_below_share": curve.cmd_below(),
        "above_band": bool(curve.cpr > np.percentile(curve.random_cpr, 95)),
    }


def figure(rows: pd.DataFrame, path: Path) -> None:
    """f(k) of each ranking (faithfulness.csv's rows) beside the band of the random rankings of
    the same elements (links alone, or links with reads), one panel a store."""
    stores = list(dict.fromkeys(rows["store"]))
    fig, axes = plt.subplots(1, len(stores), figsize=(5 * len(stores), 3.6), squeeze=False)
    for ax, name in zip(axes[0], stores, strict=True):
        banded, by_ranking = set(), rows[rows["store"] == name].groupby("ranking", sort=False)
        for k, (ranking, curve) in enumerate(by_ranking):
            color = f"C{k}"
            what = RANKINGS[ranking][0]
            if what not in banded:  # one band per set of elements: its random rankings
                banded.add(what)
                ax.fill_between(
                    curve["budget"], curve["random_p5"], curve["random_p95"], color=color,
                    alpha=0.15, label=f"{what}: {RANDOM_RANKINGS} random (5-95 %)",
                )  # fmt: skip
            ax.plot(curve["budget"], curve["f"], marker="o", ms=3, color=color, label=ranking)
        ax.axhline(1, color="0.5", lw=0.6, ls=":")
        ax.set_xscale("symlog", linthresh=1e-3)
        ax.set(xlim=(0, 1), xlabel="share of elements kept", ylabel="f(k)", title=name)
        ax.legend(fontsize=7)
    save_figure(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", nargs="+", choices=sorted(STORES), default=sorted(STORES))
    parser.add_argument("--limit", type=int, default=256, help="examples per store")
    parser.add_argument("--rankings", nargs="+", choices=list(RANKINGS), default=DEFAULT_RANKINGS)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random rankings")
    parser.add_argument(
        "--figure-only", action="store_true", help="redraw the figure from faithfulness.csv"
    )
    args = parser.parse_args()
    if args.figure_only:
        figure(pd.read_csv(RESULTS / "faithfulness.csv"), FIGURES / "faithfulness.png")
        return
    if args.limit < 1:
        parser.error(f"--limit must be >= 1, got {args.limit}")
    missing = [STORES[s][0] for s in args.stores if not Path(STORES[s][0]).is_dir()]
    if missing:
        parser.error(f"no store at {', '.join(missing)}: run `make demo` first")
    measure_and_write(args.stores, args.limit, args.rankings, args.seed)


def measure_and_write(
    stores: list[str], limit: int, rankings: list[str] = DEFAULT_RANKINGS, seed: int = 0
) -> None:
    """The stores' curves: faithfulness.csv, faithfulness_summary.csv (CPR and CMD of each
    ranking beside the random band's, printed) and the figure (also run by bench/attribution.py)."""
    curves, rows, summary = {}, [], []
    for name in stores:
        curves[name], examples = store_curves(name, limit, rankings, seed)
        for ranking, curve in curves[name].items():
            rows += curve_rows(name, ranking, curve, examples)
            summary.append(summary_row(name, ranking, curve, examples))
    write_table(rows, "faithfulness", "faithfulness curves f(k) on the demo stores")
    write_table(summary, "faithfulness_summary", "CPR and CMD against random rankings")
    figure(pd.DataFrame(rows), FIGURES / "faithfulness.png")


if __name__ == "__main__":
    main()
