"""A store's circuits drawn as cytoscape elements at its module layout: one circuit's links
(by threshold or top-k), its modules coloured by module or community, and the links that
differ between two circuits."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps

from circuitlab.analysis.communities import communities
from circuitlab.analysis.graphs import to_graph
from circuitlab.analysis.layout import module_colors
from circuitlab.app.store_statistics import within_z
from circuitlab.circuit import Circuit, links_graph

__all__ = ["CircuitElements", "TooManyEdges", "UNEDITED", "shade"]

LAYOUT_SCALE = 260  # cytoscape pixels per layout unit
# the data keys an edit or the attribution view sets on a drawn element, at their "none" value
UNEDITED = {"edit": None, "effect": None}
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
