"""The related systems' shipped models (checkpoints/ni, checkpoints/mn, checkpoints/nfm, which
`make demo` exports): weights only, as good as their summaries say, and exported to a store of
their kind."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from circuitlab.export import export_checkpoint
from circuitlab.kinds import kind_of
from circuitlab.predict import batch_metrics
from circuitlab.run_records import RESUME_ONLY
from circuitlab.train import load_model, read_checkpoint
from circuitlab.worlds.tasks import make_task

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
# folder: (model kind, the score its validation must reach: R^2 or accuracy)
SHIPPED = {"ni": ("ni", 0.99), "mn": ("mn", 0.99), "nfm": ("nfm", 0.70)}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_related_model_ships_weights_only_and_scores_as_its_summary_says(name, tmp_path):
    kind, floor = SHIPPED[name]
    folder = CHECKPOINTS / name
    assert (folder / "checkpoint.pt").stat().st_size < 4 * 2**20
    assert not set(RESUME_ONLY) & set(read_checkpoint(folder))
    model, config = load_model(folder)
    assert kind_of(model).name == kind == config.model_kind
    task = make_task(config.task, **config.task_options)
    _, score = batch_metrics(model, task.validation(512, seed=0), "cpu", task)
    summary = json.loads((folder / "summary.json").read_text())
    logged = summary.get("val_r2", summary.get("val_acc"))
    assert score >= floor and logged >= floor
    store = export_checkpoint(folder, tmp_path / name, n_circuits=16)
    (only,) = store.values()
    # an NFM store holds n questions of the test pool and n of the held-out pool
    assert only.kind == kind and len(only) == (32 if kind == "nfm" else 16)


def test_the_shipped_modular_network_gives_each_component_its_own_module(tmp_path):
    (store,) = export_checkpoint(CHECKPOINTS / "mn", tmp_path / "mn", n_circuits=256).values()
    picked = np.asarray(store.array("paths"))[:, 0, 0]  # (N,): the module of each input
    component = store.frame["label"].to_numpy()
    for label in set(component):
        shares = np.bincount(picked[component == label], minlength=2) / (component == label).sum()
        assert shares.max() >= 0.95  # one module takes (almost) all of a component
    assert set(picked) == {0, 1}  # and the two components take different modules
