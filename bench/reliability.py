"""Bad input and faults, tried as a careless or unlucky user would, through the CLI, the Python
API and the app's store layer; every case is classified:

- clear error: refused with a message that names the input (CLI: exit code 2, no traceback);
- defined result: it runs and the result is the documented one;
- traceback: any other exception (CLI: exit code 1);
- silent wrong result: it runs and the result is not the documented one;
- data lost: an earlier valid store or run is gone or changed.

Prints the table per area and in total, and writes bench/results/reliability.csv (one row per
case). The docs' reliability section quotes it.

    python bench/reliability.py
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
from common import write_table
from typer.testing import CliRunner

from circuitlab import Circuit, CircuitStore, CircuitStoreError
from circuitlab.analysis import best_prior, check_link_matrix, module_layout
from circuitlab.cli import app as cli
from circuitlab.data.nlvr import NLVRFormatError, read_nlvr, resolve

CLEAR, DEFINED, TRACEBACK, WRONG, LOST = (
    "clear error",
    "defined result",
    "traceback",
    "silent wrong result",
    "data lost",
)
USER_ERRORS = (ValueError, FileNotFoundError, FileExistsError, CircuitStoreError, NLVRFormatError)
ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = ROOT / "checkpoints" / "nlvr"


def api(call: Callable[[], object], *phrases: str) -> str:
    """CLEAR when ``call`` raises a user error whose message holds every phrase; WRONG when it
    returns; TRACEBACK for any other exception."""
    try:
        call()
    except USER_ERRORS as err:
        return CLEAR if all(p in str(err) for p in phrases) else TRACEBACK
    except Exception:  # noqa: BLE001 - classifying is the point
        return TRACEBACK
    return WRONG


def run_cli(*args: str, phrase: str = "") -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if result.exit_code == 2 and "Traceback" not in result.output and phrase in result.output:
        return CLEAR
    if result.exit_code == 0:
        return WRONG
    return TRACEBACK


def circuits(n: int = 4, codes: bool = True, seed: int = 0) -> list[Circuit]:
    rng = np.random.default_rng(seed)
    roles = ["processor"] * 4 + ["readout"]
    return [
        Circuit(rng.normal(size=(5, 3)), roles, rng.normal(size=(5, 2)) if codes else None)
        for _ in range(n)
    ]


def store(folder: Path, name: str = "store") -> Path:
    CircuitStore.write(folder / name, circuits())
    return folder / name


def edited(folder: Path, edit: Callable[[Path], None]) -> Path:
    path = store(folder)
    edit(path)
    return path


def nan_signature(path: Path) -> None:
    signatures = np.load(path / "signatures.npy", mmap_mode="r+")
    signatures[1, 2, 0] = np.nan
    signatures.flush()


def meta_edit(change: Callable[[dict], object]) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        meta = json.loads((path / "store.json").read_text())
        (path / "store.json").write_text(json.dumps(change(meta)))

    return edit


def empty(path: Path) -> None:
    pd.read_parquet(path / "samples.parquet").head(0).to_parquet(path / "samples.parquet")
    np.save(path / "signatures.npy", np.zeros((0, 5, 3), np.float32))
    np.save(path / "codes.npy", np.zeros((0, 5, 2), np.float32))


def kept_or_lost(folder: Path, attempt: Callable[[Path], object]) -> str:
    """An overwrite that must be refused: CLEAR if refused with the old store intact."""
    path = store(folder)
    before = (path / "store.json").read_text()
    outcome = api(lambda: attempt(path))
    if not path.is_dir() or (path / "store.json").read_text() != before:
        return LOST
    return outcome


def stale_layout(folder: Path) -> str:
    path = store(folder)
    first = module_layout(CircuitStore.open(path))
    signatures = np.load(path / "signatures.npy", mmap_mode="r+")
    signatures[:] = np.random.default_rng(5).normal(size=signatures.shape)
    signatures.flush()
    again = module_layout(CircuitStore.open(path))
    return WRONG if np.allclose(first, again) else DEFINED


def run_dir_with_checkpoint(folder: Path, content: bytes) -> Path:
    run = folder / "run"
    run.mkdir()
    (run / "config.json").write_text((CHECKPOINT / "config.json").read_text())
    (run / "checkpoint.pt").write_bytes(content)
    return run


def checkpoint_case(folder: Path, content: bytes, command: str, phrase: str) -> str:
    run = str(run_dir_with_checkpoint(folder, content))
    args = {
        "evaluate": ["evaluate", run, "--nlvr", "nlvr-dev"],
        "export": ["export", run, "--out", str(folder / "store")],
        "train --resume": ["train", "--out", run, "--resume", "--no-progress"],
    }[command]
    return run_cli(*args, phrase=phrase)


def config_case(folder: Path, text: str, *args: str, phrase: str) -> str:
    (folder / "config.yaml").write_text(text)
    outcome = run_cli(
        "train", "--config", folder / "config.yaml", "--out", folder / "run", "--no-progress",
        *args, phrase=phrase,
    )  # fmt: skip
    return WRONG if outcome == CLEAR and (folder / "run").exists() else outcome


def nlvr_line(folder: Path, change: Callable[[dict], object] | bytes) -> Path:
    good = read_first_nlvr_record()
    path = folder / "input.json"
    if isinstance(change, bytes):
        path.write_bytes(json.dumps(good).encode() + b"\n" + change + b"\n")
    else:
        path.write_text(json.dumps(good) + "\n" + json.dumps(change(dict(good))) + "\n")
    return path


def read_first_nlvr_record() -> dict:
    import gzip

    with gzip.open(resolve("nlvr-dev"), "rt") as f:
        return json.loads(f.readline())


def boxes(record: dict, rep: list) -> dict:
    return {**record, "structured_rep": rep}


def far_object(record: dict) -> dict:
    box = record["structured_rep"][0]
    return boxes(record, [[{**box[0], "x_loc": 10**9}], box, box])


def app_resolve(folder: Path) -> str:
    from circuitlab.app.stores import AppStores

    good, broken = store(folder, "good"), store(folder, "broken")
    nan_signature(broken)
    key, problem = AppStores(good, root=folder).resolve("broken")
    return DEFINED if key == "good" and problem and "NaN" in problem else WRONG


def typed_sentence(folder: Path, text: str, phrase: str) -> str:
    from circuitlab.app.stores import AppStores

    shipped = ROOT / "checkpoints" / "nlvr"
    from circuitlab.export import export_nlvr

    stores = export_nlvr(shipped, folder / "stores", limit=20)
    view = AppStores(stores["nlvr2"].path, checkpoint=shipped).view(None)
    return api(lambda: view.typed_circuit(text), phrase)


CASES: dict[str, dict[str, Callable[[Path], str]]] = {
    "circuit": {
        "codes for another number of modules": lambda d: api(
            lambda: Circuit(np.ones((3, 2)), ["processor"] * 3, np.ones((2, 4))), "codes must be"
        ),
        "NaN signature": lambda d: api(
            lambda: Circuit(np.array([[1, np.nan]]), ["processor"]), "NaN or inf", "module 0"
        ),
        "infinite code": lambda d: api(
            lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, np.full((2, 2), np.inf)), "codes"
        ),
        "eps 0": lambda d: api(lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, eps=0), "eps"),
        "eps -1": lambda d: api(lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, eps=-1), "eps"),
        "truncation 3": lambda d: api(
            lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, truncation=3.0), "truncation"
        ),
        "roles of another length": lambda d: api(
            lambda: Circuit(np.ones((3, 2)), ["processor"] * 2), "roles"
        ),
    },
    "store write": {
        "circuits with and without codes": lambda d: api(
            lambda: CircuitStore.write(d / "s", circuits(2) + circuits(1, codes=False)),
            "circuit 2",
        ),
        "duplicate ids": lambda d: api(
            lambda: CircuitStore.write(d / "s", circuits(2), pd.DataFrame({"id": [1, 1]})), "id"
        ),
        "no circuits": lambda d: api(lambda: CircuitStore.write(d / "s", []), "no circuits"),
        "frame of another length": lambda d: api(
            lambda: CircuitStore.write(d / "s", circuits(2), pd.DataFrame({"a": [1]})), "rows"
        ),
        "overwrite with circuits of two models": lambda d: kept_or_lost(
            d,
            lambda p: CircuitStore.write(p, circuits(2) + circuits(1, codes=False), overwrite=True),
        ),
        "write over a store without overwrite": lambda d: kept_or_lost(
            d, lambda p: CircuitStore.write(p, circuits(2))
        ),
    },
    "store open": {
        "NaN signature": lambda d: api(
            lambda: CircuitStore.open(edited(d, nan_signature)), "circuit 1, module 2"
        ),
        "eps 0 in store.json": lambda d: api(
            lambda: CircuitStore.open(edited(d, meta_edit(lambda m: {**m, "eps": 0}))), "eps"
        ),
        "store.json a JSON list": lambda d: api(
            lambda: CircuitStore.open(edited(d, meta_edit(lambda m: [m]))), "JSON list"
        ),
        "store.json not JSON": lambda d: api(
            lambda: CircuitStore.open(edited(d, lambda p: (p / "store.json").write_text("{oops"))),
            "not valid JSON",
        ),
        "format version 99": lambda d: api(
            lambda: CircuitStore.open(edited(d, meta_edit(lambda m: {**m, "format_version": 99}))),
            "format version",
        ),
        "samples without id": lambda d: api(
            lambda: CircuitStore.open(
                edited(
                    d,
                    lambda p: (
                        pd.read_parquet(p / "samples.parquet")
                        .drop(columns="id")
                        .to_parquet(p / "samples.parquet")
                    ),
                )
            ),
            "'id'",
        ),
        "no circuits": lambda d: api(lambda: CircuitStore.open(edited(d, empty)), "no circuits"),
        "truncated signatures.npy": lambda d: api(
            lambda: CircuitStore.open(
                edited(
                    d,
                    lambda p: (p / "signatures.npy").write_bytes(
                        (p / "signatures.npy").read_bytes()[:100]
                    ),
                )
            ),
            "signatures.npy",
        ),
        "samples.parquet missing": lambda d: api(
            lambda: CircuitStore.open(edited(d, lambda p: (p / "samples.parquet").unlink())),
            "samples.parquet",
        ),
        "no such directory": lambda d: api(lambda: CircuitStore.open(d / "nowhere"), "no such"),
        "cached layout after the signatures change": stale_layout,
        "NaN in an analysis record": lambda d: api(
            lambda: CircuitStore.open(store(d)).add_analysis("x", {"v": float("nan")}), "NaN"
        ),
    },
    "store commands": {
        "info on NaN signatures": lambda d: run_cli("info", edited(d, nan_signature), phrase="NaN"),
        "info on eps 0": lambda d: run_cli(
            "info", edited(d, meta_edit(lambda m: {**m, "eps": 0})), phrase="eps"
        ),
        "info on an empty store": lambda d: run_cli("info", edited(d, empty), phrase="no circuits"),
        "analyze on NaN signatures": lambda d: run_cli(
            "analyze", edited(d, nan_signature), "--no-check", phrase="NaN"
        ),
        "figures on an empty store": lambda d: run_cli(
            "figures", edited(d, empty), "--out", d / "figures", phrase="no circuits"
        ),
    },
    "analysis": {
        "n_simulations 0": lambda d: api(
            lambda: best_prior(nx.barabasi_albert_graph(40, 2, seed=0), n_simulations=0),
            "n_simulations",
        ),
        "non-symmetric matrix": lambda d: api(
            lambda: check_link_matrix([[0, 1], [0, 0]]), "not symmetric"
        ),
        "NaN in a matrix": lambda d: api(lambda: check_link_matrix([[0, np.nan], [0, 0]]), "NaN"),
        "entries above one": lambda d: api(lambda: check_link_matrix([[0, 2], [2, 0]]), "[0, 1]"),
        "two nodes": lambda d: api(lambda: best_prior(np.array([[0, 1], [1, 0]])), "3 nodes"),
    },
    "checkpoints": {
        f"{kind} checkpoint, {command}": (
            lambda d, content=content, command=command, phrase=phrase: checkpoint_case(
                d, content, command, phrase
            )
        )
        for kind, content, phrase in (
            ("empty", b"", "is empty"),
            ("garbage", b"PK\x03\x04 not a checkpoint", "is corrupt"),
        )
        for command in ("evaluate", "export", "train --resume")
    },
    "configs": {
        "YAML syntax error": lambda d: config_case(d, "steps: [1\n", phrase="not valid YAML"),
        "steps: abc": lambda d: config_case(d, "steps: abc\n", phrase="steps must be int"),
        "-m dim=abc": lambda d: config_case(d, "", "-m", "dim=abc", phrase="dim must be int"),
        "misspelt model key": lambda d: config_case(
            d, "model:\n  n_procesors: 8\n", phrase="n_procesors"
        ),
        "unknown prior": lambda d: config_case(d, "", "--prior", "nonsense", phrase="prior"),
        "n_processors 0": lambda d: config_case(
            d, "", "-m", "n_processors=0", phrase="n_processors"
        ),
        "base: a missing file": lambda d: config_case(
            d, "base: nowhere.yaml\n", phrase="nowhere.yaml"
        ),
        "base: itself (a cycle)": lambda d: config_case(d, "base: config.yaml\n", phrase="cycle"),
    },
    "NLVR input": {
        "numeric identifier": lambda d: api(
            lambda: read_nlvr(nlvr_line(d, lambda r: {**r, "identifier": 7})), "line 2"
        ),
        "not UTF-8": lambda d: api(lambda: read_nlvr(nlvr_line(d, b"\xff\xfe")), "line 2"),
        "one box": lambda d: api(
            lambda: read_nlvr(nlvr_line(d, lambda r: boxes(r, r["structured_rep"][:1]))), "line 2"
        ),
        "six boxes": lambda d: api(
            lambda: read_nlvr(nlvr_line(d, lambda r: boxes(r, r["structured_rep"] * 2))),
            "line 2",
        ),
        "200 objects in a box": lambda d: api(
            lambda: read_nlvr(
                nlvr_line(
                    d,
                    lambda r: boxes(
                        r, [r["structured_rep"][0][:1] * 200, *r["structured_rep"][1:]]
                    ),
                )
            ),
            "line 2",
        ),
        "x_loc 1e9": lambda d: api(lambda: read_nlvr(nlvr_line(d, far_object)), "line 2"),
        "label maybe": lambda d: api(
            lambda: read_nlvr(nlvr_line(d, lambda r: {**r, "label": "maybe"})), "line 2"
        ),
        "no sentence": lambda d: api(
            lambda: read_nlvr(
                nlvr_line(d, lambda r: {k: v for k, v in r.items() if k != "sentence"})
            ),
            "line 2",
        ),
        "not JSON": lambda d: api(lambda: read_nlvr(nlvr_line(d, b"{oops")), "line 2"),
    },
    "app": {
        "a store that cannot be opened": app_resolve,
        "a typed sentence over 300 characters": lambda d: typed_sentence(d, "x" * 301, "300"),
        "an empty typed sentence": lambda d: typed_sentence(d, "  ", "sentence"),
    },
}


def main() -> None:
    rows = []
    for area, cases in CASES.items():
        for name, case in cases.items():
            with tempfile.TemporaryDirectory() as folder:
                try:
                    outcome = case(Path(folder))
                except Exception:  # noqa: BLE001 - a case that itself crashes is a traceback
                    outcome = TRACEBACK
            rows.append({"area": area, "case": name, "outcome": outcome})
    frame = pd.DataFrame(rows)
    write_table(rows, "reliability", f"{len(rows)} bad-input and fault cases")
    counts = frame.pivot_table(index="area", columns="outcome", aggfunc="size", fill_value=0)
    counts.loc["all"] = counts.sum()
    print(counts.to_string())


if __name__ == "__main__":
    main()
