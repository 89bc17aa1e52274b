"""Pins, groups and notes that travel: the view's JSON round trip, its checks against a store's
circuits, and the sidecar files written beside a store without touching its own."""

import hashlib
import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circuitlab.app.view_notes import (
    FORMAT,
    VERSION,
    ViewNotes,
    load_view,
    save_view,
    saved_views,
    view_file,
)
from circuitlab.errors import InputError

U = 12  # modules of the circuits these views are for


def test_pins_toggle_and_groups_take_their_members_from_other_groups():
    view = ViewNotes().toggle_pin(3).toggle_pin(1).toggle_pin(3).toggle_link(7, 2)
    assert view.pinned == (1,) and view.pinned_links == ((2, 7),)
    assert view.toggle_link(2, 7).pinned_links == ()
    view = view.with_group("counting", [4, 1, 4]).with_group("sides", [5, 6])
    view = view.with_note("group counting", "reads the cardinal").with_note("module 5", "left")
    assert view.groups == (("counting", (1, 4)), ("sides", (5, 6)))
    assert view.group_of(4) == "counting" and view.group_of(9) is None
    moved = view.with_group("sides", [4, 5])  # 4 leaves counting, which keeps 1
    assert dict(moved.groups) == {"counting": (1,), "sides": (4, 5)}
    emptied = view.with_group("all", [1, 4, 5, 6])  # counting and sides are left empty: gone
    assert emptied.groups == (("all", (1, 4, 5, 6)),)
    assert dict(emptied.notes) == {"module 5": "left"}  # the gone group's note with it
    assert dict(view.without_group("counting").notes) == {"module 5": "left"}
    assert dict(view.with_note("module 5", "  ").notes) == {"group counting": "reads the cardinal"}
    with pytest.raises(InputError, match="name: a group name of 0 characters"):
        view.with_group("  ", [1])
    with pytest.raises(InputError, match="modules: a group needs at least one module"):
        view.with_group("none", [])
    with pytest.raises(InputError, match="text: a note of 2001 characters"):
        view.with_note("module 1", "x" * 2001)


views = st.builds(
    lambda pins, links, groups, notes, only: _built(pins, links, groups, notes, only),
    st.lists(st.integers(0, U - 1), max_size=6),
    st.lists(st.tuples(st.integers(0, U - 1), st.integers(0, U - 1)), max_size=5),
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=8).filter(str.strip),
            st.lists(st.integers(0, U - 1), min_size=1),
        ),
        max_size=3,
    ),
    st.lists(st.tuples(st.integers(0, U - 1), st.text(max_size=20)), max_size=4),
    st.booleans(),
)


def _built(pins, links, groups, notes, pinned_only) -> ViewNotes:
    view = ViewNotes(pinned_only=pinned_only)
    for module in pins:
        view = view.toggle_pin(module)
    for i, j in links:
        if i != j:
            view = view.toggle_link(i, j)
    for name, members in groups:
        view = view.with_group(name, members)
    for module, text in notes:
        view = view.with_note(f"module {module}", text)
    for name, _ in view.groups:
        view = view.with_note(f"group {name}", f"about {name}")
    return view


@settings(max_examples=60, deadline=None)
@given(views)
def test_any_view_survives_its_file_and_an_export_import_round_trip(view):
    data = view.to_json("pairs/nlvr2", "dev-12")
    assert data["format"] == FORMAT and data["version"] == VERSION
    assert ViewNotes.from_json(data, U) == view
    assert ViewNotes.from_json(json.dumps(data), U) == view  # the exported file's text


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"format": "something"}, "not a circuitlab view file"),
        ({"version": VERSION + 1}, "written by a newer circuitlab"),
        ({"pinned": [3, U]}, f"pinned names module\\(s\\) \\[{U}\\]"),
        ({"pinned": ["3"]}, "pinned must be a list of module numbers"),
        ({"pinned_links": [[2, 2]]}, "a pinned link that is not two different modules"),
        ({"groups": {"a": [1, 2], "b": [2, 3]}}, r"module\(s\) \[2\] in two groups"),
        ({"notes": {"module 99": "x"}}, "a note on 'module 99'"),
        ({"notes": {"group nobody": "x"}}, "a note on 'group nobody'"),
        ({"pinned_only": "yes"}, "pinned_only must be true or false"),
    ],
)
def test_a_view_this_store_cannot_have_is_refused_naming_what(change, says):
    data = {**ViewNotes().toggle_pin(1).to_json("nlvr/nlvr", None), **change}
    with pytest.raises(InputError, match=says) as caught:
        ViewNotes.from_json(data, U)
    assert caught.value.argument == "view"
    with pytest.raises(InputError, match="view: not JSON"):
        ViewNotes.from_json("{not json", U)


def test_a_file_written_before_pinned_only_draws_every_module_and_reshapes_by_its_groups():
    data = ViewNotes().toggle_pin(1).to_json("nlvr/nlvr", None)
    del data["pinned_only"]
    view = ViewNotes.from_json(data, U)
    assert not view.pinned_only and not view.reshapes  # a pin alone only marks its module
    assert replace(view, pinned_only=True).reshapes
    assert not ViewNotes(pinned_only=True).reshapes  # nothing pinned: every module drawn
    assert view.with_group("g", [2]).reshapes
    assert view.with_group("g", [2, 3]).pinned_modules == {1, 2, 3}  # members count as pinned
    assert ViewNotes().toggle_link(4, 2).pinned_modules == {2, 4}


def test_saved_views_live_beside_the_store_and_never_touch_its_files(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "store.json").write_text('{"kind": "nac"}')
    (store / "circuits.npz").write_bytes(b"\x00" * 64)
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in store.iterdir()}
    view = ViewNotes().toggle_pin(2).with_group("g", [3, 4]).with_note("group g", "counts")
    path = save_view(store, "counting-v1", view.to_json("store", "7"))
    assert path == view_file(store, "counting-v1") == store / "views" / "counting-v1.json"
    save_view(store, "other", ViewNotes().to_json("store", None))
    after = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in store.iterdir() if p.is_file()
    }
    assert after == before and {p.name for p in store.iterdir()} == {*before, "views"}
    assert saved_views(store) == ["counting-v1", "other"]
    assert ViewNotes.from_json(load_view(store, "counting-v1"), U) == view
    with pytest.raises(InputError, match="no saved view 'gone'.*counting-v1, other"):
        load_view(store, "gone")
    for bad in ("../escape", "", "a/b", ".hidden", "x" * 61):
        with pytest.raises(InputError, match="name: the view name"):
            view_file(store, bad)
