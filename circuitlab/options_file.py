"""Training-option files (YAML, or JSON, which YAML reads) that may build on another one.

A file with a ``base`` key holds only what differs from the file it names (a path relative to
the file itself). Its options replace the base's, except mappings (``model``,
``task_options``), which are merged key by key: ``model: {depth: 4}`` changes the depth and
keeps every other model option of the base. A base may have a base of its own; a cycle is an
error. ``circuitlab train --config`` and the benches read configs through ``read_options``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from circuitlab.config_groups import nest_flat_names
from circuitlab.kinds import DEFAULT, nac

__all__ = ["merge_options", "read_options"]

BASE = "base"


def merge_options(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``: mappings present in both merge key by key (recursively),
    any other value in ``override`` replaces the base's. Neither input is changed.

    Parameters
    ----------
    base, override
        As above.
    """
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_options(merged[key], value)
        else:
            merged[key] = value
    return merged


def read_options(path: str | os.PathLike) -> dict[str, Any]:
    """The options of the file at ``path`` with its chain of ``base`` files resolved (the
    returned mapping has no ``base`` key). Raises FileNotFoundError for a missing file (naming
    the file whose ``base`` points at it) and ValueError for invalid YAML, a file that does not
    hold a mapping, a ``base`` that is not a path, or a cycle of bases.

    Parameters
    ----------
    path
        The config file (YAML or JSON).
    """
    return _read(Path(path), referrer=None, seen=())


def _read(path: Path, referrer: Path | None, seen: tuple[Path, ...]) -> dict[str, Any]:
    resolved = path.resolve()
    if resolved in seen:
        chain = " -> ".join(str(p) for p in (*seen, resolved))
        raise ValueError(f"config bases form a cycle: {chain}; remove one 'base'")
    if not path.is_file():
        named = f" (the base of {referrer})" if referrer is not None else ""
        raise FileNotFoundError(f"{path} does not exist{named}")
    try:
        values = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ValueError(f"{path} is not valid YAML: {err}") from err
    if not isinstance(values, dict):
        raise ValueError(f"{path} must hold a mapping of options, not {type(values).__name__}")
    inherited: dict[str, Any] = {}
    if BASE in values:
        base = values.pop(BASE)
        if not isinstance(base, str) or not base:
            raise ValueError(
                f"{path}: 'base' must be the path of another config file, got {base!r}"
            )
        inherited = _read(path.parent / base, referrer=path, seen=(*seen, resolved))
    kind = values.get("model_kind", inherited.get("model_kind", DEFAULT))
    if kind == nac.NAME and isinstance(values.get("model"), dict):
        # a NAC's options written with the flat names of earlier versions (eps: 0.2) merge
        # with a base written in groups (kernel: {eps: 0.2}) as the same option
        values["model"] = nest_flat_names(values["model"])
    return merge_options(inherited, values)
