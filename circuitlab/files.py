"""Writing files so that a crash never leaves half of one, hashing them, and finding a run's
checkpoint file (without importing torch: the app checks its paths before loading a model)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: writers are not locked against each other
    fcntl = None

__all__ = [
    "CHECKPOINT",
    "DirectorySnapshot",
    "being_replaced",
    "checkpoint_file",
    "file_sha256",
    "recover_leftovers",
    "replace_dir",
    "temporary_dir_beside",
    "write_atomic",
    "writer_lock",
]

# reading through a handle on the directory (os.open(name, dir_fd=...)): POSIX
DIRECTORY_HANDLES = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")

CHECKPOINT = "checkpoint.pt"  # a run directory's checkpoint file

# a leftover of a killed writer is removed once its process is gone, or after this long
STALE_AFTER_S = 24 * 3600


def write_atomic(target: Path, write: Callable[[Path], object]) -> None:
    """Write ``target`` through a temporary sibling file and rename it into place.

    ``write(tmp)`` writes the whole file to ``tmp``; a reader sees the old file or the new one,
    never part of one, and an exception leaves ``target`` as it was.

    Parameters
    ----------
    target
        The file.
    write
        As above.
    """
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes, read ``chunk`` bytes at a time.

    Parameters
    ----------
    path
        The file.
    chunk
        Bytes read at a time.
    """
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def temporary_dir_beside(target: Path) -> Path:
    """A fresh hidden directory next to ``target`` (same file system, so renames are atomic),
    named ``.NAME.tmp-PID-...`` so that ``recover_leftovers`` knows whose it is.

    Parameters
    ----------
    target
        The directory the new one will replace.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-{os.getpid()}-", dir=target.parent))


def replace_dir(new: Path, target: Path) -> None:
    """Rename the directory ``new`` onto ``target``. An old ``target`` is moved aside first
    (``.NAME.old-PID``) and deleted after; if the process dies between the two renames,
    ``recover_leftovers`` puts the old one back. If another writer got there first, the
    other's directory stays and ``FileExistsError`` says so.

    Parameters
    ----------
    new
        The directory written.
    target
        Where it goes.
    """
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    moved = False
    try:
        if target.exists():
            os.replace(target, old)
            moved = True
        os.replace(new, target)
    except OSError as err:
        if moved and not target.exists():
            os.replace(old, target)  # put the old one back
        elif moved:
            shutil.rmtree(old, ignore_errors=True)  # another writer's newer directory is there
        raise FileExistsError(
            f"{target} was being replaced by another process at the same time; "
            f"its version was kept: write again if yours should win ({err.strerror})"
        ) from err
    if moved:
        shutil.rmtree(old, ignore_errors=True)


def recover_leftovers(target: Path) -> None:
    """Clean up after writers of ``target`` that were killed: their ``.NAME.tmp-PID-...``
    directories are removed, and an ``.NAME.old-PID`` one is renamed back onto ``target`` when
    ``target`` is missing (the writer died between its two renames) or else removed. Only
    leftovers of processes that no longer run, or older than ``STALE_AFTER_S``, are touched.

    Parameters
    ----------
    target
        The directory whose writers' leftovers are cleaned up.
    """
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(tmp|old)-(\d+)(-.*)?")
    if not target.parent.is_dir():
        return
    for leftover in sorted(target.parent.iterdir()):
        match = pattern.fullmatch(leftover.name)
        if not match or not leftover.is_dir():
            continue
        pid = int(match.group(2))
        try:
            stale = time.time() - leftover.stat().st_mtime > STALE_AFTER_S
            if pid == os.getpid() or (_running(pid) and not stale):
                continue
            if match.group(1) == "old" and not target.exists():
                os.replace(leftover, target)
            else:
                shutil.rmtree(leftover, ignore_errors=True)
        except FileNotFoundError:  # its writer (or another cleaner) removed it meanwhile
            continue


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextmanager
def writer_lock(target: Path) -> Iterator[None]:
    """Hold the exclusive lock of ``target``'s writers while the block runs: flock on the
    folder that holds ``target`` (no lock file left behind; released by the system if the
    process dies). Every writer that replaces ``target`` takes it, so their replaces never
    interleave; writers of other entries of the same folder wait their turn too (the lock is
    held for renames and small files only).

    Parameters
    ----------
    target
        The entry whose writers are serialised.
    """
    if fcntl is None:
        yield
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class DirectorySnapshot:
    """The files of one directory, read through a handle on the directory itself.

    A writer that renames the directory away and puts another in its place (``replace_dir``)
    cannot mix its files into what is read here: names are looked up in the directory that was
    opened, and a file deleted from it since is ``FileNotFoundError``, never the new
    directory's file; ``is_current()`` then tells whether the path now names another
    directory. Without directory handles (Windows) files are read by path. Names must be plain
    file names (no separators, not ``..``): check them before ``open``.

    Parameters
    ----------
    path
        The directory.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY) if DIRECTORY_HANDLES else None

    def open(self, name: str) -> BinaryIO:
        """The file ``name`` of the directory, opened for binary reading."""
        if self._fd is None:
            return (self.path / name).open("rb")
        return os.fdopen(os.open(name, os.O_RDONLY, dir_fd=self._fd), "rb")

    def is_current(self) -> bool:
        """Whether the path still names the directory this snapshot reads."""
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return False
        if self._fd is None:
            return True
        mine = os.fstat(self._fd)
        return (now.st_ino, now.st_dev) == (mine.st_ino, mine.st_dev)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> DirectorySnapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def being_replaced(target: Path) -> bool:
    """Whether a writer is between the two renames of ``replace_dir`` on ``target`` (its old
    directory moved aside, the new one not yet in place).

    Parameters
    ----------
    target
        The directory a writer replaces.
    """
    if not target.parent.is_dir():
        return False
    prefix = f".{target.name}.old-"
    return any(p.name.startswith(prefix) for p in target.parent.iterdir())


def checkpoint_file(path: str | os.PathLike) -> Path:
    """The checkpoint of ``path``: a run directory's checkpoint.pt, or ``path`` itself.

    Parameters
    ----------
    path
        A run directory or a checkpoint file.
    """
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: give a run directory of circuitlab train or its {CHECKPOINT}"
        )
    return path
