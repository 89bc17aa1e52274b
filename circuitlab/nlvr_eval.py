"""Score a model trained with ``--task nlvr`` on examples in NLVR's official format.

``predict_nlvr`` gives one row per example (prediction, probability, correctness and the
example's reasoning categories from the rule-based tagger); ``accuracy_table`` turns such rows
into accuracy overall and per category.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import torch

from circuitlab.data.nlvr import NLVRExample, read_nlvr
from circuitlab.data.tagger import TAGGED, tag_all
from circuitlab.loading import load_model
from circuitlab.model import NAC
from circuitlab.predict import predict_logits
from circuitlab.run_config import TrainConfig
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.nlvr import NLVRWorld

__all__ = [
    "WORLD_HELDOUT_SEED",
    "accuracy_table",
    "evaluate_file",
    "full_task",
    "nlvr2_sentences",
    "nlvr_causality",
    "nlvr_task",
    "predict_nlvr",
    "world_heldout",
    "write_predictions",
]


def nlvr_task(
    config: TrainConfig, *, pool_size: int = 1, val_pool_size: int = 1, extra_pool_size: int = 0
) -> NLVRWorld:
    """The run's task with tiny sentence pools: enough to encode real examples the same way.

    Parameters
    ----------
    config
        The run's TrainConfig.
    pool_size, val_pool_size, extra_pool_size
        The sentence pools drawn (tiny: nothing needs them).
    """
    if config.task != "nlvr":
        raise ValueError(
            f"this checkpoint was trained on task {config.task!r}; scoring NLVR files needs a "
            "model trained with --task nlvr"
        )
    options = {
        **config.task_options,
        "pool_size": pool_size,
        "val_pool_size": val_pool_size,
        "extra_pool_size": extra_pool_size,
    }
    return make_task("nlvr", conditional=config.conditional, **options)


WORLD_HELDOUT_SEED = 12345  # the held-out world examples every NLVR table reads


def full_task(config: TrainConfig) -> NLVRWorld:
    """The run's task with its own sentence pools, so that its held-out sentences are the ones
    the run never trained on (building it draws and encodes every pool sentence).

    Parameters
    ----------
    config
        The run's TrainConfig.
    """
    return nlvr_task(
        config,
        pool_size=config.task_options.get("pool_size", 6000),
        val_pool_size=config.task_options.get("val_pool_size", 500),
        extra_pool_size=config.task_options.get("extra_pool_size", 0),
    )


def world_heldout(task: NLVRWorld, n: int = 4000, seed: int = WORLD_HELDOUT_SEED) -> list:
    """``n`` held-out world examples (new sentences on new scenes) in NLVR's format.

    Parameters
    ----------
    task
        The run's full task (``full_task``).
    n
        Examples.
    seed
        Seed of the examples.
    """
    return [w.to_nlvr(f"w{i}-0") for i, w in enumerate(task.validation_examples(n, seed=seed))]


def nlvr_causality(
    model: NAC,
    task: NLVRWorld,
    examples: Sequence[NLVRExample],
    seed: int = 0,
) -> dict[str, float]:
    """``circuitlab.interventions.causality_report`` on NLVR-format examples: accuracy with
    own circuits, with signatures or codes swapped between sentences, with an all-ones kernel,
    and the shape of the sentences' graphs.

    Parameters
    ----------
    model
        A conditional NLVR model.
    task
        Its task (``nlvr_task``).
    examples
        NLVR-format examples.
    seed
        Seed of the swaps.
    """
    from circuitlab.interventions import causality_report

    if not examples:
        raise ValueError("no examples to score")
    batch = task.batch_for(examples)
    return causality_report(model, batch, [e.sentence for e in examples], seed=seed)


def predict_nlvr(
    model: NAC,
    task: NLVRWorld,
    examples: Sequence[NLVRExample],
    device: str | torch.device = "cpu",
) -> pd.DataFrame:
    """One row per example: identifier, sentence_id, sentence, label, prediction, p_true,
    correct, categories (tagger).

    Parameters
    ----------
    model
        A conditional NLVR model.
    task
        Its task (``nlvr_task``).
    examples
        NLVR-format examples.
    device
        Where the model runs.
    """
    if not examples:
        raise ValueError("no examples to score")
    logits = predict_logits(model, task.batch_for(examples), device)
    p_true = logits.softmax(-1)[:, 1]
    labels = [e.label for e in examples]
    predictions = (p_true > 0.5).tolist()
    return pd.DataFrame(
        {
            "identifier": [e.identifier for e in examples],
            "sentence_id": [e.sentence_id for e in examples],
            "sentence": [e.sentence for e in examples],
            "label": labels,
            "prediction": predictions,
            "p_true": p_true.numpy().round(4),
            "correct": [p == y for p, y in zip(predictions, labels, strict=True)],
            "categories": tag_all(e.sentence for e in examples),
        }
    )


def accuracy_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """Rows: "all", then each tagged category present; columns: examples, accuracy.

    Parameters
    ----------
    predictions
        ``predict_nlvr``'s rows.
    """
    rows = [("all", len(predictions), predictions["correct"].mean())]
    for category in TAGGED:
        chosen = predictions["categories"].apply(lambda cs, c=category: c in list(cs))
        if chosen.any():
            rows.append((category, int(chosen.sum()), predictions.loc[chosen, "correct"].mean()))
    table = pd.DataFrame(rows, columns=["subset", "examples", "accuracy"])
    table["accuracy"] = table["accuracy"].astype(float).round(4)
    return table


def evaluate_file(
    checkpoint: str | os.PathLike, nlvr_file: str | os.PathLike, device: str = "cpu"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(predictions, accuracy table) of a run's checkpoint on an NLVR-format file.

    Parameters
    ----------
    checkpoint
        A run directory or checkpoint file of a conditional NLVR model.
    nlvr_file
        An NLVR-format JSON-lines file.
    device
        Where the model runs.
    """
    model, config = load_model(checkpoint, device)
    task = nlvr_task(config)
    predictions = predict_nlvr(model, task, read_nlvr(nlvr_file), device)
    return predictions, accuracy_table(predictions)


def write_predictions(predictions: pd.DataFrame, path: str | os.PathLike) -> None:
    """CSV, categories joined by ';'.

    Parameters
    ----------
    predictions
        ``predict_nlvr``'s rows.
    path
        The CSV file.
    """
    frame = predictions.copy()
    frame["categories"] = frame["categories"].apply(lambda cs: ";".join(cs))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)


def nlvr2_sentences(splits: Sequence[str] = ("nlvr2-dev", "nlvr2-test1")) -> pd.DataFrame:
    """One row per distinct NLVR2 sentence of ``splits``: text, label ("True", "False" or
    "mixed" over its image pairs), n_pairs, split (the first it appears in), categories and
    category_source ("gold" for the 800 annotated sentences, "tagger" for the rest).

    Parameters
    ----------
    splits
        The NLVR2 splits read (shipped under ``data/``).
    """
    from circuitlab.data.nlvr import read_annotations, read_nlvr2

    parts = []
    for split in splits:
        frame = read_nlvr2(split)
        frame["split"] = split.removeprefix("nlvr2-")
        parts.append(frame)
    rows = pd.concat(parts, ignore_index=True)
    grouped = rows.groupby("sentence", sort=False)
    frac_true = grouped["label"].mean()
    out = pd.DataFrame(
        {
            "text": frac_true.index,
            "label": ["True" if f == 1 else "False" if f == 0 else "mixed" for f in frac_true],
            "n_pairs": grouped.size().to_numpy(),
            "split": grouped["split"].first().to_numpy(),
            "dataset": "nlvr2",
        }
    )
    gold = read_annotations()
    gold_map = dict(zip(gold["sentence"], gold["categories"], strict=True))
    tagged = tag_all(out["text"])
    out["categories"] = [gold_map.get(t, tg) for t, tg in zip(out["text"], tagged, strict=True)]
    out["category_source"] = ["gold" if t in gold_map else "tagger" for t in out["text"]]
    return out
