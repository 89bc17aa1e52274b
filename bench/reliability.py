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
import time
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
from common import write_table
from typer.testing import CliRunner

from circuitlab import Circuit, CircuitStore, CircuitStoreError
from circuitlab.analysis import best_prior, check_link_matrix, module_layout
from circuitlab.analysis.embedding import single_category_labels
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


def moved_object(record: dict, x: object) -> dict:
    box = record["structured_rep"][0]
    return boxes(record, [[{**box[0], "x_loc": x}], *record["structured_rep"][1:]])


def whole_coordinate(folder: Path) -> str:
    """x_loc 12.0 (a whole number written as a float) reads as 12: DEFINED."""
    read = read_nlvr(nlvr_line(folder, lambda r: moved_object(r, 12.0)))
    return DEFINED if read[1].boxes[0][0].x == 12 else WRONG


def app_resolve(folder: Path) -> str:
    from circuitlab.app.stores import AppStores

    good, broken = store(folder, "good"), store(folder, "broken")
    nan_signature(broken)
    key, problem = AppStores(good, root=folder).resolve("broken")
    return DEFINED if key == "good" and problem and "NaN" in problem else WRONG


def typed_sentence(folder: Path, text: str, phrase: str) -> str:
    from circuitlab.app.stores import AppStores

    shipped = ROOT / "checkpoints" / "nlvr"
    from circuitlab.export import export_checkpoint

    stores = export_checkpoint(shipped, folder / "stores", limit=20)
    view = AppStores(stores["nlvr2"].path, checkpoint=shipped).view(None)
    return api(lambda: view.typed_circuit(text), phrase)


# ----------------------------------------------------------------------------- issue 60 classes


def folder_kept(folder: Path, attempt: Callable[[Path], object]) -> str:
    """An overwrite of a folder that is not a store must be refused, everything in it kept."""
    target = folder / "results"
    (target / "sub").mkdir(parents=True)
    (target / "thesis.tex").write_text("years of work")
    (target / "sub" / "data.csv").write_text("1,2")
    outcome = attempt(target)
    intact = (target / "thesis.tex").is_file() and (target / "sub" / "data.csv").is_file()
    return outcome if intact else LOST


def export_overwrite(target: Path) -> str:
    """``circuitlab export --overwrite`` of a shipped model onto ``target``: must be refused."""
    return run_cli(
        "export", ROOT / "checkpoints/priors/none", "--out", target, "--overwrite",
        phrase="not a circuit store",
    )  # fmt: skip


def file_kept(folder: Path, attempt: Callable[[Path], object]) -> str:
    target = folder / "notes.txt"
    target.write_text("keep")
    outcome = attempt(target)
    return outcome if target.is_file() and target.read_text() == "keep" else LOST


def replaced(folder: Path, prepare: Callable[[Path], None]) -> str:
    """An overwrite that must succeed: a store, or an empty folder, is replaced."""
    target = folder / "target"
    prepare(target)
    try:
        written = CircuitStore.write(target, circuits(3), overwrite=True)
    except Exception:  # noqa: BLE001
        return TRACEBACK
    return DEFINED if len(CircuitStore.open(written.path)) == 3 else WRONG


def forged(change: Callable[[dict], object], *phrases: str) -> Callable[[Path], str]:
    return lambda d: api(lambda: CircuitStore.open(edited(d, meta_edit(change))), *phrases)


def first_array(**entries: object) -> Callable[[dict], dict]:
    def change(meta: dict) -> dict:
        meta["arrays"][0].update(entries)
        return meta

    return change


def frame_edit(ids: list) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        frame = pd.read_parquet(path / "samples.parquet")
        frame.assign(id=ids).to_parquet(path / "samples.parquet")

    return edit


def analysis_after_reexport(folder: Path) -> str:
    import warnings

    old = CircuitStore.open(store(folder))
    CircuitStore.write(folder / "store", circuits(2, seed=1), overwrite=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old.add_analysis("x", {"v": 1}, pd.DataFrame({"mark": np.ones(4)}))
    now = CircuitStore.open(folder / "store")
    if len(now) != 2 or "mark" in now.frame.columns:
        return WRONG
    return DEFINED if any("changed since it was read" in str(w.message) for w in caught) else WRONG


def leftovers_cleaned(folder: Path) -> str:
    import subprocess
    import sys

    path = store(folder)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    for name in (f".store.tmp-{dead.pid}-x", f".store.old-{dead.pid}"):
        (folder / name).mkdir()
    CircuitStore.open(path)
    return DEFINED if sorted(p.name for p in folder.iterdir()) == ["store"] else WRONG


def concurrent_writers(folder: Path, seconds: float = 3.0) -> str:
    """Two writer processes and this reader on one path: a read that mixes versions is WRONG."""
    import subprocess
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from test_store_trust import WRITER, _version_of, _versioned_store

    path = folder / "store"
    _versioned_store(path, 0.5)  # never 0: module 0's signature holds the version
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(w), str(seconds), "6", "4"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in (1, 2)
    ]
    mixed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            mixed += len(_version_of(CircuitStore.open(path))) != 1
        except CircuitStoreError:
            continue
    codes = [w.wait(timeout=60) for w in writers]
    return TRACEBACK if any(codes) else (WRONG if mixed else DEFINED)


class _Payload:
    """Unpickling it creates the file ``marker``: the shape of any code-running pickle."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple:
        return (open, (self.marker, "w"))


def payload_checkpoint(folder: Path, command: str) -> str:
    """A checkpoint carrying a pickle payload: CLEAR if refused and the payload never ran."""
    import torch

    state = torch.load(CHECKPOINT / "checkpoint.pt", weights_only=True)
    marker = folder / "payload-ran"
    state["train_config"]["note"] = _Payload(marker)
    buffer = folder / "bytes.pt"
    torch.save(state, buffer)
    outcome = checkpoint_case(folder, buffer.read_bytes(), command, "run as code")
    return LOST if marker.exists() else outcome


def misfit_checkpoint(folder: Path, command: str) -> str:
    import torch

    state = torch.load(CHECKPOINT / "checkpoint.pt", weights_only=True)
    state["model_config"]["dim"] = state["model_config"]["dim"] * 2
    buffer = folder / "bytes.pt"
    torch.save(state, buffer)
    return checkpoint_case(folder, buffer.read_bytes(), command, "do not fit")


def option_case(*options: str, phrase: str) -> Callable[[Path], str]:
    def case(folder: Path) -> str:
        outcome = run_cli(
            "train", "--task", "toy-sets", "--steps", "2", "--out", folder / "run",
            "--no-progress", *options, phrase=phrase,
        )  # fmt: skip
        return WRONG if outcome == CLEAR and (folder / "run").exists() else outcome

    return case


def config_object(build: Callable[[], object], phrase: str) -> Callable[[Path], str]:
    return lambda d: api(build, phrase)


def small_nac(**options: object):  # noqa: ANN201
    from circuitlab import NAC
    from circuitlab.config import NACConfig

    sizes = dict(n_classes=3, n_processors=6, n_readouts=2, dim=16, head_dim=8, code_dim=8)
    return NAC(NACConfig.from_dict(dict(sizes, sig_dim=4, **options)))


def model_input(options: dict, shape: tuple, phrase: str) -> Callable[[Path], str]:
    import torch

    return lambda d: api(lambda: small_nac(**options)(torch.randn(*shape)), phrase)


def link_edit(cut: object, batch: int, phrase: str | None) -> Callable[[Path], str]:
    """A LinkEdit run on a batch: CLEAR when refused naming ``phrase``; with ``phrase`` None it
    must run and equal the same mask given as a torch tensor (DEFINED)."""
    import torch

    from circuitlab.interventions import LinkEdit, run_with_circuit
    from circuitlab.task import Batch

    def case(folder: Path) -> str:
        model = small_nac(input_dim=5)
        data = Batch(torch.randn(batch, 3, 5), torch.zeros(batch, dtype=torch.long))
        if phrase is not None:
            return api(lambda: run_with_circuit(model, data, edit=LinkEdit(cut=cut)), phrase)
        given = run_with_circuit(model, data, edit=LinkEdit(cut=cut))
        reference = torch.as_tensor(np.asarray(cut, dtype=bool))
        same = run_with_circuit(model, data, edit=LinkEdit(cut=reference))
        return DEFINED if torch.equal(given, same) else WRONG

    return case


def circuit_run(**given: object) -> Callable[[Path], str]:
    """run_with_circuit with ``given`` (``signatures`` / ``codes`` as (B or 1, U, d) arrays,
    ``inputs`` a batch's inputs): CLEAR when refused naming the argument given."""
    import torch

    from circuitlab.interventions import run_with_circuit
    from circuitlab.task import Batch

    def case(folder: Path) -> str:
        model = small_nac(input_dim=5)
        inputs = given.get("inputs", np.ones((4, 3, 5), np.float32))
        data = Batch(torch.as_tensor(inputs), torch.zeros(4, dtype=torch.long))
        tensors = {k: torch.as_tensor(v) for k, v in given.items() if k != "inputs"}
        named = "batch.inputs" if "inputs" in given else next(iter(tensors))
        return api(lambda: run_with_circuit(model, data, **tensors), named)

    return case


def with_entry(shape: tuple, value: float, at: tuple) -> np.ndarray:
    array = np.ones(shape, np.float32)
    array[at] = value
    return array


def token_ids(ids: list[list[int]], phrase: str) -> Callable[[Path], str]:
    import torch

    def case(folder: Path) -> str:
        model = small_nac(conditional=True, cond_vocab=20, generator_dim=16).eval()
        return api(lambda: model.generate(torch.tensor(ids)), "conditioning", phrase)

    return case


def id_as_text(folder: Path) -> str:
    """store["2"] must be refused pointing to row_of; store.row_of("2") finds the id's row."""
    opened = CircuitStore.open(store(folder))
    refused = api(lambda: opened["2"], "index", "row_of")
    return DEFINED if refused == CLEAR and opened.row_of("2") == 2 else WRONG


def string_ids_in_the_app(folder: Path) -> str:
    """A store whose ids are strings: the app's view finds each id's row."""
    from circuitlab.app.store_view import StoreView

    path = folder / "s"
    CircuitStore.write(path, circuits(3), pd.DataFrame({"id": ["a", "b", "7"]}))
    view = StoreView(CircuitStore.open(path))
    return DEFINED if [view.index_of(i) for i in ("b", "7")] == [1, 2] else WRONG


def zero_signature_file(path: Path) -> None:
    signatures = np.load(path / "signatures.npy", mmap_mode="r+")
    signatures[2, 1] = 0.0
    signatures.flush()


def fractional_module(folder: Path) -> str:
    from circuitlab.interventions import LinkEdit

    return api(lambda: LinkEdit(knocked_out=(1.5,)), "knocked_out")


def bounded_batches(folder: Path) -> str:
    from circuitlab.store import P_BATCH_BYTES

    u = 1024
    roles = ["processor"] * (u - 1) + ["readout"]
    signatures = np.random.default_rng(0).normal(size=(u, 4))
    big = CircuitStore.write(folder / "big", [Circuit(signatures, roles)] * 20)
    sizes = [len(p) for _, p in big.link_probability_batches(batch=1024)]
    return DEFINED if max(sizes) * 4 * u * u <= P_BATCH_BYTES and sum(sizes) == 20 else WRONG


def not_gzip(folder: Path, content: bytes) -> str:
    path = folder / "dev.json.gz"
    path.write_bytes(content)
    return run_cli("evaluate", CHECKPOINT, "--nlvr", path, phrase="not a readable gzip file")


def cut_gzip(folder: Path) -> str:
    import gzip

    text = gzip.decompress(resolve("nlvr-dev").read_bytes())[:20000]
    whole = gzip.compress(text)
    return not_gzip(folder, whole[: len(whole) // 2])


CASES: dict[str, dict[str, Callable[[Path], str]]] = {
    "circuit": {
        "codes for another number of modules": lambda d: api(
            lambda: Circuit(np.ones((3, 2)), ["processor"] * 3, np.ones((2, 4))), "codes: must be"
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
        "eps as text": lambda d: api(
            lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, eps="1"), "eps"
        ),
        "eps None": lambda d: api(
            lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, eps=None), "eps"
        ),
        "truncation as text": lambda d: api(
            lambda: Circuit(np.ones((2, 2)), ["processor"] * 2, truncation="0.5"), "truncation"
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
        "a categories column with None and a bare string": lambda d: (
            DEFINED
            if single_category_labels(
                pd.DataFrame({"id": [0, 1, 2], "categories": [None, "spatial", ["a", "b"]]})
            ).to_dict()
            == {1: "spatial"}
            else WRONG
        ),
        "a categories column holding a number": lambda d: api(
            lambda: single_category_labels(pd.DataFrame({"id": [4], "categories": [3.5]})),
            "circuit 4",
        ),
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
        "x_loc 12.7": lambda d: api(
            lambda: read_nlvr(nlvr_line(d, lambda r: moved_object(r, 12.7))), "whole numbers"
        ),
        "x_loc 12.0": lambda d: whole_coordinate(d),
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
    "store overwrite": {
        "write over a folder of other files": lambda d: folder_kept(
            d, lambda p: api(lambda: CircuitStore.write(p, circuits(), overwrite=True), "not a")
        ),
        "export --overwrite over a folder of other files": lambda d: folder_kept(
            d, export_overwrite
        ),
        "write over a file": lambda d: file_kept(
            d, lambda p: api(lambda: CircuitStore.write(p, circuits(), overwrite=True), "a file")
        ),
        "export --overwrite over a file": lambda d: file_kept(d, export_overwrite),
        "write over a store holding a stray file": lambda d: kept_or_lost(
            d,
            lambda p: (
                (p / "mine.txt").write_text("mine"),
                CircuitStore.write(p, circuits(2), overwrite=True),
            ),
        ),
        "overwrite a store": lambda d: replaced(d, lambda p: CircuitStore.write(p, circuits(5))),
        "overwrite an empty folder": lambda d: replaced(d, lambda p: p.mkdir()),
    },
    "store.json forged": {
        "array file ../x.npy": forged(first_array(file="../x.npy"), "plain .npy"),
        "array file an absolute path": forged(first_array(file="/etc/passwd"), "plain .npy"),
        "array file in a subfolder": forged(first_array(file="sub/signatures.npy"), "plain .npy"),
        "array file samples.parquet": forged(first_array(file="samples.parquet"), "plain .npy"),
        "array file hidden": forged(first_array(file=".signatures.npy"), "plain .npy"),
        "two arrays, one file": forged(
            lambda m: {
                **m,
                "arrays": [m["arrays"][0], {**m["arrays"][1], "file": "signatures.npy"}],
            },
            "same file",
        ),
        "array shape of text": forged(first_array(shape="4,5,3"), "shape"),
        "array shape negative": forged(first_array(shape=[4, -5, 3]), "shape"),
        "axes of another length": forged(first_array(axes=["sample"]), "axes"),
        "dtype nonsense": forged(first_array(dtype="float99"), "dtype"),
        "truncation 5": forged(lambda m: {**m, "truncation": 5}, "truncation"),
        "truncation -1": forged(lambda m: {**m, "truncation": -1}, "truncation"),
        "truncation as text": forged(lambda m: {**m, "truncation": "0.5"}, "truncation"),
        "unknown role": forged(lambda m: {**m, "roles": ["processor"] * 4 + ["teacher"]}, "roles"),
        "roles as text": forged(lambda m: {**m, "roles": "processor"}, "roles"),
        "n_modules 5.5": forged(lambda m: {**m, "n_modules": 5.5}, "n_modules"),
        "d_sig true": forged(lambda m: {**m, "d_sig": True}, "d_sig"),
        "eps true": forged(lambda m: {**m, "eps": True}, "eps"),
        "eps inf": forged(lambda m: {**m, "eps": float("inf")}, "eps"),
        "kind ni over a NAC's arrays": forged(lambda m: {**m, "kind": "ni"}, "does not match"),
        "kind mn over a NAC's arrays": forged(lambda m: {**m, "kind": "mn"}, "does not match"),
        "repeated ids": lambda d: api(
            lambda: CircuitStore.open(edited(d, frame_edit([0, 1, 1, 3]))), "repeats"
        ),
        "ids of floats": lambda d: api(
            lambda: CircuitStore.open(edited(d, frame_edit([0.5, 1.5, 2.5, 3.5]))),
            "all integers or all strings",
        ),
        "ids of text": lambda d: (
            DEFINED
            if CircuitStore.open(edited(d, frame_edit(["a", "b", "c", "d"]))).frame["id"][0] == "a"
            else WRONG
        ),
    },
    "store versions": {
        "an analysis written after the store was exported again": analysis_after_reexport,
        "leftovers of killed writers at open": leftovers_cleaned,
        "two writers and a reader for 3 s": concurrent_writers,
        "a store path that is a file": lambda d: api(
            lambda: CircuitStore.open((d / "f", (d / "f").write_text("x"))[0]), "is a file"
        ),
        "info on a store path that is a file": lambda d: run_cli(
            "info", (d / "f", (d / "f").write_text("x"))[0], phrase="is a file"
        ),
        "analyze on a store path that is a file": lambda d: run_cli(
            "analyze", (d / "f", (d / "f").write_text("x"))[0], phrase="is a file"
        ),
        "link probabilities of a 1,024-module store in bounded batches": bounded_batches,
    },
    "checkpoint code": {
        **{
            f"pickle payload, {command}": (
                lambda d, command=command: payload_checkpoint(d, command)
            )
            for command in ("evaluate", "export", "train --resume")
        },
        **{
            f"weights that do not fit the config, {command}": (
                lambda d, command=command: misfit_checkpoint(d, command)
            )
            for command in ("evaluate", "export")
        },
    },
    "training options": {
        f"{' '.join(options)}": option_case(*options, phrase=phrase)
        for options, phrase in (
            (("--grad-clip", "0"), "grad_clip must be > 0"),
            (("--grad-clip", "-1"), "grad_clip must be > 0"),
            (("--grad-clip", "nan"), "grad_clip must be a finite number"),
            (("--lr", "0"), "lr must be positive"),
            (("--lr", "-1e-3"), "lr must be positive"),
            (("--lr", "inf"), "lr must be a finite number"),
            (("--weight-decay", "-0.1"), "weight_decay must be non-negative"),
            (("--warmup-steps", "-5"), "warmup_steps must be non-negative"),
            (("--steps", "0"), "steps must be >= 1"),
            (("--batch-size", "0"), "batch_size must be >= 1"),
            (("--signature-lr-scale", "0"), "signature_lr_scale"),
            (("-m", "eps=nan"), "eps must be a finite number"),
            (("-m", "eps=0"), "eps must be positive"),
            (("-m", "eps=-1"), "eps must be positive"),
            (("-m", "eps=inf"), "eps must be a finite number"),
            (("-m", "tau=0"), "tau must be positive"),
            (("-m", "tau=-0.5"), "tau must be positive"),
            (("-m", "prior_weight=-1"), "prior_weight must be non-negative"),
            (("-m", "density_weight=-1"), "density_weight must be non-negative"),
            (("-m", "sig_dim=0"), "sig_dim must be positive"),
            (("-m", "code_dim=0"), "code_dim must be positive"),
            (("-m", "ffn_mult=0"), "ffn_mult must be positive"),
            (("-m", "n_readouts=0"), "n_readouts"),
            (("-m", "dim=8.5"), "dim must be int"),
            (("-m", "heads=true"), "heads must be int"),
            (("-m", "prior_rematch_every=0"), "rematch_every must be positive"),
            (("--model-kind", "mn", "--task", "digits"), "head must be true"),
        )
    },
    "Python API": {
        "NACConfig(eps=nan)": config_object(
            lambda: __import__("circuitlab.config").config.NACConfig.from_dict(
                {"eps": float("nan")}
            ),
            "eps",
        ),
        "NACConfig(dim='8')": config_object(
            lambda: __import__("circuitlab.config").config.NACConfig(dim="8"), "dim must be int"
        ),
        "NACConfig(n_processors=True)": config_object(
            lambda: __import__("circuitlab.config").config.NACConfig(n_processors=True),
            "n_processors must be int",
        ),
        "TrainConfig(grad_clip=0)": config_object(
            lambda: __import__("circuitlab.run_config").run_config.TrainConfig(grad_clip=0.0),
            "grad_clip",
        ),
        "TrainConfig(steps=2.5)": config_object(
            lambda: __import__("circuitlab.run_config").run_config.TrainConfig(steps=2.5),
            "steps must be int",
        ),
        "features of rank 2": model_input({"input_dim": 5}, (2, 5), "feature vectors"),
        "features of another width": model_input({"input_dim": 5}, (2, 3, 7), "feature vectors"),
        "images without a channel axis": model_input(
            {"input_dim": 1, "tokenizer": "patches"}, (2, 16, 16), "images"
        ),
        "images with 3 channels for 1": model_input(
            {"input_dim": 1, "tokenizer": "patches"}, (2, 3, 16, 16), "images"
        ),
        "images smaller than a patch": model_input(
            {"input_dim": 1, "tokenizer": "patches"}, (2, 1, 2, 2), "images"
        ),
        "LinkEdit with a numpy mask": link_edit(np.ones((8, 8), bool), 4, None),
        "LinkEdit with a nested-list mask": link_edit(np.eye(8, dtype=bool).tolist(), 4, None),
        "LinkEdit with 3 masks for a batch of 4": link_edit(np.ones((3, 8, 8), bool), 4, "3 masks"),
        "LinkEdit with a 1-d mask": link_edit(np.ones(8, bool), 4, "(U, U) or (B, U, U)"),
        "LinkEdit with text": link_edit("all", 4, "(U, U) or (B, U, U)"),
        "LinkEdit for another number of modules": link_edit(np.ones((5, 5), bool), 4, "(8, 8)"),
    },
    "API edges": {
        "run_with_circuit: signatures holding NaN": circuit_run(
            signatures=with_entry((4, 8, 4), np.nan, (1, 2, 0))
        ),
        "run_with_circuit: codes passed as signatures": circuit_run(
            signatures=np.ones((4, 8, 8), np.float32)
        ),
        "run_with_circuit: codes of another width": circuit_run(
            codes=np.ones((1, 8, 4), np.float32)
        ),
        "run_with_circuit: integer signatures": circuit_run(signatures=np.ones((1, 8, 4), int)),
        "run_with_circuit: an all-zero signature": circuit_run(
            signatures=with_entry((1, 8, 4), 0.0, (0, 3))
        ),
        "run_with_circuit: inputs holding inf": circuit_run(
            inputs=with_entry((4, 3, 5), np.inf, (0, 1, 1))
        ),
        "token id at the vocabulary size": token_ids([[1, 20]], "vocabulary"),
        "negative token id": token_ids([[-1, 2]], "vocabulary"),
        "store['2'] (an id as text)": id_as_text,
        "a store of string ids in the app": string_ids_in_the_app,
        "ids of floats at write": lambda d: api(
            lambda: CircuitStore.write(d / "s", circuits(2), pd.DataFrame({"id": [0.5, 1.5]})),
            "frame['id']",
        ),
        "an all-zero signature in a Circuit": lambda d: api(
            lambda: Circuit(np.array([[1.0, 0.0], [0.0, 0.0]]), ["processor"] * 2), "all-zero"
        ),
        "an all-zero signature in a store file": lambda d: api(
            lambda: CircuitStore.open(edited(d, zero_signature_file)), "circuit 2, module 1"
        ),
        "to_networkx(threshold=nan)": lambda d: api(
            lambda: circuits(1)[0].to_networkx(threshold=float("nan")), "threshold"
        ),
        "LinkEdit(knocked_out=(1.5,))": fractional_module,
        "store.link_probabilities([99])": lambda d: api(
            lambda: CircuitStore.open(store(d)).link_probabilities([99]), "row 99"
        ),
    },
    "slips": {
        "evaluate --out a folder": lambda d: run_cli(
            "evaluate", CHECKPOINT, "--nlvr", "nlvr-dev", "--out", d, phrase="is a folder"
        ),
        "a .gz that is not gzip": lambda d: not_gzip(d, b"plain text"),
        "a .gz cut short": cut_gzip,
        "export --n-circuits -3": lambda d: run_cli(
            "export", CHECKPOINT, "--out", d / "s", "--n-circuits", "-3", phrase="n-circuits"
        ),
        "export --n-circuits 0": lambda d: run_cli(
            "export", CHECKPOINT, "--out", d / "s", "--n-circuits", "0", phrase="n-circuits"
        ),
        "evaluate a checkpoint that does not exist": lambda d: run_cli(
            "evaluate", d / "nowhere", "--nlvr", "nlvr-dev", phrase="not found"
        ),
        "info on a folder that is not a store": lambda d: run_cli(
            "info", (d / "x", (d / "x").mkdir())[0], phrase="store.json"
        ),
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
