"""Circuits of a pair-world model, measured as issue "NLVR2 in the generator's own language"
asks (Fig. 6 of the paper, honestly).

For each trained run of the ``pairs`` task
(`circuitlab train --config configs/experiments/pairs/...`):

- task: accuracy on held-out pair-world examples (new sentences about the training nouns, new
  pairs) and on held-out nouns (sentences about nouns no training example showed);
- what the executor reads: the accuracy lost on the held-out sentences when every object moves
  to the other image, loses its colour, or takes another object's noun
  (``circuitlab.pairs_eval.input_probes``);
- graph matters: the accuracy lost on the held-out examples when every example takes the
  signatures of an example with another sentence (codes kept), the codes of one, or an all-ones
  kernel; the graphs' shape;
- meaning on NLVR2: on the 800 gold-annotated NLVR2 dev sentences with exactly one category,
  5-NN accuracy (5-fold) and silhouette of the category from P, from an untrained generator's P
  and from the sentence embedding (the 5-NN accuracies also as mean and sd over --seed and the
  4 seeds after it, folds reshuffled and the control drawn again: on about 120 sentences one
  seed's figure moves by points); on all 800, for each category, the balanced accuracy of 5-NN
  telling whether a sentence has it (mean over categories); on NLVR2 dev minimal pairs
  (``circuitlab.worlds.minimal_pairs.nlvr2_minimal_pairs``: a noun swapped, against an image
  reference, quantifier, number, negation or comparison changed), the share of pairs whose logic
  change moves P more than the noun change, and the same share for the sentence embedding.

    python bench/pair_circuits.py RUN [RUN ...] [--name NAME ...] [--examples 4000]

Rows go to bench/results/pair_circuits.csv (rows of other runs kept).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from common import (
    category_membership,
    finished_runs,
    separation,
    with_other_runs,
    write_table,
)

from circuitlab.analysis.embedding import sentence_embeddings
from circuitlab.data.nlvr import read_annotations, read_nlvr2
from circuitlab.interventions import accuracy, causality_report, minimal_pair_shifts
from circuitlab.pairs_eval import (
    HELDOUT_SPLITS,
    PAIRS_HELDOUT_SEED,
    SCRAMBLES,
    input_probes,
    pairs_task,
)
from circuitlab.train import load_model, predict_logits
from circuitlab.worlds.minimal_pairs import nlvr2_minimal_pairs
from circuitlab.worlds.nlvr2_vocab import object_nouns

NAME = "pair_circuits"


def embedding_logic_share(pairs: pd.DataFrame) -> float:
    """The share of minimal pairs whose logic change moves the sentence embedding more than
    their wording change."""
    n = len(pairs)
    x = sentence_embeddings([*pairs["text"], *pairs["wording"], *pairs["logic"]])
    base, wording, logic = x[:n], x[n : 2 * n], x[2 * n :]
    moved_wording = np.linalg.norm(wording - base, axis=1)
    moved_logic = np.linalg.norm(logic - base, axis=1)
    return float((moved_logic > moved_wording).mean())


def measure(run: Path, name: str, n_examples: int, seed: int) -> dict:
    model, config = load_model(run)
    try:
        task = pairs_task(config)
    except ValueError as err:
        raise SystemExit(f"{run}: {err}") from None
    row: dict = {"run": name, "seed": config.seed, "steps": config.steps}
    for split, column in HELDOUT_SPLITS.items():
        examples = task.validation_examples(n_examples, PAIRS_HELDOUT_SEED, split=split)
        batch = task.batch_for(examples)
        if split == "val" and model.config.conditional:
            report = causality_report(model, batch, [e.sentence for e in examples], seed=seed)
            row[column] = report["accuracy"]
            for key in (
                "signature_swap_drop",
                "code_swap_drop",
                "all_ones_drop",
                "density",
                "density_std",
                "participation_ratio",
                "pc1_share",
            ):
                row[key] = report[key]
            probes = input_probes(model, batch, seed=seed)
            for probe in SCRAMBLES:
                row[f"{probe}_drop"] = probes["as_given"] - probes[probe]
        else:
            logits = predict_logits(model, batch)
            row[column] = accuracy(logits, batch.labels)
    if not model.config.conditional:
        return row
    gold = read_annotations()
    single = gold[gold["categories"].map(len) == 1]
    row.update(
        separation(
            model,
            task.encode_text,
            list(single["sentence"]),
            [c[0] for c in single["categories"]],
            seed,
            repeats=5,
        )
    )
    row.update(
        category_membership(
            model, task.encode_text, list(gold["sentence"]), list(gold["categories"]), seed
        )
    )
    dev = list(dict.fromkeys(read_nlvr2("nlvr2-dev")["sentence"]))
    nouns = [(f.singular, f.plural) for f in object_nouns(60)]
    pairs = minimal_pair_shifts(model, task.encode_text, nlvr2_minimal_pairs(dev, nouns, seed))
    row.update(
        pairs=len(pairs),
        logic_moves_more=float(pairs["logic_moves_more"].mean()),
        logic_moves_more_sentence=embedding_logic_share(pairs),
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--name", nargs="*", help="row names (default: the run directories')")
    parser.add_argument("--examples", type=int, default=4000, help="held-out examples per split")
    parser.add_argument("--seed", type=int, default=0, help="seed of swaps, folds, controls")
    args = parser.parse_args()
    names = finished_runs(args.runs, args.name)
    rows = [
        measure(run, name, args.examples, args.seed)
        for run, name in zip(args.runs, names, strict=True)
    ]
    rows = with_other_runs(NAME, rows)
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 250):
        write_table(rows, NAME, "pair-world circuits (held-out sentences and nouns; NLVR2)")


if __name__ == "__main__":
    main()
