"""Export a trained run's circuits to a circuit store."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import pandas as pd
import torch
from tqdm import tqdm

from circuitlab.checkpoint import CHECKPOINT, checkpoint_file
from circuitlab.data.nlvr import read_nlvr, scene_json
from circuitlab.data.pair_scenes import pair_scene_json
from circuitlab.files import file_sha256, write_atomic
from circuitlab.kinds import model_kind
from circuitlab.loading import load_model
from circuitlab.model import NAC
from circuitlab.nlvr_eval import nlvr2_sentences, nlvr_task, predict_nlvr
from circuitlab.predict import predict_logits
from circuitlab.run_config import TrainConfig
from circuitlab.store import CircuitStore
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.pairs import PairWorldTask

__all__ = ["export_checkpoint", "write_nac_stores"]


class TextTask(Protocol):
    def encode_text(self, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]: ...


def _write_run_store(
    model: NAC,
    train_config: TrainConfig,
    checkpoint: Path,
    out: str | os.PathLike,
    *,
    n_circuits: int,
    seed: int,
    overwrite: bool,
) -> CircuitStore:
    """The store of a NAC run that is not an NLVR or pair-world sentence model: an
    unconditional model's one circuit, or a conditional one's circuits for ``n_circuits``
    distinct conditioning inputs drawn from its task (text, label, ... in the frame); the store
    records ``checkpoint``'s hash."""
    if model.config.conditional:
        task = make_task(train_config.task, conditional=True, **train_config.task_options)
        batch, frame = task.circuit_inputs(n_circuits, seed)
        circuits = []
        for start in range(0, n_circuits, 256):
            part = slice(start, start + 256)
            mask = None if batch.conditioning_mask is None else batch.conditioning_mask[part]
            circuits += model.circuits(batch.conditioning[part], mask)
    else:
        circuits = [model.circuit()]
        frame = pd.DataFrame(
            {"text": [""], "label": [""], "split": ["model"], "dataset": [train_config.task]}
        )
    return CircuitStore.write(
        out,
        circuits,
        frame,
        model.config.to_dict(),
        checkpoint_hash=file_sha256(checkpoint),
        overwrite=overwrite,
    )


def _circuits_for(model: NAC, task: TextTask, sentences: list[str], chunk: int = 256) -> list:
    """One circuit per entry of ``sentences``. Each distinct sentence is generated once, so rows
    that repeat a sentence hold the very same circuit (chunks pad to different lengths, which
    would otherwise change it by float rounding)."""
    distinct = list(dict.fromkeys(sentences))
    circuits = []
    for start in tqdm(range(0, len(distinct), chunk), desc="circuits", leave=False):
        tokens, mask = task.encode_text(distinct[start : start + chunk])
        circuits += model.circuits(tokens, mask)
    by_sentence = dict(zip(distinct, circuits, strict=True))
    return [by_sentence[sentence] for sentence in sentences]


NLVR_STORES = ("nlvr2", "nlvr")
MANIFEST = "export.json"


PAIR_STORES = ("nlvr2", "pairs")


def _write_manifest(
    out: Path, digest: str, complete: list[str], names: tuple[str, ...] = NLVR_STORES
) -> None:
    """``OUT/export.json``: which of the export's stores (``names``) are complete, for which
    checkpoint; a killed export leaves the ones it finished listed and the others ``pending``."""
    stores = {name: "complete" if name in complete else "pending" for name in names}
    manifest = {"checkpoint_sha256": digest, "stores": stores}
    write_atomic(out / MANIFEST, lambda tmp: tmp.write_text(json.dumps(manifest, indent=2)))


class _StoreWriter:
    """Writes an export's stores (``names``) one by one under ``out``, one circuit per row's
    text, and keeps ``OUT/export.json`` saying which are complete."""

    def __init__(
        self,
        model: NAC,
        task: TextTask,
        checkpoint: Path,
        out: Path,
        names: tuple[str, ...],
        overwrite: bool,
    ) -> None:
        self.model, self.task, self.out, self.names = model, task, out, names
        self.overwrite = overwrite
        self.digest = file_sha256(checkpoint)
        self.complete: list[str] = []

    def write(self, name: str, frame: pd.DataFrame) -> CircuitStore:
        circuits = _circuits_for(self.model, self.task, frame["text"].tolist())
        store = CircuitStore.write(
            self.out / name,
            circuits,
            frame,
            self.model.config.to_dict(),
            checkpoint_hash=self.digest,
            overwrite=self.overwrite,
        )
        self.complete.append(name)
        _write_manifest(self.out, self.digest, self.complete, self.names)
        return store


def _write_nlvr_stores(
    model: NAC,
    config: TrainConfig,
    checkpoint: Path,
    out: Path,
    *,
    overwrite: bool,
    limit: int | None = None,
) -> dict[str, CircuitStore]:
    """The two stores of a conditional NLVR model, under ``out``:

    - ``nlvr2``: one circuit per distinct NLVR2 sentence of dev and test1, with label, split,
      categories and category_source (see ``nlvr2_sentences``);
    - ``nlvr``: one circuit per NLVR dev and test example (sentence with one scene), with the
      scene's identifier, label, the model's prediction and whether it is correct.

    ``limit``: only the first ``limit`` NLVR2 sentences and NLVR examples of each split."""
    task = nlvr_task(config)
    write = _StoreWriter(model, task, checkpoint, out, NLVR_STORES, overwrite).write

    stores = {"nlvr2": write("nlvr2", nlvr2_sentences().head(limit))}
    parts = []
    for split in ("nlvr-dev", "nlvr-test"):
        examples = read_nlvr(split)[:limit]
        predictions = predict_nlvr(model, task, examples)
        predictions["split"] = split.removeprefix("nlvr-")
        predictions["scene"] = [scene_json(e.boxes) for e in examples]  # the app draws it
        parts.append(predictions)
    frame = pd.concat(parts, ignore_index=True).rename(
        columns={"sentence": "text", "identifier": "scene_id"}
    )
    frame["dataset"] = "nlvr"
    frame["category_source"] = "tagger"
    stores["nlvr"] = write("nlvr", frame)
    return stores


def pair_predictions(
    model: NAC, task: PairWorldTask, n_examples: int, seed: int = 0
) -> pd.DataFrame:
    """The model's answers on ``n_examples`` held-out pair-world examples of each split (``val``:
    new sentences about the training nouns; ``held_out``: sentences about held-out nouns):
    text, label, prediction, p_true, correct, split, categories, category_source (grammar),
    scene (the pair as JSON, ``PairScene.to_json``)."""
    parts = []
    for split in ("val", "held_out"):
        examples = task.validation_examples(n_examples, seed, split=split)
        probabilities = predict_logits(model, task.batch_for(examples)).softmax(-1)[:, 1]
        labels = [e.label for e in examples]
        predictions = (probabilities > 0.5).tolist()
        parts.append(
            pd.DataFrame(
                {
                    "text": [e.sentence for e in examples],
                    "label": labels,
                    "prediction": predictions,
                    "p_true": probabilities.numpy(),
                    "correct": [p == y for p, y in zip(predictions, labels, strict=True)],
                    "split": split,
                    "categories": [list(e.categories) for e in examples],
                    "scene": [pair_scene_json(e.scene) for e in examples],  # the app draws it
                }
            )
        )
    frame = pd.concat(parts, ignore_index=True)
    frame["dataset"] = "pairs"
    frame["category_source"] = "grammar"
    return frame


def _write_pair_stores(
    model: NAC,
    config: TrainConfig,
    checkpoint: Path,
    out: Path,
    *,
    overwrite: bool,
    limit: int | None = None,
    n_examples: int = 500,
) -> dict[str, CircuitStore]:
    """The two stores of a conditional ``pairs`` model, under ``out``:

    - ``nlvr2``: one circuit per distinct NLVR2 sentence of dev and test1, as for an NLVR model
      (the app's NLVR2 view);
    - ``pairs``: one circuit per held-out pair-world example, ``n_examples`` of each split, with
      the model's prediction (``pair_predictions``).

    ``limit``: only the first ``limit`` NLVR2 sentences and pair examples (small stores).
    """
    # the run's own pools: its held-out sentences are then the ones it never trained on
    task = PairWorldTask(conditional=True, **config.task_options)
    write = _StoreWriter(model, task, checkpoint, out, PAIR_STORES, overwrite).write

    stores = {"nlvr2": write("nlvr2", nlvr2_sentences().head(limit))}
    stores["pairs"] = write("pairs", pair_predictions(model, task, n_examples).head(limit))
    return stores


def _model_set_runs(folder: str | os.PathLike) -> list[Path]:
    """The run directories directly under ``folder`` that hold a checkpoint, sorted by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder of runs")
    runs = sorted(p for p in folder.iterdir() if (p / CHECKPOINT).is_file())
    if not runs:
        raise FileNotFoundError(
            f"{folder} holds no checkpoint.pt and no run folder with one: give a run directory "
            "of circuitlab train, or a folder of them"
        )
    return runs


def _export_model_set(
    folder: str | os.PathLike, out: str | os.PathLike, *, overwrite: bool = False
) -> CircuitStore:
    """One store holding the circuit of every unconditional NAC run under ``folder`` (e.g. one
    model per graph prior): a row per run with ``text`` its folder name, ``imposed_prior`` (the
    prior it trained with, or "none"), ``val_acc`` from its summary, and its ``run`` path.
    The runs must share the number of modules and the signature width; the store's config is the
    first run's, and its checkpoint hash covers every run's checkpoint."""
    runs = _model_set_runs(folder)
    circuits, rows, hashes, config = [], [], [], None
    for run in runs:
        model, train_config = load_model(run)
        if not isinstance(model, NAC) or model.config.conditional:
            raise ValueError(
                f"{run} is not an unconditional NAC: a model set holds one circuit per model; "
                "export a conditional run on its own"
            )
        circuit = model.circuit()
        if circuits and circuit.signatures.shape != circuits[0].signatures.shape:
            raise ValueError(
                f"{run}: signatures {tuple(circuit.signatures.shape)} differ from {runs[0]}'s "
                f"{tuple(circuits[0].signatures.shape)}; a store holds circuits of one shape"
            )
        config = config or model.config.to_dict()
        circuits.append(circuit)
        summary = run / "summary.json"
        accuracy = json.loads(summary.read_text()).get("val_acc") if summary.is_file() else None
        rows.append(
            {
                "text": run.name,
                "label": "",
                "split": "model",
                "dataset": train_config.task,
                "imposed_prior": model.config.prior or "none",
                "val_acc": float("nan") if accuracy is None else float(accuracy),
                "run": str(run),
            }
        )
        hashes.append(file_sha256(run / CHECKPOINT))
    combined = hashlib.sha256("".join(hashes).encode()).hexdigest()
    return CircuitStore.write(
        out, circuits, pd.DataFrame(rows), config, checkpoint_hash=combined, overwrite=overwrite
    )


def _is_sentence_model(model: object, config: TrainConfig) -> bool:
    """Whether ``model`` is a conditional NLVR or pair-world model, whose export is two sentence
    stores (any other kind or task: one store)."""
    conditional = getattr(getattr(model, "config", None), "conditional", False)
    return conditional and config.task in ("nlvr", "pairs")


def write_nac_stores(
    model: NAC,
    config: TrainConfig,
    checkpoint: Path,
    out: str | os.PathLike,
    *,
    n_circuits: int = 256,
    seed: int = 0,
    overwrite: bool = False,
    limit: int | None = None,
) -> dict[str, CircuitStore]:
    """A NAC's stores: a conditional NLVR model's two (``_write_nlvr_stores``), a conditional
    pair-world model's two (``_write_pair_stores``), otherwise one (``_write_run_store``).
    ``limit``: the sentence stores' first ``limit`` sentences and examples only.

    Parameters
    ----------
    model
        The trained model.
    config
        The run's TrainConfig.
    checkpoint
        The checkpoint file it was read from (its SHA-256 is recorded).
    out
        The store's folder.
    n_circuits
        Circuits (inputs) exported at most.
    seed
        Seed of the inputs drawn.
    overwrite
        Replace a store already at ``out``.
    limit
        Rows of each split kept at most (a sentence model's small stores).
    """
    if _is_sentence_model(model, config):
        write = _write_nlvr_stores if config.task == "nlvr" else _write_pair_stores
        return write(model, config, checkpoint, Path(out), overwrite=overwrite, limit=limit)
    options = {"n_circuits": n_circuits, "seed": seed, "overwrite": overwrite}
    return {"": _write_run_store(model, config, checkpoint, out, **options)}


def export_checkpoint(
    path: str | os.PathLike,
    out: str | os.PathLike,
    *,
    n_circuits: int = 256,
    seed: int = 0,
    overwrite: bool = False,
    limit: int | None = None,
) -> dict[str, CircuitStore]:
    """Write the circuits of the run at ``path`` (a run directory or its checkpoint.pt) with the
    exporter of its model kind (``circuitlab.kinds``): the one entry point of export, which
    ``circuitlab export`` calls. A folder of unconditional NAC runs gives one store, a circuit
    per run (row ``text`` the run's folder, ``imposed_prior``, ``val_acc``, ``run``).

    Parameters
    ----------
    path
        A run directory, its checkpoint.pt, or a folder of unconditional runs.
    out
        Where the store goes; a folder of stores for a sentence model (NLVR: ``nlvr2`` and
        ``nlvr``; pair world: ``nlvr2`` and ``pairs``).
    n_circuits, seed
        A conditional model of another task: how many conditioning inputs its task draws, and
        the seed of the draw.
    overwrite
        Replace stores already there (else FileExistsError).
    limit
        A sentence model's stores hold only their first ``limit`` sentences and examples
        (small stores for notebooks and tests); ValueError for another kind of run.

    Returns
    -------
    dict
        The stores written, keyed by their name under ``out`` ("" when ``out`` is the store).
    """
    path = Path(path)
    if path.is_dir() and not (path / CHECKPOINT).is_file():
        return {"": _export_model_set(path, out, overwrite=overwrite)}
    checkpoint = checkpoint_file(path)
    model, config = load_model(checkpoint)
    options = {"n_circuits": n_circuits, "seed": seed, "overwrite": overwrite}
    if limit is not None:
        if not _is_sentence_model(model, config):
            raise ValueError(
                f"limit={limit}: {path} is not an NLVR or pair-world sentence model, whose "
                "stores it shortens; leave limit out"
            )
        options["limit"] = limit
    return model_kind(config.model_kind).export(model, config, checkpoint, out, **options)
