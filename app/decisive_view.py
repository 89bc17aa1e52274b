"""The decisive circuit drawn (the view "what decides"): the modules, links and reads that keep
the shown example's answer on their own (``circuitlab.decisive``), with the objects the kept
reads read as nodes of their own, and the count of what is hidden.

Every drawn edge is coloured and sized by its attribution (red: cutting it lowers p(answer),
blue: raises it): links into the read-outs and reads as much as links among processors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from circuitlab.app.circuit_elements import LAYOUT_SCALE, UNEDITED, CircuitElements, shade
from circuitlab.circuit import links_graph

if TYPE_CHECKING:
    from circuitlab.decisive import DecisiveCircuit

__all__ = ["TOKEN_PREFIX", "decisive_count", "decisive_elements"]

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


def decisive_count(decisive: DecisiveCircuit, n_modules: int) -> str:
    """The line above the decisive circuit: what it keeps and what is hidden.

    Parameters
    ----------
    decisive
        The shown example's decisive circuit.
    n_modules
        The circuit's modules.
    """
    if decisive.answers_without_circuit:
        return (
            f"nothing decides: with every link and read cut the model gives the same answer "
            f"(p(answer) {decisive.empty:.2f}; {decisive.full:.2f} with its whole circuit); "
            f"{len(decisive.links)} links and {int(decisive.reads.sum())} reads hidden"
        )
    links, reads = int(decisive.kept_links.sum()), int(decisive.kept_reads.sum())
    return (
        f"{len(decisive.modules())} of {n_modules} modules, {_plural(links, 'link')} and "
        f"{_plural(reads, 'read')} decide the answer: alone they give p(answer) "
        f"{decisive.kept:.2f} ({decisive.full:.2f} with every link and read, "
        f"{decisive.empty:.2f} with none; kept until {decisive.share:.0%} of the way); "
        f"{decisive.hidden_links} links and {decisive.hidden_reads} reads hidden"
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
