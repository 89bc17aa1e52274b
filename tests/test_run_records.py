"""Run records: metrics.csv thinned to a curve that keeps every validation row; a run kept
without its weights."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from circuitlab.run_records import keep_record, thin_metrics, thinned_rows


def _rows(n: int, every: int) -> list[dict[str, str]]:
    return [
        {"step": str(s), "loss": f"{1 / s:.4f}", "val_acc": "0.5" if s % every == 0 else ""}
        for s in range(1, n + 1)
    ]


def test_thinning_keeps_validation_rows_ends_and_even_spacing():
    rows = _rows(10_000, every=500)
    kept = thinned_rows(rows, max_rows=100)
    steps = [int(r["step"]) for r in kept]
    assert len(kept) <= 100 and steps == sorted(steps)
    assert steps[0] == 1 and steps[-1] == 10_000
    assert {s for s in range(500, 10_001, 500)} <= set(steps)  # every validation row
    gaps = [b - a for a, b in zip(steps, steps[1:], strict=False)]
    assert max(gaps) <= 2 * 10_000 / 80  # no stretch of the curve left out


def test_a_short_record_is_left_whole_and_bad_sizes_are_refused():
    rows = _rows(50, every=10)
    assert thinned_rows(rows, max_rows=100) == rows
    with pytest.raises(ValueError, match="max_rows"):
        thinned_rows(rows, max_rows=1)


def test_thin_metrics_rewrites_the_file_in_place(tmp_path):
    path = tmp_path / "metrics.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["step", "loss", "val_acc"])
        writer.writeheader()
        writer.writerows(_rows(5_000, every=1_000))
    assert thin_metrics(path, max_rows=200) <= 200
    with path.open() as f:
        reader = csv.DictReader(f)
        kept = list(reader)
    assert reader.fieldnames == ["step", "loss", "val_acc"]
    assert [r["step"] for r in kept if r["val_acc"]] == ["1000", "2000", "3000", "4000", "5000"]


def test_a_kept_record_has_the_config_summary_and_thinned_curve_but_no_weights(tmp_path):
    run, to = tmp_path / "run", tmp_path / "training" / "seed-1"
    run.mkdir()
    (run / "config.json").write_text('{"steps": 5000}')
    (run / "summary.json").write_text('{"val_acc": 0.9}')
    (run / "checkpoint.pt").write_bytes(b"weights")
    with (run / "metrics.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, ["step", "loss", "val_acc"])
        writer.writeheader()
        writer.writerows(_rows(5_000, every=1_000))
    assert keep_record(run, to, max_rows=300) <= 300
    assert {p.name for p in to.iterdir()} == {"config.json", "summary.json", "metrics.csv"}
    assert (to / "config.json").read_text() == '{"steps": 5000}'
    with (to / "metrics.csv").open() as f:
        assert [r["step"] for r in csv.DictReader(f) if r["val_acc"]][-1] == "5000"
    with pytest.raises(FileExistsError, match="seed-1 is not empty"):
        keep_record(run, to)
    with pytest.raises(FileNotFoundError, match="is it a run directory"):
        keep_record(tmp_path / "training", tmp_path / "elsewhere")


def test_a_kept_record_names_the_record_it_was_warm_started_from(tmp_path):
    earlier, run = tmp_path / "training" / "stage-1", tmp_path / "run"
    earlier.mkdir(parents=True)
    (earlier / "config.json").write_text('{"steps": 100, "init_from": null}')
    run.mkdir()
    (run / "config.json").write_text('{"steps": 50, "init_from": "/tmp/stage-1"}')
    (run / "metrics.csv").write_text("step,loss\n1,0.5\n")
    keep_record(run, tmp_path / "training" / "stage-2", init_from=earlier)
    kept = json.loads((tmp_path / "training" / "stage-2" / "config.json").read_text())
    assert kept == {"steps": 50, "init_from": earlier.as_posix()}
    with pytest.raises(FileNotFoundError, match="holds no config.json"):
        keep_record(run, tmp_path / "training" / "stage-3", init_from=tmp_path / "nowhere")
    assert not (tmp_path / "training" / "stage-3").exists()


def test_every_kept_record_that_was_warm_started_names_a_record_in_the_repository():
    root = Path(__file__).resolve().parents[1]
    dangling = {}
    for config in sorted((root / "training").glob("*/config.json")):
        init_from = json.loads(config.read_text()).get("init_from")
        if init_from is None:
            continue
        earlier = root / init_from
        earlier = earlier.parent if earlier.suffix == ".pt" else earlier
        if Path(init_from).is_absolute() or not (earlier / "config.json").is_file():
            dangling[config.parent.name] = init_from
    assert not dangling, f"records whose init_from names no record here: {dangling}"
