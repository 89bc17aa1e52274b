"""Typed, checked dataclass configs: each field holds its declared type, numbers are finite and
in range, and a mapping read from a file becomes the dataclass (nested configs included) with
errors that name the bad field."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from typing import Any, TypeVar

__all__ = ["check_fields", "check_ranges", "from_dict"]

T = TypeVar("T")


def check_fields(config: Any) -> None:
    """Every field of a config dataclass has its declared type (an int where an int is due,
    not a bool, float or text) and every number is finite; ``ValueError`` names the first
    field that is not. Called first by the configs' ``__post_init__``, so a config built
    directly in Python is checked like one read from a file.

    Parameters
    ----------
    config
        A config dataclass.
    """
    name = type(config).__name__
    hints = typing.get_type_hints(type(config))
    for spec in dataclasses.fields(config):
        value = getattr(config, spec.name)
        if not _is_instance(value, hints[spec.name]):
            raise ValueError(
                f"{name}.{spec.name} must be {_type_name(hints[spec.name])}, got {value!r}"
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{name}.{spec.name} must be a finite number, got {value!r}")


def check_ranges(config: Any, **ranges: str) -> None:
    """``ranges`` maps field names to "positive" (> 0) or "non-negative" (>= 0); None values
    pass. ``ValueError`` names the first field out of its range.

    Parameters
    ----------
    config
        A config dataclass.
    **ranges
        As above.
    """
    for field_name, kind in ranges.items():
        value = getattr(config, field_name)
        if value is None:
            continue
        if (kind == "positive" and value <= 0) or (kind == "non-negative" and value < 0):
            raise ValueError(
                f"{type(config).__name__}.{field_name} must be {kind}"
                f"{' (> 0)' if kind == 'positive' else ' (>= 0)'}, got {value!r}"
            )


def from_dict(cls: type[T], values: dict[str, Any]) -> T:
    """``cls(**values)`` for a dataclass, naming any unknown key or value of the wrong type
    instead of a TypeError. A float field also takes a number written as text ("1e-3", which
    YAML reads as a string); a field whose type is a dataclass takes a mapping of its fields,
    read the same way (ValueError names the nested field, ``NACConfig.kernel.eps``).

    Parameters
    ----------
    cls
        The dataclass.
    values
        Its fields' values.
    """
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} fields {unknown}; known: {sorted(known)}")
    hints = typing.get_type_hints(cls)
    values = dict(values)
    for name, value in values.items():
        hint = hints[name]
        if dataclasses.is_dataclass(hint) and isinstance(value, dict):
            try:
                values[name] = value = from_dict(hint, value)
            except ValueError as err:
                raise ValueError(f"{cls.__name__}.{name}: {err}") from err
        if isinstance(value, str) and _accepts(hint, float) and not _accepts(hint, str):
            try:
                values[name] = value = float(value)
            except ValueError:
                pass
        if not _is_instance(value, hint):
            raise ValueError(f"{cls.__name__}.{name} must be {_type_name(hint)}, got {value!r}")
    return cls(**values)


def _accepts(hint: Any, kind: type) -> bool:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_accepts(arg, kind) for arg in typing.get_args(hint))
    return hint is kind


def _is_instance(value: Any, hint: Any) -> bool:
    """isinstance for the field types used here: int, float (an int will do), bool, str, None,
    unions of them, and generic containers (checked by their container type)."""
    if hint is Any:
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_is_instance(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, typing.get_origin(hint) or hint)


def _type_name(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_type_name(arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return "null"
    return getattr(typing.get_origin(hint) or hint, "__name__", str(hint))
