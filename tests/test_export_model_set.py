"""`circuitlab export FOLDER`: one store with the circuit of every unconditional run in it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from circuitlab.cli import app
from circuitlab.export import export_checkpoint
from circuitlab.store import CircuitStore
from circuitlab.train import TOY_MODEL, TrainConfig, load_model, train


def _tiny_run(path, prior=None, n_processors=8):
    model = dict(TOY_MODEL, n_processors=n_processors, dim=16, code_dim=8, sig_dim=8)
    if prior:
        model.update(prior=prior, prior_params={"n_blocks": 2})
    config = TrainConfig(steps=3, eval_every=3, eval_size=16, batch_size=8, model=model)
    train(config, path, progress=False)
    return path


@pytest.fixture(scope="module")
def model_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("priors")
    _tiny_run(folder / "none")
    _tiny_run(folder / "planted_partition", prior="planted_partition")
    (folder / "notes").mkdir()  # a folder without a checkpoint is not a run
    return folder


def test_cli_writes_one_circuit_per_run(model_set, tmp_path) -> None:
    result = CliRunner().invoke(app, ["export", str(model_set), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    store = CircuitStore.open(tmp_path / "s")
    assert len(store) == 2
    assert store.frame["text"].tolist() == ["none", "planted_partition"]
    assert store.frame["imposed_prior"].tolist() == ["none", "planted_partition"]
    assert store.frame["val_acc"].between(0, 1).all()
    model, _ = load_model(model_set / "planted_partition")
    np.testing.assert_allclose(
        store.link_probabilities(1), model.circuit().link_probability(), atol=1e-6
    )


def test_runs_of_other_shapes_and_empty_folders_are_refused(model_set, tmp_path) -> None:
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a").symlink_to(model_set / "none")
    _tiny_run(mixed / "b", n_processors=6)
    with pytest.raises(ValueError, match="a store holds circuits of one shape"):
        export_checkpoint(mixed, tmp_path / "s")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no run folder"):
        export_checkpoint(tmp_path / "empty", tmp_path / "s")


def test_shipping_keeps_the_model_drops_the_optimiser_and_thins_the_metrics(model_set, tmp_path):
    import csv

    from circuitlab.run_records import ship_weights_only

    run = model_set / "planted_partition"
    ship_weights_only(run, tmp_path / "shipped")
    shipped, _ = load_model(tmp_path / "shipped")
    original, _ = load_model(run)
    np.testing.assert_array_equal(
        shipped.circuit().link_probability(), original.circuit().link_probability()
    )
    assert (tmp_path / "shipped" / "checkpoint.pt").stat().st_size < (
        run / "checkpoint.pt"
    ).stat().st_size
    with (tmp_path / "shipped" / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["step"] for r in rows] == ["1", "2", "3"]  # 3 steps: nothing to thin
    assert json.loads((tmp_path / "shipped" / "summary.json").read_text())["steps"] == 3
    (run / "summary.json").unlink()  # an unfinished run is refused
    with pytest.raises(FileNotFoundError, match="ship a finished run"):
        ship_weights_only(run, tmp_path / "again")


def test_one_run_exports_through_the_one_entry_point_and_limit_is_refused_where_it_means_nothing(
    model_set, tmp_path
) -> None:
    stores = export_checkpoint(model_set / "none", tmp_path / "one")
    assert set(stores) == {""} and len(CircuitStore.open(tmp_path / "one")) == 1
    with pytest.raises(ValueError, match="not an NLVR or pair-world sentence model"):
        export_checkpoint(model_set / "none", tmp_path / "two", limit=5)
    assert not (tmp_path / "two").exists()
