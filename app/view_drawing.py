"""A view's pins, groups and notes (``view_notes.ViewNotes``) applied to a drawn circuit's
cytoscape elements: pinned modules and links marked, only the pinned subgraph kept on request,
each group's members drawn as one node (its links to the rest merged, the strongest kept), and
each note carried in its node's data for the hover line. Pure: elements in, elements out, so the
page, the exports and the tests draw the same thing."""

from __future__ import annotations

import numpy as np

from circuitlab.app.circuit_elements import UNNOTED
from circuitlab.app.view_notes import ViewNotes

__all__ = ["GROUP_PREFIX", "draw_notes", "notes_line"]

GROUP_PREFIX = "g:"  # a group node's id: "g:" and its name (never a module's number)
GROUP_COLOR = "#c7c7c7"


def draw_notes(elements: list[dict], view: ViewNotes) -> list[dict]:
    """``elements`` with ``view`` applied (see the module's docstring). A group whose members
    are not drawn is not drawn; an edge between two members of one group is drawn inside its
    node, so not at all.

    Parameters
    ----------
    elements
        A drawn view's cytoscape elements (modules' ids are their numbers; objects' "t3").
    view
        The pins, groups and notes.
    """
    notes = dict(view.notes)
    if view.pinned_only and view.pinned_modules:
        elements = _pinned_subgraph(elements, view.pinned_modules)
    pinned_links = {(str(i), str(j)) for i, j in view.pinned_links}
    marked = []
    for element in elements:
        data, classes = element["data"], element.get("classes", "")
        if "source" in data:
            ends = tuple(sorted((data["source"], data["target"]), key=_module_order))
            if ends in pinned_links:
                element = {**element, "classes": f"{classes} pinned".strip()}
        else:
            node = data["id"]
            pinned = node.isdigit() and int(node) in view.pinned
            note = notes.get(f"module {node}") if node.isdigit() else None
            # every node carries both keys (cytoscape merges an update into an element's data:
            # a note removed or a pin undone must not linger)
            data = {**data, **UNNOTED, "note": note, "pinned": pinned}
            extra = " pinned" * pinned + " noted" * (note is not None)
            element = {**element, "data": data, "classes": f"{classes}{extra}".strip()}
        marked.append(element)
    for name, members in view.groups:
        marked = _grouped(marked, name, members, notes.get(f"group {name}"))
    return marked


def notes_line(view: ViewNotes, elements: list[dict]) -> str:
    """What the count line adds for ``view`` over the drawn ``elements``: the pinned subgraph
    and the groups drawn ("" for a view with neither).

    Parameters
    ----------
    view
        The pins, groups and notes.
    elements
        The elements ``draw_notes`` drew.
    """
    parts = []
    if view.pinned_only and view.pinned_modules:
        parts.append(f"only the {len(view.pinned_modules)} pinned modules' subgraph")
    elif view.pinned_only:
        parts.append("nothing pinned: every module drawn")
    drawn = {e["data"]["id"] for e in elements if "source" not in e["data"]}
    groups = [
        f"{name} ({len(members)})" for name, members in view.groups if GROUP_PREFIX + name in drawn
    ]
    if groups:
        parts.append("grouped: " + ", ".join(groups))
    return "; " + "; ".join(parts) if parts else ""


def _module_order(node: str) -> tuple[int, str]:
    return (int(node), "") if node.isdigit() else (-1, node)


def _pinned_subgraph(elements: list[dict], modules: set[int]) -> list[dict]:
    """The pinned modules, the edges among them, and the objects they read."""
    kept = {str(m) for m in modules}
    edges = [
        e
        for e in elements
        if "source" in e["data"]
        and e["data"]["target"] in kept
        and (e["data"]["source"] in kept or not e["data"]["source"].isdigit())
    ]
    kept |= {e["data"]["source"] for e in edges}
    nodes = [e for e in elements if "source" not in e["data"] and e["data"]["id"] in kept]
    return nodes + edges


def _grouped(elements: list[dict], name: str, members: tuple[int, ...], note: str | None) -> list:
    """``elements`` with the drawn ``members`` as one node ``GROUP_PREFIX + name`` at their mean
    position; their edges to the rest merged (per other end and kind, the strongest kept:
    largest |effect|, else largest P); edges inside the group dropped."""
    ids = {str(m) for m in members}
    inside = [e for e in elements if "source" not in e["data"] and e["data"]["id"] in ids]
    if not inside:
        return elements
    node_id = GROUP_PREFIX + name
    rest = [e for e in elements if "source" not in e["data"] and e["data"]["id"] not in ids]
    merged: dict[tuple, dict] = {}
    for edge in (e for e in elements if "source" in e["data"]):
        data = edge["data"]
        source = node_id if data["source"] in ids else data["source"]
        target = node_id if data["target"] in ids else data["target"]
        if source == target:
            continue
        kind = edge.get("classes", "").split(" ")[0]  # link, read or forced (drawn apart)
        if source == node_id or target == node_id:
            edge_id = f"{source}-{target}" + ("" if kind == "link" else f"-{kind}")
            data = {**data, "id": edge_id, "source": source, "target": target}
            edge = {**edge, "data": data}
        key = (kind, *sorted((source, target)))
        if key not in merged or _strength(data) > _strength(merged[key]["data"]):
            merged[key] = edge
    x = float(np.mean([e["position"]["x"] for e in inside]))
    y = float(np.mean([e["position"]["y"] for e in inside]))
    degree = sum(node_id in (e["data"]["source"], e["data"]["target"]) for e in merged.values())
    group = {
        "data": {
            "id": node_id,
            "label": name,
            "role": "group",
            "color": GROUP_COLOR,
            "degree": degree,
            "members": sorted(int(e["data"]["id"]) for e in inside),
            "edit": None,
            "effect": None,
            "note": note,
            "pinned": False,
        },
        "position": {"x": x, "y": y},
        "classes": "group" + " noted" * (note is not None),
    }
    return [*rest, group, *merged.values()]


def _strength(data: dict) -> float:
    effect = data.get("effect")
    return abs(effect) + 1.0 if effect is not None else float(data.get("p") or 0.0)
