"""Pins, groups and notes on a circuit's drawing, in one JSON form that travels: kept in the
page, written beside a store as a sidecar file (``STORE/views/NAME.json``; the store's own files
are never rewritten), read back, and exported and imported as the same file, so that another
person opens the same view.

A view's notes (``ViewNotes``):

- ``pinned``: modules pinned into a subgraph; ``pinned_links``: links pinned (low end first);
- ``groups``: named groups of modules, each to be drawn as one node; a module is in at most one;
- ``notes``: text on a module (``"module 3"``) or a group (``"group NAME"``);
- ``pinned_only``: draw only the pinned subgraph (the pinned modules, the ends of the pinned
  links, and the drawn edges among them).

The file (``VERSION`` 1)::

    {"format": "circuitlab-view", "version": 1, "store": "pairs/nlvr2", "circuit": "dev-12",
     "pinned": [3, 7], "pinned_links": [[3, 7]], "groups": {"counting": [1, 4]},
     "notes": {"module 3": "reads the cardinal", "group counting": "..."},
     "pinned_only": false}

``pinned_only`` came after the first files of version 1: a file without it reads as false.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from circuitlab.errors import InputError
from circuitlab.files import write_atomic

__all__ = [
    "FORMAT",
    "VERSION",
    "ViewNotes",
    "load_view",
    "page_view",
    "save_view",
    "saved_views",
    "view_file",
]

FORMAT = "circuitlab-view"
VERSION = 1
VIEWS_FOLDER = "views"  # inside a store's folder, beside its own files
MAX_NAME, MAX_NOTE = 60, 2000  # characters of a group's or saved view's name, and of a note
EXPORTED = "a view file circuitlab exported"
_VIEW_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,59}")


@dataclass(frozen=True)
class ViewNotes:
    """The pins, groups and notes of one view (see the module's docstring); immutable: each
    change returns a new one.

    Parameters
    ----------
    pinned, pinned_links, groups, notes, pinned_only
        As above: modules (sorted), links (sorted, low end first), (name, sorted members) pairs
        in the order made, (target, text) pairs sorted by target, whether only the pinned
        subgraph is drawn.
    """

    pinned: tuple[int, ...] = ()
    pinned_links: tuple[tuple[int, int], ...] = ()
    groups: tuple[tuple[str, tuple[int, ...]], ...] = ()
    notes: tuple[tuple[str, str], ...] = ()
    pinned_only: bool = False

    @property
    def pinned_modules(self) -> set[int]:
        """The modules of the pinned subgraph: those pinned, the ends of pinned links and the
        groups' members (a group is made of pinned modules)."""
        grouped = {m for _, members in self.groups for m in members}
        return set(self.pinned) | {m for link in self.pinned_links for m in link} | grouped

    @property
    def reshapes(self) -> bool:
        """Whether the view draws other than the plain circuit: a group drawn as one node, or
        only the pinned subgraph."""
        return bool(self.groups) or (self.pinned_only and bool(self.pinned_modules))

    def toggle_pin(self, module: int) -> ViewNotes:
        """Pin ``module``, or unpin it if it is pinned.

        Parameters
        ----------
        module
            The module.
        """
        pinned = set(self.pinned) ^ {int(module)}
        return replace(self, pinned=tuple(sorted(pinned)))

    def toggle_link(self, i: int, j: int) -> ViewNotes:
        """Pin the link i-j (either order), or unpin it if it is pinned.

        Parameters
        ----------
        i, j
            Its two ends.
        """
        links = set(self.pinned_links) ^ {(min(int(i), int(j)), max(int(i), int(j)))}
        return replace(self, pinned_links=tuple(sorted(links)))

    def with_group(self, name: str, modules: list[int] | tuple[int, ...]) -> ViewNotes:
        """The group ``name`` made of ``modules`` (replacing a group of that name); its members
        leave any other group, and a group left empty goes.

        Parameters
        ----------
        name
            The group's name (1 to 60 characters).
        modules
            Its members (at least one).
        """
        name = _group_name(name)
        members = tuple(sorted({int(m) for m in modules}))
        if not members:
            raise InputError("modules", "a group needs at least one module", "pin or pick some")
        kept = []
        for other, others in self.groups:
            rest = tuple(m for m in others if m not in members)
            if other != name and rest:
                kept.append((other, rest))
        names = {other for other, _ in kept} | {name}
        notes = tuple(  # a group left empty goes, and its note with it
            (t, x) for t, x in self.notes if not (t.startswith("group ") and t[6:] not in names)
        )
        return replace(self, groups=(*kept, (name, members)), notes=notes)

    def without_group(self, name: str) -> ViewNotes:
        """The view without the group ``name`` (its members back as modules) and its note.

        Parameters
        ----------
        name
            The group.
        """
        groups = tuple((n, m) for n, m in self.groups if n != name)
        return replace(self, groups=groups, notes=self._without(f"group {name}"))

    def with_note(self, target: str, text: str) -> ViewNotes:
        """The note ``text`` on ``target`` ("module 3" or "group NAME"); empty text removes it.

        Parameters
        ----------
        target
            What the note is on.
        text
            The note (at most 2,000 characters).
        """
        if len(text) > MAX_NOTE:
            raise InputError("text", f"a note of {len(text)} characters", f"at most {MAX_NOTE}")
        notes = dict(self._without(target))
        if text.strip():
            notes[target] = text
        return replace(self, notes=tuple(sorted(notes.items())))

    def group_of(self, module: int) -> str | None:
        """The group ``module`` is in, or None.

        Parameters
        ----------
        module
            The module.
        """
        return next((name for name, members in self.groups if module in members), None)

    def _without(self, target: str) -> tuple[tuple[str, str], ...]:
        return tuple((t, x) for t, x in self.notes if t != target)

    def to_json(self, store: str, circuit: str | None) -> dict:
        """The view as its file's JSON (a dict), for the store ``store`` and circuit id
        ``circuit`` (None: any circuit of the store).

        Parameters
        ----------
        store, circuit
            As above.
        """
        return {
            "format": FORMAT,
            "version": VERSION,
            "store": store,
            "circuit": circuit,
            "pinned": list(self.pinned),
            "pinned_links": [list(link) for link in self.pinned_links],
            "groups": {name: list(members) for name, members in self.groups},
            "notes": dict(self.notes),
            "pinned_only": self.pinned_only,
        }

    @classmethod
    def from_json(cls, data: Any, n_modules: int) -> ViewNotes:
        """The view a file's JSON (a dict, or its text) holds, checked against a circuit of
        ``n_modules`` modules.

        Parameters
        ----------
        data
            ``to_json``'s form.
        n_modules
            The modules of the circuits it is for.

        Raises
        ------
        InputError
            (argument "view") not a view file, a newer version, or a module, link, group or
            note that this store's circuits cannot have.
        """
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except ValueError as err:
                raise InputError(
                    "view", f"not JSON ({err})", "a file circuitlab exported"
                ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError("view", "not a circuitlab view file", EXPORTED)
        if not isinstance(data.get("version"), int) or data["version"] > VERSION:
            raise InputError(
                "view",
                f"version {data.get('version')!r}, written by a newer circuitlab",
                f"upgrade circuitlab (this one reads version {VERSION})",
            )
        modules = _modules(data.get("pinned", []), n_modules, "pinned")
        links = [_modules(link, n_modules, "pinned_links") for link in data.get("pinned_links", [])]
        if any(len(link) != 2 or link[0] == link[1] for link in links):
            raise InputError("view", "a pinned link that is not two different modules", "")
        pinned_only = data.get("pinned_only", False)
        if not isinstance(pinned_only, bool):
            raise InputError("view", f"pinned_only must be true or false, got {pinned_only!r}", "")
        view = cls(
            pinned=tuple(sorted(set(modules))),
            pinned_links=tuple(sorted({(min(i, j), max(i, j)) for i, j in links})),
            pinned_only=pinned_only,
        )
        groups = data.get("groups", {})
        if not isinstance(groups, dict):
            raise InputError("view", "groups must map names to modules", "")
        seen: set[int] = set()
        for name, members in groups.items():
            members = _modules(members, n_modules, f"group {name!r}")
            if seen & set(members):
                raise InputError(
                    "view", f"module(s) {sorted(seen & set(members))} in two groups", ""
                )
            seen |= set(members)
            view = view.with_group(name, members)
        notes = data.get("notes", {})
        if not isinstance(notes, dict):
            raise InputError("view", "notes must map targets to text", "")
        for target, text in notes.items():
            _check_target(view, str(target), n_modules)
            view = view.with_note(str(target), str(text))
        return view


def page_view(data: dict | None, n_modules: int) -> ViewNotes:
    """The view the page holds (its ``view-notes`` store: ``{"name": saved name or None,
    "view": to_json's form}``; None: no view): an empty view where it holds none, or one this
    store's circuits cannot have (only a forged page state).

    Parameters
    ----------
    data
        The page's store.
    n_modules
        The store's modules.
    """
    if not data or not data.get("view"):
        return ViewNotes()
    try:
        return ViewNotes.from_json(data["view"], n_modules)
    except InputError:
        return ViewNotes()


def _group_name(name: str) -> str:
    name = str(name).strip()
    if not 0 < len(name) <= MAX_NAME:
        raise InputError("name", f"a group name of {len(name)} characters", f"1 to {MAX_NAME}")
    return name


def _modules(values: Any, n_modules: int, where: str) -> list[int]:
    """``values`` as module numbers in [0, n_modules); InputError naming ``where`` else."""
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise InputError("view", f"{where} must be a list of module numbers, got {values!r}", "")
    bad = [v for v in values if not 0 <= v < n_modules]
    if bad:
        raise InputError(
            "view", f"{where} names module(s) {bad}", f"modules 0 to {n_modules - 1} of this store"
        )
    return list(values)


def _check_target(view: ViewNotes, target: str, n_modules: int) -> None:
    """InputError unless ``target`` is "module i" of this store or "group NAME" of ``view``."""
    kind, _, what = target.partition(" ")
    if kind == "module" and what.isdigit() and int(what) < n_modules:
        return
    if kind == "group" and what in dict(view.groups):
        return
    raise InputError("view", f"a note on {target!r}", "notes go on 'module N' or 'group NAME'")


def view_file(store_folder: Path, name: str) -> Path:
    """Where the saved view ``name`` of the store in ``store_folder`` lives.

    Parameters
    ----------
    store_folder
        The store's folder.
    name
        The view's name: letters, digits, '_', '.', '-', at most 60, a letter or digit first.

    Raises
    ------
    InputError
        A name that could not be a file of its own in the views folder.
    """
    if not isinstance(name, str) or not _VIEW_NAME.fullmatch(name):
        raise InputError(
            "name", f"the view name {name!r}", "letters, digits, '_', '.', '-' (at most 60)"
        )
    return Path(store_folder) / VIEWS_FOLDER / f"{name}.json"


def save_view(store_folder: Path, name: str, view: dict) -> Path:
    """Write ``view`` (``ViewNotes.to_json``'s form) as the store's saved view ``name``,
    atomically, beside the store's own files (which it never touches); returns the file.

    Parameters
    ----------
    store_folder, name
        As ``view_file``.
    view
        The view's JSON.
    """
    path = view_file(store_folder, name)
    path.parent.mkdir(exist_ok=True)
    text = json.dumps(view, indent=1, sort_keys=True)
    write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


def saved_views(store_folder: Path) -> list[str]:
    """The names of the store's saved views, sorted.

    Parameters
    ----------
    store_folder
        The store's folder.
    """
    folder = Path(store_folder) / VIEWS_FOLDER
    return sorted(p.stem for p in folder.glob("*.json") if _VIEW_NAME.fullmatch(p.stem))


def load_view(store_folder: Path, name: str) -> dict:
    """The saved view ``name``'s JSON (check it with ``ViewNotes.from_json``).

    Parameters
    ----------
    store_folder, name
        As ``view_file``.

    Raises
    ------
    InputError
        No saved view of that name.
    """
    path = view_file(store_folder, name)
    if not path.is_file():
        saved = ", ".join(saved_views(store_folder)) or "none"
        raise InputError("name", f"no saved view {name!r}", f"one of this store's: {saved}")
    return json.loads(path.read_text(encoding="utf-8"))
