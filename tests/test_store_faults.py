"""What killed and concurrent writers leave behind: an export killed at random points leaves the
old store or the new one, never anything else, and the next write cleans up (issue 20)."""

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from circuitlab import Circuit, CircuitStore
from circuitlab.files import recover_leftovers, replace_dir


def _store(path: Path, n: int, seed: int) -> CircuitStore:
    rng = np.random.default_rng(seed)
    circuits = [Circuit(rng.normal(size=(5, 3)), ["processor"] * 4 + ["readout"]) for _ in range(n)]
    return CircuitStore.write(path, circuits, overwrite=True)


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_writer_killed_between_its_renames_gets_its_old_store_back(tmp_path):
    _store(tmp_path / "store", 4, seed=0)
    aside = tmp_path / f".store.old-{_dead_pid()}"
    os.replace(tmp_path / "store", aside)  # what a kill between the two renames leaves
    (tmp_path / f".store.tmp-{_dead_pid()}-abc").mkdir()
    assert len(CircuitStore.open(tmp_path / "store")) == 4  # opening restores it
    _store(tmp_path / "store", 6, seed=1)  # the next write removes the dead writer's temporary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_a_running_writers_temporary_is_left_alone(tmp_path):
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        mine = tmp_path / f".store.tmp-{running.pid}-abc"
        mine.mkdir()
        recover_leftovers(tmp_path / "store")
        assert mine.is_dir()
    finally:
        running.kill()
        running.wait()
    recover_leftovers(tmp_path / "store")
    assert not mine.exists()


def test_the_loser_of_two_concurrent_replaces_says_so_and_keeps_the_winner(tmp_path, monkeypatch):
    target, new = tmp_path / "store", tmp_path / "new"
    target.mkdir()
    new.mkdir()
    (new / "mine").write_text("mine")
    real_replace = os.replace

    def other_writer_in_between(src, dst):
        real_replace(src, dst)
        if Path(dst).name.startswith(".store.old"):  # after our first rename, theirs lands
            target.mkdir()
            (target / "theirs").write_text("theirs")

    monkeypatch.setattr(os, "replace", other_writer_in_between)
    with pytest.raises(FileExistsError, match="replaced by another process at the same time"):
        replace_dir(new, target)
    monkeypatch.undo()
    assert (target / "theirs").read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "store"]  # ours is the caller's


@pytest.mark.slow(64)
def test_export_killed_at_random_points_leaves_the_old_or_the_new_store(tmp_path):
    """Ten kills of `circuitlab export --overwrite` spread over its run: after each, the store
    opens and is either the old one or a complete new one; no temporary outlives the next
    write."""
    root = Path(__file__).resolve().parents[1]
    run = tmp_path / "run"
    model = "-m n_processors=6 -m n_readouts=2 -m dim=16 -m head_dim=8 -m code_dim=8 -m sig_dim=4"
    subprocess.run(
        [sys.executable, "-m", "circuitlab", "train", "--conditional", "--steps", "2"]
        + ["--out", str(run), "--no-progress", *model.split()],
        check=True,
        capture_output=True,
        cwd=root,
    )
    store = tmp_path / "store"
    old = _store(store, 3, seed=0)
    old_ids = list(old.frame["id"])
    command = [sys.executable, "-m", "circuitlab", "export", str(run), "--out", str(store)]
    command += ["--overwrite", "--n-circuits", "64"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    duration = time.perf_counter() - started
    rng = random.Random(0)
    outcomes = []
    for kill_at in sorted(rng.uniform(0.2, 1.0) * duration for _ in range(10)):
        shutil.rmtree(store)
        _store(store, 3, seed=0)
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(kill_at)
        process.send_signal(signal.SIGKILL)
        process.wait()
        reopened = CircuitStore.open(store)
        if len(reopened) == 3:
            assert list(reopened.frame["id"]) == old_ids
            outcomes.append("old")
        else:
            assert len(reopened) == 64 and reopened.signatures.shape == (64, 8, 4)
            outcomes.append("new")
        _store(tmp_path / "other", 2, seed=1)  # any write beside it cleans up, as does:
        CircuitStore.write(store, list(reopened[i] for i in range(len(reopened))), overwrite=True)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "run", "store"]
    assert len(outcomes) == 10, outcomes
