"""Run records: metrics.csv thinned to a curve that keeps every validation row; a run kept
without its weights."""

from __future__ import annotations

import csv

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
