"""MkDocs hook: the source tree the API reference reads, laid out as Python imports it.

pyproject maps ``circuitlab.analysis`` to the top-level ``analysis/`` folder and
``circuitlab.app`` to ``app/`` (package-dir), which the docs' source reader does not follow. Before
each build this hook writes ``build/api-src/circuitlab/``: a link to each entry of
``circuitlab/`` plus ``analysis`` and ``app`` linked in; mkdocs.yml points mkdocstrings there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "build" / "api-src"
MAPPED = {"analysis": ROOT / "analysis", "app": ROOT / "app"}


def lay_out() -> Path:
    package = SOURCE / "circuitlab"
    if SOURCE.exists():
        shutil.rmtree(SOURCE)
    package.mkdir(parents=True)
    for entry in (ROOT / "circuitlab").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, target in MAPPED.items():
        (package / name).symlink_to(target)
    return SOURCE


def on_startup(command, dirty):  # noqa: ANN001, ANN201 (MkDocs' hook signature)
    lay_out()
