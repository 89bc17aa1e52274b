"""Writing files so that a crash never leaves half of one, and hashing them."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path


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
