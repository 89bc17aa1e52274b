"""Writing files so that a crash never leaves half of one, and hashing them."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# a leftover of a killed writer is removed once its process is gone, or after this long
STALE_AFTER_S = 24 * 3600


def write_atomic(target: Path, write: Callable[[Path], object]) -> None:
    """Write ``target`` through a temporary sibling file and rename it into place.

    ``write(tmp)`` writes the whole file to ``tmp``; a reader sees the old file or the new one,
    never part of one, and an exception leaves ``target`` as it was.
    """
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes, read ``chunk`` bytes at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def temporary_dir_beside(target: Path) -> Path:
    """A fresh hidden directory next to ``target`` (same file system, so renames are atomic),
    named ``.NAME.tmp-PID-...`` so that ``recover_leftovers`` knows whose it is."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-{os.getpid()}-", dir=target.parent))


def replace_dir(new: Path, target: Path) -> None:
    """Rename the directory ``new`` onto ``target``. An old ``target`` is moved aside first
    (``.NAME.old-PID``) and deleted after; if the process dies between the two renames,
    ``recover_leftovers`` puts the old one back. If another writer got there first, the
    other's directory stays and ``FileExistsError`` says so."""
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
    leftovers of processes that no longer run, or older than ``STALE_AFTER_S``, are touched."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(tmp|old)-(\d+)(-.*)?")
    if not target.parent.is_dir():
        return
    for leftover in sorted(target.parent.iterdir()):
        match = pattern.fullmatch(leftover.name)
        if not match or not leftover.is_dir():
            continue
        pid = int(match.group(2))
        stale = time.time() - leftover.stat().st_mtime > STALE_AFTER_S
        if pid == os.getpid() or (_running(pid) and not stale):
            continue
        if match.group(1) == "old" and not target.exists():
            os.replace(leftover, target)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
