"""Every element the circuit panel draws, as cytoscape elements at the store's module layout:
one circuit's links (by threshold or top-k), its modules coloured by module or community
(``CircuitElements``), the links that differ between two circuits, the same coloured by the
shown example's attribution (``attribution_elements``), the decisive circuit with its reads and
the objects they read (``decisive_elements``, the view "what decides"), and the visitor's
edits marked on any of them (``mark_edits``).

Every attributed edge is coloured and sized by its effect (red: cutting it lowers p(answer),
blue: raises it): links into the read-outs and reads as much as links among processors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib import colormaps

from circuitlab.analysis.communities import communities
from circuitlab.analysis.graphs import to_graph
from circuitlab.analysis.layout import module_colors
from circuitlab.app.store_statistics import within_z
from circuitlab.circuit import Circuit, links_graph
from circuitlab.edits import CircuitEdit

if TYPE_CHECKING:
    from circuitlab.decisive import DecisiveCircuit

__all__ = [
    "CircuitElements",
    "TOKEN_PREFIX",
    "TooManyEdges",
    "UNEDITED",
    "UNNOTED",
    "attribution_elements",
    "decisive_elements",
    "mark_edits",
    "shade",
]

LAYOUT_SCALE = 260  # cytoscape pixels per layout unit
# the data keys an edit or the attribution view sets on a drawn element, at their "none" value
UNEDITED = {"edit": None, "effect": None}
# and on every module: no note, not pinned (``circuitlab.app.view_drawing`` sets them)
UNNOTED = {"note": None, "pinned": False}
SUPPORTS, OPPOSES = (214, 39, 40), (31, 119, 180)  # red, blue


def shade(value: float, scale: float) -> str:
    """A colour from white (no effect) to red (cutting it lowers p(answer): it supports the
    answer) or blue (it works against it), full at ``abs(value) >= scale``.

    Parameters
    ----------
    value, scale
        An effect on p(answer) and the effect drawn at full colour.
    """
    strength = min(1.0, abs(value) / scale) if scale > 0 else 0.0
    target = SUPPORTS if value >= 0 else OPPOSES
    r, g, b = (round(255 + (c - 255) * (0.15 + 0.85 * strength)) for c in target)
    return f"#{r:02x}{g:02x}{b:02x}"


class TooManyEdges(ValueError):
    """A circuit view would draw more edges than the guard allows."""


class CircuitElements:
    """Draws a store's circuits. ``positions``: (U, 2) module layout (layout units);
    ``colors``: U module colours; ``roles``: U module roles; ``max_edges``: the drawing guard.

    Parameters
    ----------
    positions, colors, roles, max_edges
        As above.
    """

    def __init__(
        self, positions: np.ndarray, colors: list[str], roles: np.ndarray, max_edges: int
    ) -> None:
        self.positions, self.colors, self.roles = positions, colors, roles
        self.n_modules = len(colors)
        self.max_edges = max_edges

    def elements(
        self, source: Circuit | np.ndarray, threshold: float, top_k: int | None, color_by: str
    ) -> tuple[list[dict], int]:
        """Cytoscape elements of ``source`` (a Circuit, or a (U, U) P such as a category's
        mean) and its number of links: the links with P > ``threshold``, or each module's
        ``top_k`` strongest; modules coloured by module or by ``color_by`` "community".
        TooManyEdges when the links would pass ``max_edges``."""
        roles = self.roles
        if top_k is not None:
            graph = to_graph(
                source, top_k=top_k, roles=None if isinstance(source, Circuit) else roles
            )
        else:
            graph = to_graph(
                source, threshold=threshold, roles=None if isinstance(source, Circuit) else roles
            )
        if graph.number_of_edges() > self.max_edges:
            raise TooManyEdges(
                f"{graph.number_of_edges()} links at this setting; the view draws at most "
                f"{self.max_edges}: raise the threshold or use top-k"
            )
        colors = self.colors
        if color_by == "community":
            palette = module_colors(20)
            colors = [""] * self.n_modules
            for c, members in enumerate(communities(graph)):
                for node in members:
                    colors[node] = palette[c % 20]
        elements = self.nodes(graph, colors)
        elements += [
            {
                "data": {
                    "id": f"{i}-{j}",
                    "source": str(i),
                    "target": str(j),
                    "p": round(d["p"], 4),
                    "width": 0.5 + 4 * d["p"],
                    # cytoscape merges an update into an element's data, keeping keys the update
                    # lacks: without these, a link restored by undo would still hover "(cut)"
                    # and one drawn after the attribution view its old effect
                    **UNEDITED,
                },
                # a base class on every link: cytoscape keeps an element's old classes when an
                # update carries none, so a reset would leave a cut link drawn as cut
                "classes": "link",
            }
            for i, j, d in graph.edges(data=True)
        ]
        return elements, graph.number_of_edges()

    def nodes(self, graph, colors: list[str]) -> list[dict]:
        """The modules of ``graph`` (with its nodes' role and degree) at the store's layout."""
        return [
            {
                "data": {
                    "id": str(i),
                    "label": str(i),
                    "role": d["role"],
                    "color": colors[i],
                    "degree": d["degree"],
                    **UNEDITED,
                    **UNNOTED,
                },
                "position": {
                    "x": float(self.positions[i, 0] * LAYOUT_SCALE),
                    "y": float(self.positions[i, 1] * LAYOUT_SCALE),
                },
                "classes": d["role"],
            }
            for i, d in graph.nodes(data=True)
        ]

    def difference(
        self, p: np.ndarray, q: np.ndarray, scale: str = "z"
    ) -> tuple[list[dict], int, int]:
        """Links that differ between the (U, U) P ``p`` and the reference ``q``: by ``scale`` "z",
        each circuit's off-diagonal P z-scored within itself first (overall density factored
        out), links whose z moves by at least 0.5; by "p", links whose P moves by at least
        0.05. Colour on a red (gained) / blue (lost) scale, width by the change. Returns the
        elements and the numbers of links gained and lost."""
        if scale == "z":
            delta, min_change, full = np.triu(within_z(p) - within_z(q), k=1), 0.5, 3.0
        else:
            delta, min_change, full = np.triu(p - q, k=1), 0.05, 1.0
        rows, cols = np.nonzero(np.abs(delta) >= min_change)
        colours = colormaps["RdBu_r"]
        edges = []
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
            d = float(delta[i, j])
            rgb = colours(0.5 + 0.5 * float(np.clip(d / full, -1, 1)))[:3]
            edges.append(
                {
                    "data": {
                        "id": f"d{i}-{j}",
                        "source": str(i),
                        "target": str(j),
                        "p": round(d, 4),
                        "width": 0.5 + 6 * min(abs(d) / full, 1.0),
                        "color": "#{:02x}{:02x}{:02x}".format(*(int(255 * c) for c in rgb)),
                    }
                }
            )
        no_links = np.zeros_like(p, dtype=bool)
        nodes = self.nodes(links_graph(p, no_links, self.roles), self.colors)
        gained = int(np.sum(delta[rows, cols] > 0))
        return nodes + edges, gained, len(edges) - gained


def attribution_elements(
    elements: list[dict], attribution: Any, p: np.ndarray, minimal_only: bool
) -> list[dict]:
    """The drawing's elements coloured by ``attribution``: each link's ``effect`` (and colour,
    width), each module's; with ``minimal_only`` the links are those of the minimal circuit,
    drawn whatever their P (``p`` (U, U), the shown circuit's).

    Parameters
    ----------
    elements
        The drawing's elements.
    attribution
        The shown example's ``ExampleAttribution`` (``Intervener.attribution``).
    p, minimal_only
        As above.
    """
    scale = max(
        float(np.nanmax(np.abs(attribution.link_effect))),
        float(np.nanmax(np.abs(np.nan_to_num(attribution.module_effect)))),
        1e-6,
    )
    nodes = [e for e in elements if "source" not in e["data"]]
    if minimal_only:
        edges = []
        for i, j in attribution.links[attribution.minimal]:
            data = {
                "id": f"{i}-{j}",
                "source": str(i),
                "target": str(j),
                "p": round(float(p[i, j]), 4),
                **UNEDITED,
            }
            edges.append({"data": data, "classes": "link"})
    else:
        edges = [e for e in elements if "source" in e["data"]]
    out = []
    for node in nodes:
        effect = attribution.module_effect[int(node["data"]["id"])]
        data = {**node["data"], "effect": None if np.isnan(effect) else round(float(effect), 4)}
        data["color"] = shade(0.0 if np.isnan(effect) else float(effect), scale)
        out.append({**node, "data": data})
    for edge in edges:
        data = edge["data"]
        effect = attribution.effect_of(int(data["source"]), int(data["target"]))
        effect = 0.0 if effect is None else effect
        data = {**data, "effect": round(effect, 4), "color": shade(effect, scale)}
        data["width"] = 1.0 + 7.0 * min(1.0, abs(effect) / scale)
        out.append({**edge, "data": data, "classes": f"{edge.get('classes', 'link')} attributed"})
    return out


def mark_edits(elements: list[dict], edit: CircuitEdit) -> list[dict]:
    """The drawing's elements with cut and forced links and knocked-out modules classed (new
    dicts for those: the view's elements are cached and shared); forced links below the
    threshold added.

    Parameters
    ----------
    elements
        The drawing's elements.
    edit
        The visitor's edit.
    """
    if not edit:
        return elements
    cut, forced = set(edit.cut), set(edit.forced)
    knocked = {str(m) for m in edit.knocked_out}
    marked, drawn = [], set()
    for element in elements:
        data, tag = element["data"], None
        if "source" in data and not str(data["source"]).isdigit():  # a read: no edit reaches it
            marked.append(element)
            continue
        if "source" in data:
            ends = tuple(sorted((int(data["source"]), int(data["target"]))))
            drawn.add(ends)
            tag = "cut" if ends in cut else "forced" if ends in forced else None
        elif data["id"] in knocked:
            tag = "knocked"
        if tag:
            classes = f"{element.get('classes', '')} {tag}".strip()
            element = {**element, "data": {**data, "edit": tag}, "classes": classes}
        marked.append(element)
    # a forced link below the threshold is not drawn: draw it, as forced
    for i, j in sorted(forced - drawn - cut):
        data = {"id": f"forced-{i}-{j}", "source": str(i), "target": str(j), "width": 2}
        data.update(p=None, edit="forced")
        marked.append({"data": data, "classes": "forced"})
    return marked


TOKEN_PREFIX = "t"  # an object's node id: "t" and its token index (modules are plain numbers)
READ_PREFIX = "r"  # a read's edge id: "r", the processor, "-", the token index
TOKEN_COLUMN = 0.6  # layout units left of the leftmost module where the objects stand


def decisive_elements(
    renderer: CircuitElements, decisive: DecisiveCircuit, p: np.ndarray, object_names: list[str]
) -> list[dict]:
    """Cytoscape elements of ``decisive``: the modules it touches and every read-out at the
    store's layout, the objects its reads read in a column on the left, its links (``p`` (U, U)
    the shown circuit's P, for the hover) and reads, each edge's ``effect`` its score.

    Parameters
    ----------
    renderer
        The store's element renderer (layout, colours, roles).
    decisive
        The shown example's decisive circuit.
    p
        (U, U) the shown circuit's link probabilities.
    object_names
        One name per object token, in token order (a null token, last, has none).
    """
    object_names = _numbered(object_names)
    kept = decisive.links[decisive.kept_links]
    keep = np.zeros_like(p, dtype=bool)
    keep[kept[:, 0], kept[:, 1]] = True
    shown = set(decisive.modules().tolist())
    shown |= set(np.flatnonzero(np.asarray(renderer.roles) == "readout").tolist())
    graph = links_graph(p, keep, renderer.roles)
    scores = np.concatenate(
        [decisive.link_scores[decisive.kept_links], decisive.read_scores[decisive.kept_reads]]
    )
    scale = float(np.max(np.abs(scores))) if len(scores) else 1.0
    nodes = [n for n in renderer.nodes(graph, renderer.colors) if int(n["data"]["id"]) in shown]
    edges = [
        _edge(f"{i}-{j}", str(i), str(j), score, scale, "link", p=round(float(p[i, j]), 4))
        for (i, j), score in zip(kept, decisive.link_scores[decisive.kept_links], strict=True)
    ]
    readers, tokens = np.nonzero(decisive.kept_reads)
    edges += [
        _edge(
            f"{READ_PREFIX}{u}-{j}",
            f"{TOKEN_PREFIX}{j}",
            str(u),
            float(decisive.read_scores[u, j]),
            scale,
            "read",
            object=_object_name(object_names, j),
        )
        for u, j in zip(readers.tolist(), tokens.tolist(), strict=True)
    ]
    return nodes + _token_nodes(renderer, sorted(set(tokens.tolist())), object_names) + edges


def _edge(
    edge_id: str, source: str, target: str, score: float, scale: float, kind: str, **data: object
) -> dict:
    """One drawn edge of the decisive circuit, shaded by its ``score``."""
    return {
        "data": {
            "id": edge_id,
            "source": source,
            "target": target,
            **UNEDITED,
            **data,
            "effect": round(score, 4),
            "estimated": True,  # the effect is the first-order estimate the ranking used
            "color": shade(score, scale),
            "width": 1.0 + 7.0 * min(1.0, abs(score) / scale) if scale > 0 else 1.0,
        },
        "classes": f"{kind} attributed",
    }


def _token_nodes(
    renderer: CircuitElements, tokens: list[int], object_names: list[str]
) -> list[dict]:
    """The read objects ``tokens`` as nodes in a column left of the module layout."""
    x = (renderer.positions[:, 0].min() - TOKEN_COLUMN) * LAYOUT_SCALE
    top, bottom = renderer.positions[:, 1].min(), renderer.positions[:, 1].max()
    ys = np.linspace(top, bottom, len(tokens) + 2)[1:-1] if len(tokens) else []
    return [
        {
            "data": {
                "id": f"{TOKEN_PREFIX}{j}",
                "label": _object_name(object_names, j),
                "role": "object",
                "color": "#ffffff",
                "degree": 0,
                **UNEDITED,
            },
            "position": {"x": float(x), "y": float(y * LAYOUT_SCALE)},
            "classes": "token",
        }
        for j, y in zip(tokens, ys, strict=True)
    ]


def _numbered(names: list[str]) -> list[str]:
    """``names`` with each repeated one numbered ("a square in box 3 (2)"): a tower of equal
    blocks is several objects of one name."""
    totals = {name: names.count(name) for name in names}
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(f"{name} ({seen[name]})" if totals[name] > 1 else name)
    return out


def _object_name(object_names: list[str], token: int) -> str:
    """The name of object token ``token``; past the objects, the null token (read to read
    nothing)."""
    return object_names[token] if token < len(object_names) else "nothing (the null token)"
