"""CircuitStore: a directory of circuits that any tool can read without circuitlab's model code.

Layout (format version 2):
- ``store.json``: format version, the model ``kind`` (``circuitlab.kinds``), model config,
  checkpoint hash, creation time, number of samples, and ``arrays``: one entry per array file,
  with its ``name``, ``file``, ``dtype``, ``shape`` and ``axes`` (an array whose first axis is
  ``"sample"`` holds one entry per row of samples.parquet; others describe the model);
- ``samples.parquet``: one row per circuit (column ``id`` at least; text, label, ... as given);
- the array files (``.npy``), opened memory-mapped: ``CircuitStore.array(name)``.

A NAC's store also records U, d_sig, d_code, eps, truncation and module roles; its arrays are
``signatures`` (N, U, d_sig) float32 and, optionally, ``codes`` (N, U, d_code) float32. A Neural
Interpreter's (``circuitlab.ni.export``) holds per input its ``routing`` and per model
its functions' signatures and codes. Version 1 stores (no kind, no array list) open as a NAC's.

Writing is atomic: everything goes to a temporary sibling directory that is then renamed onto
the store, under a lock that serialises the writers of one path; an analysis added to a store
writes a new directory the same way (its arrays hard-linked), and only if the store is still the
version it read. Reading goes through a handle on the directory (POSIX), so one ``open`` reads one
version, never files of two. ``overwrite`` replaces a store or an empty folder, nothing else.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import warnings
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from circuitlab.checks import row_indices
from circuitlab.circuit import (
    PROCESSOR,
    READOUT,
    Circuit,
    first_non_finite,
    first_zero_vector,
    link_probabilities,
    zero_signature_error,
)
from circuitlab.errors import CircuitlabError, InputError
from circuitlab.files import (
    DirectorySnapshot,
    being_replaced,
    recover_leftovers,
    replace_dir,
    temporary_dir_beside,
    writer_lock,
)
from circuitlab.kinds import DEFAULT, KINDS, nac

__all__ = [
    "CircuitStore",
    "CircuitStoreError",
    "P_BATCH_BYTES",
    "SAMPLE_AXIS",
    "category_lists",
    "row_of_id",
]

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
# a store's model kind is one of circuitlab.kinds.KINDS, whose circuit_array it must hold; a
# NAC's store (kind NAC) also holds the kernel and the modules' roles
NAC = nac.NAME
SAMPLE_AXIS = "sample"  # the first axis of an array with one entry per circuit
# the axes of a NAC store's arrays (their files are SIGNATURES and CODES)
NAC_AXES = {
    "signatures": [SAMPLE_AXIS, "module", "signature"],
    "codes": [SAMPLE_AXIS, "module", "code"],
}
META, SAMPLES, SIGNATURES, CODES = "store.json", "samples.parquet", "signatures.npy", "codes.npy"
# the key, in every analysis record of store.json, of the data fingerprint it was computed from
FINGERPRINT = "data_fingerprint"
ROLES = (PROCESSOR, READOUT)
# the most bytes of P (float32) a batch of link_probability_batches holds (its computation
# takes a few times more): what bounds the memory of info, analyze and the app on large U
P_BATCH_BYTES = 64 * 2**20
# an open that finds the store being replaced (or replaced under it) tries again, this often
OPEN_ATTEMPTS, OPEN_RETRY_S = 100, 0.02


class _Replaced(Exception):
    """The store directory was replaced while it was being read: read it again."""


class CircuitStoreError(CircuitlabError):
    """A store file is missing, corrupt or inconsistent; the message names the file.

    Parameters
    ----------
    path
        The store file (or folder) at fault.
    problem
        What is wrong with it, and what to do.
    """

    def __init__(self, path: Path, problem: str) -> None:
        self.path = Path(path)
        super().__init__(f"{self.path}: {problem}")


def category_lists(frame: pd.DataFrame, column: str = "categories") -> pd.Series:
    """A frame's categories column as one list of strings per row: a list or array of strings
    as it is, one string as a list of it, None or NaN as no category; anything else (a number,
    a list holding a non-string) is a ``ValueError`` naming the row's id.

    Parameters
    ----------
    frame
        A store's rows.
    column
        The categories column.
    """

    def as_list(value: Any, row_id: Any) -> list[str]:
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return []
        if isinstance(value, str):
            return [value]
        if isinstance(value, list | tuple | np.ndarray) and all(isinstance(c, str) for c in value):
            return [str(c) for c in value]
        raise ValueError(
            f"circuit {row_id!r}: column {column!r} holds {value!r}; a row's categories are a "
            "list of strings (or one string, or None for none)"
        )

    ids = frame["id"] if "id" in frame.columns else pd.Series(frame.index, index=frame.index)
    return pd.Series(
        [as_list(v, i) for v, i in zip(frame[column], ids, strict=True)], index=frame.index
    )


def array_spec(name: str, array: np.ndarray, axes: Sequence[str]) -> dict[str, Any]:
    """store.json's entry for ``array`` saved as NAME.npy, its axes named by ``axes``."""
    if len(axes) != array.ndim:
        raise ValueError(f"array {name!r} has {array.ndim} axes but {len(axes)} axis names")
    return {
        "name": name,
        "file": f"{name}.npy",
        "dtype": str(array.dtype),
        "shape": [int(n) for n in array.shape],
        "axes": list(axes),
    }


class CircuitStore:
    """Read access to a circuit store: ``len(store)``, ``store.frame``, ``store.array(name)``;
    for a NAC's store also ``store[i] -> Circuit``, ``store.signatures``, link probabilities.

    Open a store with ``CircuitStore.open(path)``; write one with ``CircuitStore.write`` or
    ``write_arrays``. The constructor takes what ``open`` read:

    Parameters
    ----------
    path
        The store's folder.
    meta
        The parsed ``store.json``.
    frame
        One row per circuit (``id``, ``text``, ``label``, ... and analysis columns).
    arrays
        The store's arrays by name, memory-mapped.
    meta_text
        ``store.json`` as read, so a later write can tell whether it changed meanwhile.
    """

    def __init__(
        self,
        path: Path,
        meta: dict[str, Any],
        frame: pd.DataFrame,
        arrays: dict[str, np.ndarray],
        meta_text: str | None = None,
    ) -> None:
        self.path = path
        self.meta = meta
        # store.json as read: an analysis is written back only while the store still holds it
        self._meta_text = meta_text
        self.frame = frame
        self.kind: str = meta.get("kind", DEFAULT)
        self._arrays = arrays
        self.signatures = arrays.get("signatures") if self.kind == NAC else None
        self.codes = arrays.get("codes") if self.kind == NAC else None
        self.roles = np.asarray(meta.get("roles", []), dtype=str)
        self.eps = float(meta["eps"]) if "eps" in meta else float("nan")
        self.truncation = meta.get("truncation")
        self._fingerprint: str | None = None

    @property
    def array_names(self) -> list[str]:
        return list(self._arrays)

    def array(self, name: str) -> np.ndarray:
        """The array ``name`` (memory-mapped; see store.json's ``arrays`` for its axes)."""
        if name not in self._arrays:
            raise KeyError(f"{self.path} holds no array {name!r}; it holds {self.array_names}")
        return self._arrays[name]

    def axes(self, name: str) -> list[str]:
        """The names of array ``name``'s axes."""
        self.array(name)
        return next(spec["axes"] for spec in self.meta["arrays"] if spec["name"] == name)

    def _require_nac(self, what: str) -> None:
        if self.kind != NAC:
            raise TypeError(
                f"{self.path} is a store of kind {self.kind!r}, which has no {what} (a NAC's "
                f"module graph); read its arrays with store.array(name): {self.array_names}"
            )

    # ----------------------------------------------------------------------------- reading
    @classmethod
    def open(cls, path: str | os.PathLike) -> CircuitStore:
        """Open a store, checking its format version and that every file agrees on the shapes.

        All files are read from one version of the store: if a writer replaces it meanwhile,
        the read starts again on the new version. Leftovers of killed writers are cleaned up.
        """
        path = Path(path)
        for _ in range(OPEN_ATTEMPTS):
            try:
                recover_leftovers(path)  # a writer killed mid-replace leaves the old store aside
            except OSError:  # a read-only location: nothing to clean up from here
                pass
            if not path.is_dir():
                if being_replaced(path):
                    time.sleep(OPEN_RETRY_S)
                    continue
                if path.exists():
                    raise CircuitStoreError(path, "is a file, not a store directory")
                raise CircuitStoreError(path, "no such store directory")
            try:
                with DirectorySnapshot(path) as snapshot:
                    return cls._read(path, snapshot)
            except (_Replaced, FileNotFoundError):  # renamed away since is_dir(): look again
                time.sleep(OPEN_RETRY_S)
        raise CircuitStoreError(path, "was replaced again and again while being read; retry")

    @classmethod
    def _read(cls, path: Path, snapshot: DirectorySnapshot) -> CircuitStore:
        """The store in ``snapshot`` (one version of ``path``); ``_Replaced`` if a file it
        names is gone because the directory was replaced since."""
        meta_text = _snapshot_bytes(snapshot, META).decode("utf-8", errors="replace")
        meta = _parse_meta(path / META, meta_text)
        frame = _read_frame(path / SAMPLES, snapshot)
        n = len(frame)
        if n == 0:
            raise CircuitStoreError(path / SAMPLES, "holds no circuits; export the store again")
        if meta["kind"] == NAC:
            _check_nac_arrays(path / META, meta, n)
        arrays = {}
        for spec in meta["arrays"]:
            shape = tuple(spec["shape"])
            if spec["axes"][:1] == [SAMPLE_AXIS] and shape[0] != n:
                raise CircuitStoreError(
                    path / META, f"array {spec['name']!r} lists {shape[0]} samples for {n} rows"
                )
            arrays[spec["name"]] = _read_array(path, snapshot, spec["file"], shape, spec["dtype"])
        if meta["kind"] == NAC:
            zero = first_zero_vector(arrays["signatures"])
            if zero is not None:
                problem = str(zero_signature_error(f"circuit {zero[0]}, module {zero[1]}"))
                raise CircuitStoreError(path / "signatures.npy", problem)
        return cls(path, meta, frame, arrays, meta_text)

    def __len__(self) -> int:
        return len(self.frame)

    def __getitem__(self, index: int) -> Circuit:
        """The circuit in row ``index`` (a position, 0..len - 1, or negative from the end; not
        an id: ``store.row_of(id)`` finds an id's row)."""
        self._require_nac("circuit per row")
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise InputError(
                "index",
                f"store[...] takes a row position (an int), got {index!r:.60}",
                f"to open a circuit by its id, use store[store.row_of({index!r:.40})]",
            )
        if not -len(self) <= index < len(self):
            raise IndexError(f"circuit {index} out of range for a store of {len(self)}")
        return Circuit(
            signatures=np.array(self.signatures[index]),
            roles=self.roles,
            codes=None if self.codes is None else np.array(self.codes[index]),
            eps=self.eps,
            truncation=self.truncation,
        )

    def row_of(self, circuit_id: object) -> int:
        """The row position of the circuit whose id is ``circuit_id``: an int id, or its text
        as it arrives from a URL or a CSV ("3"), in a store of integer ids; a string in a store
        of string ids. ``KeyError`` naming the id when no row has it."""
        row = row_of_id(self.frame, circuit_id)
        if row is None:
            raise KeyError(f"no circuit with id {circuit_id!r:.60} in {self.path}")
        return row

    def link_probabilities(self, indices: Sequence[int] | np.ndarray | slice) -> np.ndarray:
        """P for many circuits at once: (len(indices), U, U) float32."""
        self._require_nac("link probabilities")
        rows = row_indices("indices", indices, len(self))
        return link_probabilities(np.asarray(self.signatures[rows]), self.eps, self.truncation)

    def link_probability_batches(
        self, indices: Sequence[int] | np.ndarray | None = None, batch: int = 512
    ) -> Iterator[tuple[int, np.ndarray]]:
        """(start, P) for the circuits ``indices`` (default: all) in batches of at most
        ``batch``, and fewer for large U, so that one batch of P (b, U, U) float32 stays within
        ``P_BATCH_BYTES`` (a 1,024-module store: 16 circuits at a time): P (b, U, U) holds
        circuits ``indices[start : start + b]``."""
        rows = row_indices("indices", slice(None) if indices is None else indices, len(self))
        u = self.meta["n_modules"]
        batch = max(1, min(batch, P_BATCH_BYTES // (4 * u * u)))
        for start in range(0, len(rows), batch):
            yield start, self.link_probabilities(rows[start : start + batch])

    def mean_link_probability(
        self, indices: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """(U, U) mean P over the circuits ``indices`` (default: all), float64."""
        n = len(self) if indices is None else len(indices)
        if n == 0:
            raise ValueError("no circuits to average")
        u = self.meta["n_modules"]
        total = np.zeros((u, u))
        for _, p in self.link_probability_batches(indices):
            total += p.sum(axis=0)
        return total / n

    # ----------------------------------------------------------------------------- analysis cache
    @property
    def fingerprint(self) -> str:
        """A hash of what every analysis reads: a NAC store's signatures, eps, truncation and
        roles; another kind's arrays. Computed once per opened store (it reads them once)."""
        if self._fingerprint is None:
            if self.kind == NAC:
                digest = hashlib.sha256(np.ascontiguousarray(self.signatures).tobytes())
                extra: list[Any] = [self.eps, self.truncation, self.roles.tolist()]
            else:
                digest = hashlib.sha256(self.kind.encode())
                for name in sorted(self._arrays):
                    digest.update(np.ascontiguousarray(self._arrays[name]).tobytes())
                extra = self.meta["arrays"]
            digest.update(json.dumps(extra).encode())
            self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint

    def analysis_params(self, key: str) -> dict[str, Any] | None:
        """The parameters recorded with the analysis ``key``; None if never added, or if the
        store's data changed since (the record's fingerprint is not the store's): a cached
        result is never used for other data."""
        record = self.meta.get("analysis", {}).get(key)
        if record is None or record.get(FINGERPRINT) != self.fingerprint:
            return None
        return {k: v for k, v in record.items() if k != FINGERPRINT}

    def add_analysis(
        self, key: str, params: dict[str, Any], columns: pd.DataFrame | None = None
    ) -> None:
        """Record ``params`` (JSON) under ``store.json``'s ``analysis[key]`` and add (or
        replace) analysis ``columns``, one row per circuit in store order.

        The store on disk gets them as a new version, written like a store (a new directory
        with the arrays hard-linked, renamed into place under the writers' lock), and only if
        it is still the version this object read: a store exported again meanwhile keeps its
        new contents, and the results stay in this object, with a warning. So does a store
        that cannot be written (read-only).
        """
        meta = json.loads(json.dumps(self.meta))
        meta.setdefault("analysis", {})[key] = {**params, FINGERPRINT: self.fingerprint}
        try:
            text = json.dumps(meta, indent=2, allow_nan=False)
        except ValueError as err:
            raise ValueError(
                f"analysis {key!r} holds NaN or inf values; nothing was written to {self.path}"
            ) from err
        frame = self.frame if columns is None else self._with_columns(columns)
        try:
            written = self._write_version(text, frame)
        except OSError as err:  # a read-only store: keep the results for this session
            written = False
            warnings.warn(
                f"{self.path} cannot be written ({err}); analysis {key!r} kept in memory only",
                stacklevel=2,
            )
        if not written and self._meta_text is not None:
            self._meta_text = None  # this object no longer matches any version on disk
        self.frame, self.meta = frame, meta

    def _write_version(self, meta_text: str, frame: pd.DataFrame) -> bool:
        """Replace the store on disk by this version (``meta_text``, ``frame``, the arrays on
        disk) if it still holds the store.json this object read; False (with a warning) if
        not."""
        with writer_lock(self.path):
            try:
                on_disk = (self.path / META).read_text()
            except FileNotFoundError:
                on_disk = None
            if self._meta_text is None or on_disk != self._meta_text:
                warnings.warn(
                    f"{self.path} changed since it was read (written again by another process); "
                    "this analysis is kept in memory only: open the store again to add it there",
                    stacklevel=3,
                )
                return False
            tmp = temporary_dir_beside(self.path)
            try:
                for spec in self.meta["arrays"]:
                    _link_or_copy(self.path / spec["file"], tmp / spec["file"])
                frame.to_parquet(tmp / SAMPLES, index=False)
                (tmp / META).write_text(meta_text)
                replace_dir(tmp, self.path)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        self._meta_text = meta_text
        return True

    def _with_columns(self, columns: pd.DataFrame) -> pd.DataFrame:
        if len(columns) != len(self):
            raise ValueError(f"{len(columns)} rows of analysis columns for {len(self)} circuits")
        clash = {"id"} & set(columns.columns)
        if clash:
            raise ValueError(f"analysis columns may not replace {sorted(clash)}")
        frame = self.frame.copy()
        for name in columns.columns:
            frame[name] = columns[name].to_numpy()
        return frame

    @property
    def config(self) -> dict[str, Any]:
        return self.meta.get("config", {})

    def __repr__(self) -> str:
        if self.kind != NAC:
            arrays = ", ".join(self.array_names)
            return (
                f"CircuitStore({str(self.path)!r}, kind={self.kind}, circuits={len(self)}, "
                f"arrays: {arrays})"
            )
        u, d = self.meta["n_modules"], self.meta["d_sig"]
        return f"CircuitStore({str(self.path)!r}, circuits={len(self)}, U={u}, d_sig={d})"

    # ----------------------------------------------------------------------------- writing
    @staticmethod
    def write(
        path: str | os.PathLike,
        circuits: Sequence[Circuit],
        frame: pd.DataFrame | None = None,
        config: dict[str, Any] | None = None,
        *,
        checkpoint_hash: str | None = None,
        overwrite: bool = False,
    ) -> CircuitStore:
        """Write ``circuits`` (all of one shape) with one ``frame`` row each, atomically.

        ``frame`` gets an ``id`` column (0..N-1) if it has none. Returns the opened store.
        """
        path = Path(path)
        recover_leftovers(path)
        with writer_lock(path):  # no other writer mid-replace while we look
            _check_replaceable(path, overwrite)
        if not circuits:
            raise ValueError("no circuits to write")
        first = circuits[0]
        frame = pd.DataFrame(index=range(len(circuits))) if frame is None else frame.copy()
        if len(frame) != len(circuits):
            raise ValueError(f"frame has {len(frame)} rows for {len(circuits)} circuits")
        _check_alike(circuits)  # ids and the arrays' lengths are checked by write_arrays
        with_codes = first.codes is not None
        stacked = {"signatures": np.stack([c.signatures for c in circuits])}
        if with_codes:
            stacked["codes"] = np.stack([c.codes for c in circuits])
        nac_meta = {
            "n_modules": first.n_modules,
            "d_sig": int(first.signatures.shape[1]),
            "d_code": int(first.codes.shape[1]) if with_codes else None,
            "eps": float(first.eps),
            "truncation": first.truncation,
            "roles": [str(r) for r in first.roles],
        }
        return CircuitStore.write_arrays(
            path,
            NAC,
            {name: (a.astype(np.float32), NAC_AXES[name]) for name, a in stacked.items()},
            frame,
            config,
            extra_meta=nac_meta,
            checkpoint_hash=checkpoint_hash,
            overwrite=overwrite,
        )

    @staticmethod
    def write_arrays(
        path: str | os.PathLike,
        kind: str,
        arrays: dict[str, tuple[np.ndarray, Sequence[str]]],
        frame: pd.DataFrame,
        config: dict[str, Any] | None = None,
        *,
        extra_meta: dict[str, Any] | None = None,
        checkpoint_hash: str | None = None,
        overwrite: bool = False,
    ) -> CircuitStore:
        """Write a store of ``kind`` atomically: ``arrays`` maps each name to (array, axis
        names), one row of ``frame`` per sample (an array whose first axis is "sample" has one
        entry per row); ``extra_meta`` joins store.json. Returns the opened store."""
        path = Path(path)
        recover_leftovers(path)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {tuple(KINDS)}, got {kind!r}")
        with writer_lock(path):  # no other writer mid-replace while we look
            _check_replaceable(path, overwrite)
        frame = frame.reset_index(drop=True)
        if "id" not in frame.columns:
            frame.insert(0, "id", np.arange(len(frame)))
        if not frame["id"].is_unique:
            duplicated = frame["id"][frame["id"].duplicated()].iloc[0]
            raise InputError("frame['id']", f"must be unique; {duplicated} repeats")
        if not _ids_readable(frame["id"]):
            raise InputError(
                "frame['id']",
                f"holds {frame['id'].dtype} values ({frame['id'].iloc[0]!r:.40}, ...)",
                "ids are all integers or all strings",
            )
        if kind == NAC and "signatures" in arrays:
            zero = first_zero_vector(arrays["signatures"][0])
            if zero is not None:
                raise zero_signature_error(f"circuit {zero[0]}, module {zero[1]}")
        specs = [array_spec(name, array, axes) for name, (array, axes) in arrays.items()]
        for spec in specs:
            if spec["axes"][0] == SAMPLE_AXIS and spec["shape"][0] != len(frame):
                raise ValueError(
                    f"array {spec['name']!r} has {spec['shape'][0]} samples for {len(frame)} rows"
                )
        _check_circuit_array(kind, specs, ValueError)
        meta = {
            "format_version": FORMAT_VERSION,
            "kind": kind,
            "config": config or {},
            **(extra_meta or {}),
            "arrays": specs,
            "checkpoint_sha256": checkpoint_hash,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "n_samples": len(frame),
        }
        tmp = temporary_dir_beside(path)
        try:
            (tmp / META).write_text(json.dumps(meta, indent=2))
            frame.to_parquet(tmp / SAMPLES, index=False)
            for spec, (array, _) in zip(specs, arrays.values(), strict=True):
                np.save(tmp / spec["file"], np.ascontiguousarray(array))
            written = CircuitStore.open(tmp)  # it must read back before the old store goes
            with writer_lock(path):
                recover_leftovers(path)
                _check_replaceable(path, overwrite)  # again: another writer may have been first
                replace_dir(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        # its arrays are mapped from the files now in ``path`` (a rename keeps them), so the
        # store returned is the one written even if another writer replaces it next
        written.path = path
        return written


def row_of_id(frame: pd.DataFrame, circuit_id: object) -> int | None:
    """Position in ``frame`` of the row whose ``id`` is ``circuit_id``, else None. Integer ids
    match an int or its text ("3", " 3"); string ids match the same string.

    Parameters
    ----------
    frame, circuit_id
        As above.
    """
    ids = frame["id"]
    if pd.api.types.is_integer_dtype(ids):
        if isinstance(circuit_id, bool):
            return None
        try:
            wanted: object = int(str(circuit_id).strip())
        except ValueError:
            return None
    else:
        wanted = str(circuit_id)
    hits = np.flatnonzero(ids.to_numpy() == wanted)
    return int(hits[0]) if len(hits) else None


def _check_alike(circuits: Sequence[Circuit]) -> None:
    """Every circuit as circuit 0: signature and code shapes, roles, eps and truncation."""
    first = circuits[0]

    def code_shape(circuit: Circuit) -> tuple[int, ...] | None:
        return None if circuit.codes is None else circuit.codes.shape

    for i, c in enumerate(circuits[1:], start=1):
        problems = {
            "signature shape": (c.signatures.shape, first.signatures.shape),
            "roles": (list(c.roles), list(first.roles)),
            "code shape (None: no codes)": (code_shape(c), code_shape(first)),
            "eps": (c.eps, first.eps),
            "truncation": (c.truncation, first.truncation),
        }
        for what, (mine, theirs) in problems.items():
            if mine != theirs:
                raise ValueError(
                    f"circuit {i} differs from circuit 0 in its {what}: {mine} against {theirs}; "
                    "a store holds circuits of one model"
                )


STORE_FILES = (META, SAMPLES)


def _check_replaceable(path: Path, overwrite: bool) -> None:
    """A store may be written at ``path`` if nothing is there, or, with ``overwrite``, if
    what is there is a store (only a store's files) or an empty folder: never anything else."""
    if not path.exists() and not path.is_symlink():
        return
    if not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True (CLI: --overwrite)")
    if path.is_symlink() or path.is_file():
        raise FileExistsError(
            f"{path} is not a circuit store (a file or a link): overwrite replaces only a store "
            "or an empty folder; choose another output path"
        )
    try:
        names = [p.name for p in path.iterdir()]
    except FileNotFoundError:  # gone since: another writer is between its two renames
        return
    foreign = [
        n
        for n in names
        if n not in STORE_FILES and not n.endswith(".npy") and not n.startswith(f".{META}")
    ]
    if names and (META not in names or foreign):
        shown = ", ".join(sorted(foreign)[:3]) or "no store.json"
        raise FileExistsError(
            f"{path} is not a circuit store ({shown}): overwrite replaces only a store or an "
            "empty folder, and would delete what is in it; choose another output path"
        )


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        shutil.copy2(source, target)


def _snapshot_bytes(snapshot: DirectorySnapshot, name: str) -> bytes:
    with _snapshot_file(snapshot, name) as f:
        return f.read()


def _snapshot_file(snapshot: DirectorySnapshot, name: str):  # noqa: ANN202
    """``snapshot.open(name)``; ``_Replaced`` if it is gone because the store was replaced,
    ``CircuitStoreError`` if the store simply lacks it."""
    try:
        return snapshot.open(name)
    except (FileNotFoundError, IsADirectoryError) as err:
        if not snapshot.is_current():
            raise _Replaced from err
        raise CircuitStoreError(snapshot.path / name, "missing (is this a circuit store?)") from err


def _parse_meta(path: Path, text: str) -> dict[str, Any]:
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as err:
        raise CircuitStoreError(path, f"not valid JSON ({err})") from err
    if not isinstance(meta, dict):
        raise CircuitStoreError(path, f"holds a JSON {type(meta).__name__}, not an object")
    version = meta.get("format_version")
    if version not in READABLE_VERSIONS:
        raise CircuitStoreError(
            path,
            f"format version {version!r}, but this circuitlab reads versions "
            f"{list(READABLE_VERSIONS)}; re-export the store with this version",
        )
    if version == 1:  # no kind, no array list: a NAC's signatures (and codes)
        meta = {**meta, "kind": NAC, "arrays": _nac_array_specs(meta)}
    kind = meta.get("kind")
    if kind not in KINDS:
        raise CircuitStoreError(path, f"kind {kind!r}; this circuitlab reads kinds {list(KINDS)}")
    arrays = meta.get("arrays")
    keys = {"name", "file", "dtype", "shape", "axes"}
    if not isinstance(arrays, list) or not all(
        isinstance(a, dict) and keys <= set(a) for a in arrays
    ):
        raise CircuitStoreError(path, f"'arrays' must list entries with keys {sorted(keys)}")
    _check_array_specs(path, arrays)
    _check_circuit_array(kind, arrays, lambda message: CircuitStoreError(path, message))
    if kind != NAC:
        return meta
    for key in ("n_modules", "d_sig", "eps", "roles"):
        if key not in meta:
            raise CircuitStoreError(path, f"has no {key!r} entry")
    for key in ("n_modules", "d_sig"):
        if not _is_count(meta[key]):
            raise CircuitStoreError(path, f"{key} must be a positive integer, got {meta[key]!r}")
    eps = meta["eps"]
    if not (_is_number(eps) and np.isfinite(eps) and eps > 0):
        raise CircuitStoreError(path, f"eps must be a positive number, got {eps!r}")
    truncation = meta.get("truncation")
    if truncation is not None and not (_is_number(truncation) and 0 < truncation <= 2):
        raise CircuitStoreError(
            path, f"truncation must be a cosine distance in (0, 2] or null, got {truncation!r}"
        )
    roles = meta["roles"]
    if not isinstance(roles, list) or any(r not in ROLES for r in roles):
        odd = roles if not isinstance(roles, list) else next(r for r in roles if r not in ROLES)
        raise CircuitStoreError(path, f"roles must each be one of {list(ROLES)}, got {odd!r}")
    return meta


def _check_circuit_array(kind: str, specs: list[dict[str, Any]], error: Any) -> None:
    """A store of ``kind`` lists its circuit array (its kind's ``circuit_array``) with a sample axis
    first; ``error(message)`` is raised otherwise (a kind that disagrees with its arrays)."""
    name = KINDS[kind].circuit_array
    spec = next((s for s in specs if s["name"] == name), None)
    if spec is None or spec["axes"][:1] != [SAMPLE_AXIS]:
        listed = sorted(s["name"] for s in specs)
        raise error(
            f"a store of kind {kind!r} holds its circuits in array {name!r} (one per sample), "
            f"but lists {listed}: the kind does not match the arrays"
        )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _check_array_specs(path: Path, arrays: list[dict[str, Any]]) -> None:
    """Each array entry: a plain .npy file name inside the store (no folder, no ``..``), names
    and files unique, a known dtype, a shape of non-negative integers, one axis name per axis."""
    for field in ("name", "file"):
        values = [a[field] for a in arrays]
        if len(set(map(str, values))) != len(values):
            raise CircuitStoreError(path, f"arrays list the same {field} twice: {values}")
    for spec in arrays:
        file = spec["file"]
        plain = isinstance(file, str) and file == os.path.basename(file) and "\\" not in file
        if not plain or not file.endswith(".npy") or file.startswith("."):
            raise CircuitStoreError(
                path,
                f"array {spec['name']!r} names file {file!r}: array files are plain .npy names "
                "inside the store",
            )
        shape, axes = spec["shape"], spec["axes"]
        if not isinstance(shape, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
        ):
            raise CircuitStoreError(path, f"array {spec['name']!r} has shape {shape!r}")
        if not isinstance(axes, list) or len(axes) != len(shape):
            raise CircuitStoreError(
                path, f"array {spec['name']!r} names axes {axes!r} for shape {shape}"
            )
        try:
            np.dtype(spec["dtype"])
        except TypeError as err:
            raise CircuitStoreError(
                path, f"array {spec['name']!r} has dtype {spec['dtype']!r}"
            ) from err


def _nac_array_specs(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The array list of a version 1 (NAC) store, from its shape entries; the sample count
    is checked against samples.parquet on opening."""
    n = meta.get("n_samples", 0)
    u, d_sig = meta.get("n_modules"), meta.get("d_sig")
    shapes = {"signatures": [n, u, d_sig]}
    if meta.get("d_code") is not None:
        shapes["codes"] = [n, u, meta["d_code"]]
    files = {"signatures": SIGNATURES, "codes": CODES}
    return [
        {"name": k, "file": files[k], "dtype": "float32", "shape": v, "axes": NAC_AXES[k]}
        for k, v in shapes.items()
    ]


def _check_nac_arrays(path: Path, meta: dict[str, Any], n: int) -> None:
    """A NAC store's arrays: signatures (and codes) of the shapes its U, d_sig, d_code say,
    one per sample; roles for every module. Version 1 specs take n from samples.parquet."""
    u, d_sig, d_code = meta["n_modules"], meta["d_sig"], meta.get("d_code")
    expected = {"signatures": [n, u, d_sig]}
    if d_code is not None:
        expected["codes"] = [n, u, d_code]
    listed = {spec["name"]: spec for spec in meta["arrays"]}
    if set(listed) != set(expected):
        raise CircuitStoreError(
            path, f"a NAC store lists arrays {sorted(listed)}; expected {sorted(expected)}"
        )
    for name, shape in expected.items():
        listed[name]["shape"] = shape  # version 1: the sample count comes from the frame
    if len(meta["roles"]) != u:
        raise CircuitStoreError(path, f"{len(meta['roles'])} roles listed for {u} modules")


def _read_frame(path: Path, snapshot: DirectorySnapshot) -> pd.DataFrame:
    with _snapshot_file(snapshot, path.name) as f:
        try:
            frame = pd.read_parquet(f)
        except Exception as err:  # pyarrow raises several types for corrupt files
            raise CircuitStoreError(path, f"unreadable parquet ({err})") from err
    if "id" not in frame.columns:
        raise CircuitStoreError(path, "has no 'id' column (one id per circuit)")
    ids = frame["id"]
    if not ids.is_unique:
        raise CircuitStoreError(path, f"id {ids[ids.duplicated()].iloc[0]} repeats")
    if not _ids_readable(ids):
        raise CircuitStoreError(path, f"ids must be all integers or all strings, got {ids.dtype}")
    return frame


def _ids_readable(ids: pd.Series) -> bool:
    """Ids a store can hold: all integers, or all strings."""
    return pd.api.types.is_integer_dtype(ids) or bool(ids.map(lambda v: isinstance(v, str)).all())


def _read_array(
    folder: Path, snapshot: DirectorySnapshot, file: str, shape: tuple[int, ...], dtype: str
) -> np.ndarray:
    path = folder / file
    with _snapshot_file(snapshot, file) as f:
        try:
            array = _memmap_npy(f)
        except Exception as err:  # a truncated file fails inside numpy's header or mmap checks
            raise CircuitStoreError(path, f"corrupt or truncated npy ({err})") from err
    if array.shape != shape:
        raise CircuitStoreError(
            path, f"has shape {array.shape}; store.json and samples say {shape}"
        )
    if array.dtype != np.dtype(dtype):
        raise CircuitStoreError(path, f"has dtype {array.dtype}; expected {dtype}")
    bad = first_non_finite(array) if array.dtype.kind == "f" else None
    if bad is not None:
        where = f"circuit {bad[0]}" + (f", module {bad[1]}" if len(bad) > 1 else "")
        raise CircuitStoreError(path, f"has NaN or inf entries (the first in {where})")
    return array


def _memmap_npy(f: Any) -> np.ndarray:
    """The array of an open .npy file, memory-mapped read-only (what ``np.load(mmap_mode="r")``
    does for a path; here for a file opened through the store's directory handle)."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f"npy format version {version} is not supported")
    if dtype.hasobject:
        raise ValueError("holds Python objects (pickled), which a store never does")
    if 0 in shape:
        return np.empty(shape, dtype)
    order = "F" if fortran else "C"
    return np.memmap(f, dtype=dtype, mode="r", shape=shape, order=order, offset=f.tell())
