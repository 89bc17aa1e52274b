"""Which kinds of logic a pair-world model's circuits carry: minimal pairs, kind by kind.

For each run of the ``pairs`` task (default: the shipped checkpoints/pairs) and each kind of
logic change (``circuitlab.worlds.minimal_pairs.NLVR2_LOGIC_KINDS``: negation, image side, one
image -> each image and back, hard <-> soft cardinality both ways, at least <-> at most,
more <-> fewer, one <-> several, number, relation, connective), on the unique NLVR2 dev
sentences, on the pair world's held-out sentences (the run's own, never trained on) and on
NLVR2 test1 sentences rewritten by a second construction (``bench/second_pairs.py``: other
rules and phrasings, never a training signal; its own kinds): the
share of minimal pairs whose logic change moves P more (Frobenius norm) than a counted-noun
swap does, for

- ``model``: the run's generator;
- ``untrained``: an untrained generator of the same architecture (seeded): what P does from
  the sentence embedding alone, through random weights;
- ``sentence``: the sentence embedding itself (MiniLM), the generator's input.

Each kind's count of pairs beside its shares, and how far P moves: the median over the kind's
pairs of the logic change's and of the noun swap's shift, as root-mean-square change per link
(Frobenius norm / processors), for the model and the untrained generator
(``model_logic_rms``, ``model_noun_rms``, ``untrained_...``). The share is a ratio: it reads
near 1 when the nouns are held still, however little the logic moves P; the shifts say which.
A row ``mean over kinds`` (kinds with >= 30 pairs, each counted once) beside the per-kind
rows. Issue 62's goal: every kind with >= 30 pairs on NLVR2 dev at >= 0.80 for the model.

    python bench/minimal_pair_kinds.py                       # the shipped model
    python bench/minimal_pair_kinds.py RUN [RUN ...] --name NAME [NAME ...]
    python bench/minimal_pair_kinds.py --figure-only [--name NAME ...]  # redraw from the CSV

Rows go to bench/results/minimal_pair_kinds.csv (other runs' rows kept); the figure of the
runs measured (their mean, spread as error bars) is docs/figures/minimal_pair_kinds.png;
``--figure-only --name NAME ...`` draws it again from the CSV's rows of those runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from common import FIGURES, RESULTS, save_figure, write_table
from second_pairs import second_construction_pairs

from circuitlab.analysis.embedding import sentence_embeddings
from circuitlab.data.nlvr import read_nlvr2
from circuitlab.interventions import minimal_pair_shifts
from circuitlab.model import NAC
from circuitlab.pairs_eval import PAIRS_HELDOUT_SEED, pairs_task
from circuitlab.train import load_model
from circuitlab.worlds.minimal_pairs import nlvr2_minimal_pairs_by_kind
from circuitlab.worlds.nlvr2_vocab import object_nouns

NAME = "minimal_pair_kinds"
MIN_PAIRS = 30  # kinds with fewer pairs are listed, but not in the mean or the goal
GOAL = 0.80
NOUNS = 60  # the counted nouns swapped (the most frequent of NLVR2's; as bench/pair_circuits)
MEASURES = ("model", "untrained", "sentence")
# median RMS change of P per link, for each generator: a logic change's and a noun swap's
SHIFTS = tuple(
    f"{who}_{change}_rms" for who in ("model", "untrained") for change in ("logic", "noun")
)
# NLVR2 test1 rewritten by bench/second_pairs.py's rules, apart from the contrast's: measure only
SECOND = "nlvr2 test1, second construction"


def embedding_moves_more(pairs: pd.DataFrame) -> np.ndarray:
    """Per pair, whether the logic change moves the sentence embedding more than the noun
    change does."""
    n = len(pairs)
    x = sentence_embeddings([*pairs["text"], *pairs["wording"], *pairs["logic"]])
    base, wording, logic = x[:n], x[n : 2 * n], x[2 * n :]
    return np.linalg.norm(logic - base, axis=1) > np.linalg.norm(wording - base, axis=1)


def kind_table(model: NAC, encode, pairs: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Per kind: pairs, the share of them whose logic change moves more, per measure, and the
    median shifts (SHIFTS); then the mean over the kinds with >= MIN_PAIRS pairs."""
    torch.manual_seed(seed)
    generators = {"model": model, "untrained": NAC(model.config).eval()}
    moved = pd.DataFrame({"kind": pairs["kind"].to_numpy()})
    for who, generator in generators.items():
        shifts = minimal_pair_shifts(generator, encode, pairs)
        moved[who] = shifts["logic_moves_more"].to_numpy()
        processors = generator.config.n_processors  # P is (processors, processors)
        moved[f"{who}_logic_rms"] = shifts["logic_shift"].to_numpy() / processors
        moved[f"{who}_noun_rms"] = shifts["wording_shift"].to_numpy() / processors
    moved["sentence"] = embedding_moves_more(pairs)
    grouped = moved.groupby("kind", sort=False)
    table = pd.concat([grouped[list(MEASURES)].mean(), grouped[list(SHIFTS)].median()], axis=1)
    table.insert(0, "pairs", grouped.size())
    counted = table[table["pairs"] >= MIN_PAIRS]
    columns = [*MEASURES, *SHIFTS]
    mean = {"pairs": int(counted["pairs"].sum()), **counted[columns].mean().to_dict()}
    table.loc["mean over kinds"] = mean
    return table.reset_index()


def heldout_sentences(task, n_examples: int) -> list[str]:
    """The unique sentences of the pair world's held-out examples (the run never saw them)."""
    examples = task.validation_examples(n_examples, PAIRS_HELDOUT_SEED, split="val")
    return list(dict.fromkeys(e.sentence for e in examples))


def measure(run: Path, name: str, n_examples: int, seed: int) -> list[dict]:
    model, config = load_model(run)
    if not model.config.conditional:
        raise SystemExit(f"{run}: not a conditional model, it makes no circuit per sentence")
    try:
        task = pairs_task(config)
    except ValueError as err:
        raise SystemExit(f"{run}: {err}") from None
    nouns = [(f.singular, f.plural) for f in object_nouns(NOUNS)]
    test1 = list(dict.fromkeys(read_nlvr2("nlvr2-test1")["sentence"]))
    sources = {
        "nlvr2 dev": nlvr2_minimal_pairs_by_kind(
            list(dict.fromkeys(read_nlvr2("nlvr2-dev")["sentence"])), nouns, seed
        ),
        "pair world held-out": nlvr2_minimal_pairs_by_kind(
            heldout_sentences(task, n_examples), nouns, seed
        ),
        SECOND: second_construction_pairs(test1, nouns, seed),
    }
    rows = []
    for source, pairs in sources.items():
        table = kind_table(model, task.encode_text, pairs, seed)
        for record in table.to_dict("records"):
            rows.append({"run": name, "seed": config.seed, "source": source, **record})
    return rows


def figure(frame: pd.DataFrame, path: Path) -> None:
    """Per source, the share per kind (>= MIN_PAIRS pairs) for each measure, the goal dashed;
    the model's bars are the mean over the rows' runs, their spread as error bars."""
    sources = list(frame["source"].unique())
    fig, axes = plt.subplots(1, len(sources), figsize=(6.5 * len(sources), 4.6), squeeze=False)
    for ax, source in zip(axes[0], sources, strict=True):
        rows = frame[(frame["source"] == source) & (frame["pairs"] >= MIN_PAIRS)]
        grouped = rows.groupby("kind", sort=False)[list(MEASURES)]
        means, spread = grouped.mean(), grouped.std().fillna(0.0)
        x = np.arange(len(means))
        for k, measure_name in enumerate(MEASURES):
            ax.bar(
                x + (k - 1) * 0.27,
                means[measure_name],
                0.27,
                yerr=spread[measure_name],
                label=measure_name,
            )
        ax.axhline(GOAL, color="k", linestyle="--", linewidth=0.8)
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=0.8)
        ax.set_xticks(x, means.index, rotation=60, ha="right", fontsize=8)
        ax.set_ylim(0, 1.15)
        ax.set_yticks(np.linspace(0, 1, 6))
        ax.set_ylabel("logic change moves more than a noun swap")
        ax.set_title(f"{source} ({rows['run'].nunique()} run(s))")
        ax.legend(fontsize=8, loc="upper center", ncol=3)
    save_figure(fig, path, dpi=130)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, default=[Path("checkpoints/pairs")])
    parser.add_argument("--name", nargs="*", help="row names (default: the run directories')")
    parser.add_argument("--examples", type=int, default=4000, help="held-out pair-world examples")
    parser.add_argument("--seed", type=int, default=0, help="seed of the pairs and the control")
    parser.add_argument(
        "--figure-only",
        action="store_true",
        help="only draw the figure of the CSV's rows (of the runs --name names, if given)",
    )
    args = parser.parse_args()
    if args.figure_only:
        frame = pd.read_csv(RESULTS / f"{NAME}.csv")
        if args.name:
            unknown = sorted(set(args.name) - set(frame["run"]))
            if unknown:
                raise SystemExit(f"no rows for {unknown} in {RESULTS / f'{NAME}.csv'}")
            frame = frame[frame["run"].isin(args.name)]
        figure(frame[frame["kind"] != "mean over kinds"], FIGURES / f"{NAME}.png")
        return
    names = args.name or [run.name for run in args.runs]
    if len(names) != len(args.runs):
        raise SystemExit(f"{len(names)} names for {len(args.runs)} runs")
    rows = [
        row
        for run, name in zip(args.runs, names, strict=True)
        for row in measure(run, name, args.examples, args.seed)
    ]
    path = RESULTS / f"{NAME}.csv"
    if path.is_file():  # other runs' rows kept, a run measured again replaced
        old = pd.read_csv(path)
        rows = [*old[~old["run"].isin(names)].to_dict("records"), *rows]
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 200):
        frame = write_table(rows, NAME, "minimal pairs by kind of logic change")
    measured = frame[frame["run"].isin(names) & (frame["kind"] != "mean over kinds")]
    figure(measured, FIGURES / f"{NAME}.png")  # these runs only: not other models' rows


if __name__ == "__main__":
    main()
