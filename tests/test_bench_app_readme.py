"""The app bench times the command the README's ``make demo`` serves, not another."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from app_readme import README_ARGS  # noqa: E402


def makefile_serve_args() -> tuple[str, ...]:
    """The arguments of ``circuitlab`` on the Makefile's ``serve=`` line, its variables
    replaced by their defaults."""
    text = (ROOT / "Makefile").read_text()
    defaults = dict(re.findall(r"^(\w+) \?= (\S+)$", text, flags=re.MULTILINE))
    (line,) = re.findall(r'serve="\$\(VENV\)/bin/circuitlab ([^"]+)"', text)
    line = re.sub(r"\$\((\w+)\)", lambda m: defaults[m.group(1)], line)
    return tuple(shlex.split(line))


def test_bench_serves_what_make_demo_prints():
    assert makefile_serve_args() == README_ARGS
