"""Which links decide an answer, on the demo stores: is the attribution faithful, how small are
the minimal circuits, how well does the first-order estimate rank links, and how fast is it.

Per store (``make demo`` writes them), on every example with a scene (or the first --limit),
each with its stored circuit:
- the exact drop of p(answer) when each link the circuit has (P > 0.5) is cut, and the
  first-order estimate for every link; their agreement: Spearman over each example's present
  links (median over examples) and whether the exact top link is the estimate's top;
- faithfulness: the drop when the 5 most attributed present links are cut together against
  5 present links drawn at random (seeded), mean over examples, and their ratio;
- minimal circuits: the fewest links, ranked by the estimate over every link, that keep the
  answer with every other link cut (found share, size median and quartiles, the size as a
  share of the processor links); and what survives cutting every present link (the others
  as they are) or every processor link;
- time (skipped with --no-timing; time with nothing else running): exact attribution of every
  link for one example and for a 256-example batch, of the present links for that batch, the
  estimate for it;
- the estimate goal (``attribution_estimate.py``): every link and read of the first
  --estimate-examples examples cut exactly against the gradient, softmax-corrected and refined
  estimates (Spearman, same strongest element) and each one's time for 256 examples;
- faithfulness curves (``faithfulness.py``, --faithfulness-examples a store): CPR and CMD of
  each ranking of links and reads beside 20 random rankings'.

    python bench/attribution.py                # both stores, all examples, with timing
    python bench/attribution.py --no-timing --limit 256
    python bench/attribution.py --timing-only  # with nothing else running

Writes bench/results/attribution.csv (a row per store), attribution_speed.csv,
attribution_estimate.csv, faithfulness.csv and faithfulness_summary.csv, the examples' numbers
in attribution_examples.csv, docs/figures/attribution.png and faithfulness.png.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from attribution_estimate import measure_and_write as estimate_goal
from common import FIGURES, RESULTS, machine, save_figure, write_table
from scipy.stats import spearmanr
from tqdm import tqdm

from circuitlab.app.attribution_view import store_links, stored_circuits
from circuitlab.app.scene_kinds import scene_examples
from circuitlab.app.store_view import load_circuit_generator
from circuitlab.attribution import (
    link_effect_estimates,
    link_effects,
    minimal_circuits,
)
from circuitlab.circuit import present_links
from circuitlab.interventions import LinkEdit, run_with_circuit
from circuitlab.store import CircuitStore

STORES = {  # name -> (store, the checkpoint that wrote it)
    "nlvr": ("stores/nlvr/nlvr", "checkpoints/nlvr"),
    "pairs": ("stores/pairs/pairs", "checkpoints/pairs"),
}
TOP = 5  # links cut together in the faithfulness test
CHUNK = 128
THRESHOLD = 0.5


def _p_answer_under(model, batch, circuits, masks: torch.Tensor, answer: np.ndarray) -> np.ndarray:
    """p(answer) (B,) with each example's own cut mask (B, U, U)."""
    logits = run_with_circuit(model, batch, **circuits, edit=LinkEdit(cut=masks))
    return logits.softmax(-1)[torch.arange(len(answer)), torch.from_numpy(answer)].numpy()


def _cut_masks(links: np.ndarray, chosen: list[np.ndarray], n_modules: int) -> torch.Tensor:
    masks = torch.zeros(len(chosen), n_modules, n_modules, dtype=torch.bool)
    for row, indices in enumerate(chosen):
        pairs = links[indices]
        masks[row, pairs[:, 0], pairs[:, 1]] = True
        masks[row, pairs[:, 1], pairs[:, 0]] = True
    return masks


def examine_store(name: str, limit: int | None, seed: int) -> pd.DataFrame:
    """One row per example: the numbers above."""
    path, checkpoint = STORES[name]
    store = CircuitStore.open(path)
    generator = load_circuit_generator(checkpoint)
    model, frame = generator.model, store.frame.reset_index(drop=True)
    rows = np.flatnonzero(frame["scene"].map(lambda s: isinstance(s, str)).to_numpy())
    rows = rows[:limit] if limit is not None else rows
    links = store_links(store)
    u = model.config.n_processors
    n_processor_links = u * (u - 1) // 2
    rng = np.random.default_rng(seed)
    out = []
    for start in tqdm(range(0, len(rows), CHUNK), desc=name, unit="step"):
        part = rows[start : start + CHUNK]
        batch = generator.task.batch_for(scene_examples(frame.iloc[part]))
        circuits = stored_circuits(store, part)
        which = present_links(store.link_probabilities(part), links, THRESHOLD)
        baseline, exact = link_effects(model, batch, **circuits, links=links, which=which)
        _, estimate = link_effect_estimates(model, batch, **circuits, links=links)
        minimal = minimal_circuits(model, batch, estimate, **circuits, links=links)
        top, drawn = [], []
        for k in range(len(part)):
            present = np.flatnonzero(which[k])
            top.append(present[np.argsort(-exact[k, present], kind="stable")][:TOP])
            drawn.append(rng.choice(present, size=min(TOP, len(present)), replace=False))
        u_all = model.config.n_modules
        answer, before = baseline.answer, baseline.value
        after_top = _p_answer_under(model, batch, circuits, _cut_masks(links, top, u_all), answer)
        after_random = _p_answer_under(
            model, batch, circuits, _cut_masks(links, drawn, u_all), answer
        )
        every_present = [np.flatnonzero(which[k]) for k in range(len(part))]
        kept_present = _answers_kept(
            model, batch, circuits, _cut_masks(links, every_present, u_all), answer
        )
        processor_pairs = [np.arange(n_processor_links)] * len(part)
        kept_processors = _answers_kept(
            model, batch, circuits, _cut_masks(links, processor_pairs, u_all), answer
        )
        for k in range(len(part)):
            present = which[k]
            agreement, top_match = np.nan, np.nan
            if present.sum() >= 3 and np.ptp(exact[k, present]) > 0:
                agreement = spearmanr(exact[k, present], estimate[k, present])[0]
                indices = np.flatnonzero(present)
                top_match = float(
                    indices[np.argmax(exact[k, indices])]
                    == indices[np.argmax(estimate[k, indices])]
                )
            members = links[minimal.members[k]]
            out.append(
                {
                    "store": name,
                    "row": int(part[k]),
                    "p_answer": float(before[k]),
                    "present_links": int(present.sum()),
                    "largest_effect": float(np.nanmax(exact[k])) if present.any() else np.nan,
                    "rank_agreement": agreement,
                    "top_link_match": top_match,
                    "top_drop": float(before[k] - after_top[k]),
                    "random_drop": float(before[k] - after_random[k]),
                    "minimal_found": bool(minimal.keeps[k]),
                    "minimal_size": int(minimal.size[k]),
                    "minimal_processor_links": int((members[:, 1] < u).sum()),
                    "minimal_readout_links": int((members[:, 1] >= u).sum()),
                    "minimal_share": float(minimal.size[k] / n_processor_links),
                    "kept_every_present_cut": bool(kept_present[k]),
                    "kept_every_processor_link_cut": bool(kept_processors[k]),
                }
            )
    return pd.DataFrame(out)


def _answers_kept(model, batch, circuits, masks: torch.Tensor, answer: np.ndarray) -> np.ndarray:
    logits = run_with_circuit(model, batch, **circuits, edit=LinkEdit(cut=masks))
    return logits.argmax(-1).numpy() == answer


def summarise(examples: pd.DataFrame) -> list[dict]:
    rows = []
    for name, group in examples.groupby("store", sort=False):
        sizes = group["minimal_size"]
        rows.append(
            {
                "store": name,
                "examples": len(group),
                "present_links_median": float(group["present_links"].median()),
                "rank_agreement_median": float(group["rank_agreement"].median()),
                "top_link_match": float(group["top_link_match"].mean()),
                "top5_drop_mean": float(group["top_drop"].mean()),
                "random5_drop_mean": float(group["random_drop"].mean()),
                "top5_over_random5": float(group["top_drop"].mean() / group["random_drop"].mean()),
                "minimal_found": float(group["minimal_found"].mean()),
                "minimal_size_median": float(sizes.median()),
                "minimal_size_q25": float(sizes.quantile(0.25)),
                "minimal_size_q75": float(sizes.quantile(0.75)),
                "minimal_share_median": float(group["minimal_share"].median()),
                "minimal_processor_links_median": float(group["minimal_processor_links"].median()),
                "kept_every_present_cut": float(group["kept_every_present_cut"].mean()),
                "kept_every_processor_link_cut": float(
                    group["kept_every_processor_link_cut"].mean()
                ),
            }
        )
    return rows


def time_store(name: str, repeats: int = 3) -> list[dict]:
    """Seconds (median of ``repeats``) of exact attribution of every link for one example and
    for 256, of the present links for 256, and of the estimate for 256."""
    path, checkpoint = STORES[name]
    store = CircuitStore.open(path)
    generator = load_circuit_generator(checkpoint)
    model, frame = generator.model, store.frame.reset_index(drop=True)
    rows = np.flatnonzero(frame["scene"].map(lambda s: isinstance(s, str)).to_numpy())[:256]
    links = store_links(store)
    batch = generator.task.batch_for(scene_examples(frame.iloc[rows]))
    circuits = stored_circuits(store, rows)
    one = batch.rows(slice(0, 1))
    one_circuits = {k: None if v is None else v[:1] for k, v in circuits.items()}
    which = present_links(store.link_probabilities(rows), links, THRESHOLD)
    cases = {
        "exact, every link, 1 example": lambda: link_effects(model, one, **one_circuits),
        "exact, present links, 256 examples": lambda: link_effects(
            model, batch, **circuits, which=which
        ),
        "estimate, every link, 256 examples": lambda: link_effect_estimates(
            model, batch, **circuits
        ),
        "exact, every link, 256 examples": lambda: link_effects(model, batch, **circuits),
    }
    out = []
    for case, run in cases.items():
        if "1 example" in case:
            run()  # warm-up
        times = []
        for _ in range(repeats if "every link, 256" not in case else 1):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        out.append(
            {
                "store": name,
                "case": case,
                "links": len(links) if "every" in case else int(which.sum()),
                "seconds": float(np.median(times)),
                "machine": machine(torch.device("cpu")),
            }
        )
        print(out[-1])
    return out


def figure(examples: pd.DataFrame, path: Path) -> None:
    names = list(examples["store"].unique())
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for name in names:
        group = examples[examples["store"] == name]
        axes[0].hist(
            [group["top_drop"], group["random_drop"]],
            bins=20,
            label=[f"{name}: top {TOP}", f"{name}: {TOP} random"],
        )
        axes[1].hist(group["minimal_size"], bins=40, alpha=0.6, label=name)
    axes[0].set(xlabel="drop of p(answer)", ylabel="examples", yscale="log")
    axes[0].set_title(f"cut the {TOP} most attributed present links, or {TOP} random ones")
    axes[1].set(xlabel="links kept (every other link cut)", ylabel="examples", yscale="log")
    axes[1].set_title("minimal circuit that keeps the answer")
    for ax in axes:
        ax.legend(fontsize=7)
    save_figure(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", nargs="+", choices=sorted(STORES), default=sorted(STORES))
    parser.add_argument("--limit", type=int, default=None, help="examples per store")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random links")
    parser.add_argument("--no-timing", action="store_true", help="skip the speed table")
    parser.add_argument(
        "--timing-only", action="store_true", help="only the speed table (nothing else running)"
    )
    parser.add_argument(
        "--estimate-examples", type=int, default=64, help="examples per store for the estimates"
    )
    parser.add_argument(
        "--faithfulness-examples",
        type=int,
        default=256,
        help="examples per store for the faithfulness curves (0: skip them)",
    )
    args = parser.parse_args()
    missing = [STORES[s][0] for s in args.stores if not Path(STORES[s][0]).is_dir()]
    if missing:
        parser.error(f"no store at {', '.join(missing)}: run `make demo` first")
    if not args.timing_only:
        examples = pd.concat([examine_store(s, args.limit, args.seed) for s in args.stores])
        RESULTS.mkdir(exist_ok=True)
        examples.to_csv(RESULTS / "attribution_examples.csv", index=False)
        write_table(summarise(examples), "attribution", "attribution on the demo stores")
        figure(examples, FIGURES / "attribution.png")
    if not args.no_timing:
        speed = [row for s in args.stores for row in time_store(s)]
        write_table(speed, "attribution_speed", "attribution time (seconds)")
    if not args.timing_only:  # the estimate goal: every link and read against the exact cuts
        estimate_goal(args.stores, args.estimate_examples, timing=not args.no_timing)
    if not args.timing_only and args.faithfulness_examples:  # CPR and CMD against the band
        from faithfulness import measure_and_write

        measure_and_write(args.stores, args.faithfulness_examples)


if __name__ == "__main__":
    main()
