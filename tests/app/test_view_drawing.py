"""Pins, groups and notes applied to a drawn circuit: the pinned subgraph, a group drawn as one
node with its links merged (the strongest kept), notes carried for the hover line, and the
page's controls changing the view (``callbacks.notes.changed_view``)."""

import pytest

from circuitlab.app.callbacks.circuit import node_text
from circuitlab.app.callbacks.notes import _uploaded_text, changed_view, note_target
from circuitlab.app.view_drawing import GROUP_PREFIX, draw_notes, notes_line
from circuitlab.app.view_notes import ViewNotes, page_view
from circuitlab.errors import InputError


def _node(i, x, y, role="processor"):
    return {
        "data": {"id": str(i), "label": str(i), "role": role, "color": "#123", "degree": 0},
        "position": {"x": x, "y": y},
        "classes": role,
    }


def _link(i, j, p, effect=None):
    data = {"id": f"{i}-{j}", "source": str(i), "target": str(j), "p": p, "effect": effect}
    return {"data": data, "classes": "link"}


def _elements():
    """Modules 0-4 on a line, an object t0 read by 1; links 0-1, 0-2, 1-2, 2-3, 1-3, 3-4."""
    nodes = [_node(i, 10.0 * i, 0.0) for i in range(5)]
    nodes.append(
        {
            "data": {"id": "t0", "label": "t0", "role": "object"},
            "position": {"x": -9, "y": 0},
            "classes": "token",
        }
    )
    read = {"data": {"id": "t0>1", "source": "t0", "target": "1", "effect": 0.2}, "classes": "read"}
    links = [
        _link(0, 1, 0.9),
        _link(0, 2, 0.6),
        _link(1, 2, 0.8),
        _link(2, 3, 0.7),
        _link(1, 3, 0.55),
        _link(3, 4, 0.95),
    ]
    return nodes + [read] + links


def _ids(elements, edges=False):
    return {e["data"]["id"] for e in elements if ("source" in e["data"]) == edges}


def test_a_group_is_one_node_at_its_members_mean_with_their_links_merged_strongest_kept():
    view = ViewNotes().with_group("pair", [1, 2]).with_note("group pair", "counts")
    drawn = draw_notes(_elements(), view)
    group = GROUP_PREFIX + "pair"
    assert _ids(drawn) == {"0", "3", "4", "t0", group}
    node = next(e for e in drawn if e["data"]["id"] == group)
    assert node["position"] == {"x": 15.0, "y": 0.0} and node["data"]["members"] == [1, 2]
    assert node["data"]["note"] == "counts" and "noted" in node["classes"]
    edges = {
        (e["data"]["source"], e["data"]["target"]): e["data"]
        for e in drawn
        if "source" in e["data"]
    }
    # 0-1 (0.9) and 0-2 (0.6) become one link, the stronger's P; 1-2 is inside the group
    assert edges[("0", group)]["p"] == 0.9
    assert edges[(group, "3")]["p"] == 0.7  # 2-3 beats 1-3
    assert edges[("t0", group)]["effect"] == 0.2 and edges[("3", "4")]["p"] == 0.95
    assert len(edges) == 4 and node["data"]["degree"] == 3
    hover = node_text(node["data"])
    assert hover == "group pair (modules 1, 2): 3 links in this view · note: counts"
    assert notes_line(view, drawn) == "; grouped: pair (2)"


def test_pinned_only_keeps_the_pinned_modules_their_links_and_what_they_read():
    view = ViewNotes(pinned_only=True).toggle_pin(1).toggle_link(3, 2).with_note("module 3", "x")
    drawn = draw_notes(_elements(), view)
    assert _ids(drawn) == {"1", "2", "3", "t0"}
    assert _ids(drawn, edges=True) == {"1-2", "2-3", "1-3", "t0>1"}
    pinned = {e["data"]["id"] for e in drawn if "pinned" in e.get("classes", "")}
    assert pinned == {"1", "2-3"}  # the module pinned, and the link (2-3, either order)
    three = next(e["data"] for e in drawn if e["data"]["id"] == "3")
    assert three["note"] == "x" and "note: x" in node_text({**three, "degree": 2})
    assert notes_line(view, drawn) == "; only the 3 pinned modules' subgraph"
    # not pinned only: every element drawn, the pins marked, every node's note key present
    everything = draw_notes(_elements(), ViewNotes().toggle_pin(1))
    assert len(everything) == len(_elements())
    assert all("note" in e["data"] for e in everything if "source" not in e["data"])
    assert notes_line(ViewNotes(pinned_only=True), everything) == (
        "; nothing pinned: every module drawn"
    )


def test_a_group_whose_members_are_not_drawn_is_not_drawn():
    drawn = draw_notes(_elements(), ViewNotes().with_group("far", [7, 8]))
    assert GROUP_PREFIX + "far" not in _ids(drawn)
    assert notes_line(ViewNotes().with_group("far", [7, 8]), drawn) == ""


def test_the_pages_buttons_change_the_view_as_asked():
    linked = ViewNotes().toggle_pin(3).toggle_link(5, 2)
    grouped = changed_view(linked.toggle_pin(4), "group-make", group_name="counting")
    assert grouped.groups == (("counting", (3, 4)),) and grouped.pinned == ()
    assert grouped.pinned_modules == {2, 3, 4, 5}  # the group and the pinned link's ends
    second = changed_view(grouped.toggle_pin(7), "group-make", group_name="other")
    assert dict(second.groups) == {"counting": (3, 4), "other": (7,)}
    assert changed_view(grouped, "view-save") is None  # not a control that changes it
    noted = changed_view(grouped, "note-save", note=("group counting", "counts"))
    assert dict(noted.notes) == {"group counting": "counts"}
    assert changed_view(noted, "pinned-only", pinned_only=["on"]).pinned_only
    assert changed_view(noted, "group-remove", group_name=" counting ").groups == ()
    with pytest.raises(InputError, match="no module pinned"):
        changed_view(ViewNotes(), "group-make", group_name="g")
    with pytest.raises(InputError, match="no group 'nope'; one of: counting"):
        changed_view(noted, "group-remove", group_name="nope")
    with pytest.raises(InputError, match="no module or group clicked"):
        changed_view(noted, "note-save", note=(None, "text"))
    assert note_target({"id": "12"}) == "module 12"
    assert note_target({"id": GROUP_PREFIX + "a b"}) == "group a b"
    assert note_target({"id": "t2"}) is None


def test_the_pages_store_reads_as_an_empty_view_when_it_holds_none_or_a_forged_one():
    assert page_view(None, 5) == ViewNotes()
    assert page_view({"name": None, "view": {"format": "other"}}, 5) == ViewNotes()
    view = ViewNotes().toggle_pin(2)
    assert page_view({"name": "x", "view": view.to_json("s", None)}, 5) == view


def test_an_uploaded_file_that_is_not_text_is_refused_naming_the_view():
    assert _uploaded_text("data:application/json;base64,eyJhIjogMX0=") == '{"a": 1}'
    for bad in (None, "no comma", "data:x;base64,%%%", "data:x;base64,//79"):
        with pytest.raises(InputError, match="view: not a JSON file"):
            _uploaded_text(bad)


def test_a_groups_merged_edges_of_each_kind_keep_ids_of_their_own():
    """A link and a forced link (drawn apart: ``mark_edits``) from two members to one module
    become two edges of the group: their ids must differ (cytoscape refuses a repeated id)."""
    forced = {"data": {"id": "forced-2-4", "source": "2", "target": "4", "p": None}}
    elements = [*_elements(), {**forced, "classes": "forced"}, _link(1, 4, 0.7)]
    drawn = draw_notes(elements, ViewNotes().with_group("pair", [1, 2]))
    ids = [e["data"]["id"] for e in drawn]
    assert len(ids) == len(set(ids))
    group = GROUP_PREFIX + "pair"
    into_four = [
        e for e in drawn if e["data"].get("target") == "4" and e["data"]["source"] == group
    ]
    assert sorted(e["classes"] for e in into_four) == ["forced", "link"]
