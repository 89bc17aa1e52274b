"""A store trusts nothing on disk (issue 60): overwrite replaces only a store, store.json is
checked field by field, leftovers of killed writers go at the next open, and two writers with a
reader on one path never produce a read that mixes two versions."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from circuitlab import Circuit, CircuitStore, CircuitStoreError
from circuitlab.store import META, SAMPLES

U, D = 6, 4
ROOT = Path(__file__).resolve().parents[1]


def _circuits(value: float, n: int = 8) -> list[Circuit]:
    """n circuits whose signatures all equal ``value`` + a module's index (so a store's
    version can be read from any of its files)."""
    signatures = np.full((U, D), value, np.float32) + np.arange(U, dtype=np.float32)[:, None]
    return [Circuit(signatures, ["processor"] * (U - 1) + ["readout"]) for _ in range(n)]


def _versioned_store(path: Path, value: float, overwrite: bool = True) -> CircuitStore:
    frame = pd.DataFrame({"version": [value] * 8})
    return CircuitStore.write(
        path, _circuits(value), frame, {"version": value}, overwrite=overwrite
    )


# ----------------------------------------------------------------------------- overwrite


def test_overwrite_refuses_a_folder_that_is_not_a_store_and_deletes_nothing(tmp_path):
    results = tmp_path / "results"
    (results / "sub").mkdir(parents=True)
    (results / "thesis.tex").write_text("years of work")
    (results / "sub" / "data.csv").write_text("1,2")
    with pytest.raises(FileExistsError, match="not a circuit store.*thesis.tex"):
        _versioned_store(results, 1.0)
    assert (results / "thesis.tex").read_text() == "years of work"
    assert (results / "sub" / "data.csv").read_text() == "1,2"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep")
    with pytest.raises(FileExistsError, match="a file or a link"):
        _versioned_store(a_file, 1.0)
    assert a_file.read_text() == "keep"
    # a store with a stray file in it is not only a store either
    store = _versioned_store(tmp_path / "store", 1.0)
    (store.path / "mine.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="mine.txt"):
        _versioned_store(store.path, 2.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "results", "store"]


def test_overwrite_replaces_a_store_or_an_empty_folder(tmp_path):
    _versioned_store(tmp_path / "store", 1.0)
    assert _versioned_store(tmp_path / "store", 2.0).config["version"] == 2.0
    (tmp_path / "empty").mkdir()
    assert len(_versioned_store(tmp_path / "empty", 3.0)) == 8
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        _versioned_store(tmp_path / "store", 4.0, overwrite=False)


def test_the_cli_refuses_to_overwrite_a_folder_that_is_not_a_store(tmp_path):
    from typer.testing import CliRunner

    from circuitlab.cli import app

    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "thesis.tex").write_text("years of work")
    result = CliRunner().invoke(
        app,
        [
            "export",
            str(ROOT / "checkpoints/priors/none"),
            "--out",
            str(tmp_path / "out"),
            "--overwrite",
        ],
    )
    assert result.exit_code != 0 and "not a circuit store" in result.output
    assert "Traceback" not in result.output
    assert (tmp_path / "out" / "thesis.tex").read_text() == "years of work"


# ----------------------------------------------------------------------------- store.json


def _forge(path: Path, **changes) -> None:
    meta = json.loads((path / META).read_text())
    for key, value in changes.items():
        if key == "file":
            meta["arrays"][0]["file"] = value
        else:
            meta[key] = value
    (path / META).write_text(json.dumps(meta))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"file": "../outside.npy"}, "plain .npy names inside the store"),
        ({"file": "/etc/passwd"}, "plain .npy names inside the store"),
        ({"file": "sub/signatures.npy"}, "plain .npy names inside the store"),
        ({"file": "samples.parquet"}, "plain .npy names inside the store"),
        ({"truncation": 5}, r"truncation must be a cosine distance in \(0, 2\]"),
        ({"truncation": -1}, r"truncation must be a cosine distance in \(0, 2\]"),
        ({"truncation": "0.5"}, r"truncation must be a cosine distance"),
        ({"roles": ["processor"] * (U - 1) + ["teacher"]}, "roles must each be one of"),
        ({"roles": "processor"}, "roles must each be one of"),
        ({"n_modules": 6.5}, "n_modules must be a positive integer"),
        ({"eps": True}, "eps must be a positive number"),
        ({"kind": "ni"}, "kind does not match the arrays"),
    ],
)
def test_open_refuses_a_forged_store_json_by_field(tmp_path, changes, message):
    store = _versioned_store(tmp_path / "store", 1.0)
    outside = tmp_path / "outside.npy"
    np.save(outside, np.zeros((8, U, D), np.float32))
    _forge(store.path, **changes)
    with pytest.raises(CircuitStoreError, match=message):
        CircuitStore.open(store.path)


def test_open_refuses_repeated_ids_and_ids_of_mixed_types(tmp_path):
    store = _versioned_store(tmp_path / "store", 1.0)
    frame = pd.read_parquet(store.path / SAMPLES)
    frame.assign(id=[0, 1, 2, 3, 4, 5, 6, 0]).to_parquet(store.path / SAMPLES)
    with pytest.raises(CircuitStoreError, match="id 0 repeats"):
        CircuitStore.open(store.path)
    frame.assign(id=np.arange(8) + 0.5).to_parquet(store.path / SAMPLES)
    with pytest.raises(CircuitStoreError, match="all integers or all strings"):
        CircuitStore.open(store.path)
    frame.assign(id=[f"s{i}" for i in range(8)]).to_parquet(store.path / SAMPLES)
    assert list(CircuitStore.open(store.path).frame["id"])[:2] == ["s0", "s1"]


def test_open_clears_what_killed_writers_left_beside_a_store(tmp_path):
    store = _versioned_store(tmp_path / "store", 1.0)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    for leftover in (f".store.tmp-{dead.pid}-x", f".store.old-{dead.pid}"):
        (tmp_path / leftover).mkdir()
        (tmp_path / leftover / "signatures.npy").write_bytes(b"half")
    CircuitStore.open(store.path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


# ----------------------------------------------------------------------------- versions


def test_an_analysis_never_writes_into_a_store_exported_again_since_it_was_read(tmp_path):
    old = _versioned_store(tmp_path / "store", 1.0)
    _versioned_store(tmp_path / "store", 2.0)  # exported again while `old` was open
    with pytest.warns(UserWarning, match="changed since it was read"):
        old.add_analysis("check", {"ok": True}, pd.DataFrame({"mark": np.ones(8)}))
    assert "mark" in old.frame.columns  # kept in memory
    now = CircuitStore.open(tmp_path / "store")
    assert now.config["version"] == 2.0 and "mark" not in now.frame.columns
    assert "check" not in now.meta.get("analysis", {})
    # a store still as it was read takes the analysis, as a new version of itself
    now.add_analysis("check", {"ok": True}, pd.DataFrame({"mark": np.ones(8)}))
    again = CircuitStore.open(tmp_path / "store")
    assert again.analysis_params("check") == {"ok": True} and "mark" in again.frame.columns
    np.testing.assert_array_equal(again.signatures, now.signatures)


WRITER = """
import sys, time, warnings
import numpy as np, pandas as pd
from circuitlab import Circuit, CircuitStore
path, writer, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
U, D = int(sys.argv[4]), int(sys.argv[5])
def circuits(value):
    s = np.full((U, D), value, np.float32) + np.arange(U, dtype=np.float32)[:, None]
    return [Circuit(s, ["processor"] * (U - 1) + ["readout"]) for _ in range(8)]
warnings.simplefilter("ignore", UserWarning)  # "changed since it was read": expected
deadline, k = time.monotonic() + seconds, 0
while time.monotonic() < deadline:
    version = float(writer * 1_000_000 + k + 1)
    frame = pd.DataFrame({"version": [version] * 8})
    config = {"version": version}
    store = CircuitStore.write(path, circuits(version), frame, config, overwrite=True)
    if writer == 1:  # an analysis written back to the store it read, if it is still that one
        store.add_analysis("mark", {}, pd.DataFrame({"mark": [version] * 8}))
    k += 1
print(k)
"""


def _version_of(store: CircuitStore) -> set[float]:
    """Every version the opened store's files say: one value unless the read mixed writes."""
    versions = {float(store.config["version"])}
    versions |= set(store.frame["version"].astype(float))
    if "mark" in store.frame.columns:
        versions |= set(store.frame["mark"].astype(float))
    signatures = np.asarray(store.signatures)
    versions |= set((signatures[:, 0, :]).ravel().astype(float))
    return versions


@pytest.mark.slow(22)
def test_two_writers_and_a_reader_never_see_a_mixed_store(tmp_path):
    path = tmp_path / "store"
    _versioned_store(path, 0.5)  # never 0: module 0's signature holds the version
    seconds = 20.0
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(w), str(seconds), str(U), str(D)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in (1, 2)
    ]
    reads, mixed, errors = 0, [], []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            store = CircuitStore.open(path)
        except CircuitStoreError as err:  # allowed: a clear error, never a mixed read
            errors.append(str(err))
            continue
        versions = _version_of(store)
        if len(versions) != 1:
            mixed.append(sorted(versions))
        reads += 1
    counts = []
    for w in writers:
        out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
        counts.append(int(out))
    assert not mixed, f"{len(mixed)} of {reads} reads mixed versions: {mixed[:3]}"
    assert reads > 50 and min(counts) > 5, (reads, counts)
    assert len(errors) <= reads // 100, errors[:3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
    assert os.listdir(path)  # the last writer's store stands


def test_link_probabilities_of_a_large_store_come_in_batches_of_bounded_memory(tmp_path):
    from circuitlab.store import P_BATCH_BYTES

    u, n = 1024, 40
    rng = np.random.default_rng(0)
    signatures = rng.normal(size=(u, 4)).astype(np.float32)
    roles = ["processor"] * (u - 1) + ["readout"]
    store = CircuitStore.write(tmp_path / "big", [Circuit(signatures, roles)] * n)
    sizes = [len(p) for _, p in store.link_probability_batches(batch=1024)]
    assert sum(sizes) == n and max(sizes) * 4 * u * u <= P_BATCH_BYTES
    np.testing.assert_allclose(
        store.mean_link_probability(), store[0].link_probability(), rtol=1e-5
    )
