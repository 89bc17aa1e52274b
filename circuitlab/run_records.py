"""Run records small enough to keep: a run's metrics.csv thinned to a curve, and a run shipped
weights only.

A run writes one metrics row per step (88,000 rows, 5.6 MB, for the shipped NLVR model). What a
record needs of it is the curve: ``thin_metrics`` keeps every row with a validation score and
evenly spaced training rows, ``max_rows`` in all, first and last step included.
``ship_weights_only`` copies a finished run as a checkpoint folder to keep in the repository;
``keep_record`` copies a run without its weights (config, summary, thinned curve) as the record
of a screen or seed under ``training/``.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import torch

from circuitlab.checkpoint import CHECKPOINT, read_checkpoint
from circuitlab.files import write_atomic

__all__ = ["RESUME_ONLY", "keep_record", "ship_weights_only", "thin_metrics", "thinned_rows"]

# a checkpoint's entries that only a resumed run needs
RESUME_ONLY = ("optimizer", "scheduler")


def thinned_rows(rows: list[dict[str, str]], max_rows: int = 1000) -> list[dict[str, str]]:
    """``rows`` (metrics.csv's, in step order) cut to at most ``max_rows`` (at least the rows
    with a validation score, which are always kept): those, then training rows at even spacing
    with the first and the last step.

    Parameters
    ----------
    rows, max_rows
        As above.
    """
    if max_rows < 2:
        raise ValueError(f"max_rows must be >= 2, got {max_rows}")
    if len(rows) <= max_rows:
        return list(rows)
    scored = {
        i for i, row in enumerate(rows) if any(k.startswith("val_") and v for k, v in row.items())
    }
    room = max(max_rows - len(scored), 2)
    step = (len(rows) - 1) / (room - 1)
    spaced = {round(k * step) for k in range(room)}
    return [rows[i] for i in sorted(scored | spaced)]


def thin_metrics(
    source: str | os.PathLike, target: str | os.PathLike | None = None, max_rows: int = 1000
) -> int:
    """Write ``source``'s metrics.csv thinned (``thinned_rows``) to ``target`` (default: in
    place, atomically); returns the rows kept.

    Parameters
    ----------
    source
        A run directory or its metrics.csv.
    target
        As above.
    max_rows
        Rows kept at most.
    """
    source = Path(source)
    with source.open(newline="") as f:
        reader = csv.DictReader(f)
        columns = list(reader.fieldnames or [])
        rows = list(reader)
    kept = thinned_rows(rows, max_rows)

    def write(tmp: Path) -> None:
        with tmp.open("w", newline="") as out:
            writer = csv.DictWriter(out, columns)
            writer.writeheader()
            writer.writerows(kept)

    write_atomic(Path(target) if target is not None else source, write)
    return len(kept)


def ship_weights_only(run: str | os.PathLike, to: str | os.PathLike, max_rows: int = 500) -> Path:
    """Copy the finished run ``run`` to the folder ``to`` as a shipped model: checkpoint.pt
    without the optimiser and scheduler states (the model, its config and the run's
    TrainConfig: about a third of the size), config.json and summary.json as they are,
    metrics.csv thinned to ``max_rows``. Returns the new checkpoint's path.

    Parameters
    ----------
    run
        The finished run directory.
    to
        The shipped model's folder.
    max_rows
        Curve rows kept at most.
    """
    run, to = Path(run), Path(to)
    if not (run / "summary.json").is_file():
        raise FileNotFoundError(f"{run} has no summary.json: ship a finished run")
    state = read_checkpoint(run)
    for key in RESUME_ONLY:
        state.pop(key, None)
    to.mkdir(parents=True, exist_ok=True)
    write_atomic(to / CHECKPOINT, lambda tmp: torch.save(state, tmp))
    _copy_record(run, to, max_rows)
    return to / CHECKPOINT


def keep_record(
    run: str | os.PathLike,
    to: str | os.PathLike,
    max_rows: int = 1000,
    init_from: str | os.PathLike | None = None,
) -> int:
    """Copy ``run``'s record to the folder ``to``, weights left out: config.json, summary.json
    (if the run finished) and metrics.csv thinned to ``max_rows``. Refuses a ``to`` that holds
    files already. Returns the curve's rows kept.

    Parameters
    ----------
    run
        The run directory.
    to
        The record's folder.
    max_rows
        Curve rows kept at most.
    init_from
        For a warm-started run: the record of the run it started from (a folder holding
        config.json, e.g. ``training/NAME``), written as the kept config's ``init_from`` in
        place of the run folder it named when it trained (``runs/...`` or a temporary folder
        that does not outlive the machine), so that ``training_stages`` can follow the record.
    """
    run, to = Path(run), Path(to)
    if not (run / "config.json").is_file() or not (run / "metrics.csv").is_file():
        raise FileNotFoundError(f"{run} has no config.json and metrics.csv: is it a run directory?")
    if init_from is not None and not (Path(init_from) / "config.json").is_file():
        raise FileNotFoundError(
            f"init_from {init_from} holds no config.json: name the record of the run {run} "
            "started from (keep that run's record first)"
        )
    if to.exists() and any(to.iterdir()):
        raise FileExistsError(f"{to} is not empty: remove it or pick another folder")
    to.mkdir(parents=True, exist_ok=True)
    rows = _copy_record(run, to, max_rows)
    if init_from is not None:
        config = json.loads((to / "config.json").read_text())
        config["init_from"] = Path(init_from).as_posix()
        (to / "config.json").write_text(json.dumps(config, indent=2))
    return rows


def _copy_record(run: Path, to: Path, max_rows: int) -> int:
    """Copy ``run``'s config.json, its summary.json if it has one and its metrics.csv thinned to
    ``max_rows`` into the existing folder ``to``; returns the curve's rows kept."""
    shutil.copyfile(run / "config.json", to / "config.json")
    if (run / "summary.json").is_file():
        shutil.copyfile(run / "summary.json", to / "summary.json")
    return thin_metrics(run / "metrics.csv", to / "metrics.csv", max_rows=max_rows)
