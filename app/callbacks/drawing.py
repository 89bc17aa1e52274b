"""What the circuit panel draws for the page's settings: the view chosen (links with P above a
threshold, each module's top k, or what decides the shown example's answer), coloured by module,
community or the example's attribution (only its minimal circuit, on request), the visitor's
edits marked, its title and count line, and what the URL asked that the page cannot do. The
elements themselves are built in ``circuitlab.app.circuit_elements``; a draw reads the store's
view (``store_view.StoreView``) and, for attribution and what decides, the store's model
(``intervention_view.Intervener``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from circuitlab.app.callbacks.common import (
    DECIDES,
    edit_of,
    page_store,
    parse_view,
    query_of,
    scene_intervener,
    shows_circuit,
    store_view,
    threshold_of,
)
from circuitlab.app.callbacks.map_view import color_columns
from circuitlab.app.circuit_elements import (
    TooManyEdges,
    attribution_elements,
    decisive_elements,
    mark_edits,
)
from circuitlab.app.store_view import MAX_SENTENCE, StoreView
from circuitlab.app.stores import AppStores
from circuitlab.app.view_drawing import draw_notes, notes_line
from circuitlab.app.view_notes import page_view

if TYPE_CHECKING:
    from circuitlab.decisive import DecisiveCircuit

__all__ = [
    "ViewSettings",
    "circuit_title",
    "decisive_count",
    "decisive_drawing",
    "drawing",
    "drawn_mode",
    "minimal_count",
    "refused_settings",
]


@dataclass(frozen=True)
class ViewSettings:
    """How the page's controls ask a circuit to be drawn.

    Parameters
    ----------
    threshold
        The link threshold (P > threshold is drawn; None: the default).
    mode
        "threshold", "top-k" or "decides" (what decides the shown example's answer).
    top_k
        Each module's k strongest links, in the top-k mode.
    color
        How modules are coloured: "module", "community" or "attribution".
    minimal
        ``["on"]``: with attribution colours, only the minimal circuit's links.
    notes
        The page's pins, groups and notes (its ``view-notes`` store, ``view_notes.page_view``).
    """

    threshold: float | None = 0.5
    mode: str | None = DECIDES  # the page's default (``VIEW_DEFAULTS``)
    top_k: int | None = 3
    color: str | None = "module"
    minimal: list | None = None
    notes: dict | None = None


def circuit_title(view: StoreView, circuit: dict) -> str:
    """The line above the drawn circuit: its id and sentence, or the typed sentence.

    Parameters
    ----------
    view
        The page's store view.
    circuit
        The page's circuit.
    """
    if "typed" in circuit:
        return f"typed: {circuit['text']}"
    row = view.frame.iloc[circuit["index"]]
    return f"#{row['id']}: {row.get('text', '')}"


def refused_settings(query: dict[str, str], view: StoreView) -> list[str]:
    """A message for each URL setting this store cannot take (``module``, ``compare_category``,
    ``map``, an over-long ``q``): the page shows the rest and says what it left out.

    Parameters
    ----------
    query
        The URL's query, parsed (``query_of``).
    view
        The page's store view.
    """
    problems = []
    raw = query.get("module")
    if raw is not None and not (raw.isdigit() and int(raw) < view.n_modules):
        problems.append(f"module {raw[:40]!r} is not a module in 0-{view.n_modules - 1}")
    category = query.get("compare_category")
    if category is not None and category not in view.categories():
        problems.append(f"compare_category {category[:40]!r} is not a category of this store")
    color = query.get("map")
    if color is not None and color not in color_columns(view):
        shown = ", ".join(color_columns(view)) or "none"
        problems.append(f"map {color[:40]!r} is not a column the map is coloured by ({shown})")
    if len(query.get("q", "")) > MAX_SENTENCE:
        problems.append(
            f"the search q has {len(query['q'])} characters: its first {MAX_SENTENCE} used"
        )
    return problems


def minimal_count(n_modules: int, n_links: int) -> str:
    """The link count above a minimal circuit; an empty one says what it means: every link
    cut, the model gives the same answer (its reads and read-outs carry it).

    Parameters
    ----------
    n_modules, n_links
        The circuit's modules, and the links of its minimal circuit.
    """
    if n_links == 0:
        return (
            f"{n_modules} modules, 0 links (the minimal circuit is empty: with every link cut "
            "the model gives the same answer, carried by its reads and read-outs)"
        )
    return f"{n_modules} modules, {n_links} links (the minimal circuit)"


def _attributed(
    stores: AppStores, key, view: StoreView, circuit: dict, elements: list, minimal: list | None
) -> tuple[list, int, str | None]:
    """The elements coloured by the shown example's attribution (only the minimal circuit's
    links with ``minimal``), their link count, and why not, when it cannot be computed."""
    n_edges = sum("source" in e["data"] for e in elements)
    intervener, why_not = scene_intervener(stores, key, circuit, "attribution runs")
    if intervener is None:
        return elements, n_edges, why_not
    attribution = intervener.attribution(circuit["index"])
    p = view.store.link_probabilities([circuit["index"]])[0]
    elements = attribution_elements(elements, attribution, p, bool(minimal))
    return elements, sum("source" in e["data"] for e in elements), None


def _url_problems(stores: AppStores, view: StoreView, search: str | None) -> list[str]:
    """What the URL asks that the page cannot do: an unknown store, refused settings."""
    query = query_of(search)
    _, problems = parse_view(query)
    problems += refused_settings(query, view)
    _, store_problem = stores.resolve(query.get("store"))
    return [store_problem, *problems] if store_problem else list(problems)


def drawn_mode(stores: AppStores, key: str | None, circuit: dict | None, mode: str | None) -> str:
    """The mode a circuit is drawn in: ``mode``, but the threshold where what decides cannot
    be found (a typed sentence, no scene, no model), as ``drawing`` falls back.

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    circuit
        The page's circuit.
    mode
        The mode control's value.
    """
    if mode != DECIDES:
        return mode or "threshold"
    intervener, _ = scene_intervener(stores, key, circuit, "what decides is found")
    return DECIDES if intervener is not None else "threshold"


def decisive_drawing(
    stores: AppStores, key: str | None, view: StoreView, circuit: dict
) -> tuple[list, str, str | None]:
    """The shown example's decisive circuit drawn (``circuit_elements.decisive_elements``), its
    count line, and why not when it cannot be computed (a typed sentence, a store without scenes
    or model).

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    view
        The store's view.
    circuit
        The page's circuit.
    """
    intervener, why_not = scene_intervener(stores, key, circuit, "what decides is found")
    if intervener is None:
        return [], "", why_not
    index = circuit["index"]
    decisive = intervener.decisive(index)
    p = view.store.link_probabilities([index])[0]
    names = intervener.kind.object_names(intervener.scene_of(index))
    elements = decisive_elements(view.renderer, decisive, p, names)
    return elements, decisive_count(decisive, view.n_modules), None


def drawing(
    stores: AppStores,
    circuit: dict | None,
    settings: ViewSettings,
    search: str | None,
    actions: list | None,
    key: str | None,
) -> tuple[list, str, str, str, bool]:
    """The circuit panel for these page settings: the graph's elements (the view's pins,
    groups and notes applied, ``view_drawing.draw_notes``), the title, the link
    count, the warning text and whether it shows (the ``draw`` callback's outputs, and the
    page's first view, ``first_view``).

    Parameters
    ----------
    stores
        The app's stores.
    circuit
        The page's circuit: ``{"index": row}`` or a typed sentence.
    settings
        How the page's controls ask it drawn.
    search
        The URL's query string.
    actions
        The visitor's edits, in order.
    key
        The page's store key (None: the URL's).
    """
    key = page_store(stores, key, search)
    view = store_view(stores, key)
    messages = _url_problems(stores, view, search)
    if shows_circuit(circuit) and "typed" in circuit:
        try:
            view.checked_sentence(circuit["text"])
        except ValueError as err:  # only a forged page state gets here
            circuit = {"error": str(err)}
    if not shows_circuit(circuit):
        if circuit and "error" in circuit:
            messages.insert(0, circuit["error"])
        text = "; ".join(messages)
        return [], "no circuit selected", "", text, bool(text)
    elements, count, problem = [], "", None
    if settings.mode == DECIDES:
        elements, count, problem = decisive_drawing(stores, key, view, circuit)
    if settings.mode != DECIDES or problem is not None:
        elements, count = _linked_drawing(stores, key, view, circuit, settings, messages)
    if problem is not None:  # the default view where it cannot be: a note, not a warning
        count += f"; drawn by P, as {problem}"
    text = "; ".join(messages)
    notes = page_view(settings.notes, view.n_modules)
    elements = draw_notes(mark_edits(elements, edit_of(actions)), notes)
    count += notes_line(notes, elements)
    return elements, circuit_title(view, circuit), count, text, bool(text)


def _linked_drawing(
    stores: AppStores,
    key: str,
    view: StoreView,
    circuit: dict,
    settings: ViewSettings,
    messages: list[str],
) -> tuple[list, str]:
    """The links drawn by threshold or top-k (what decides falls back to the threshold),
    coloured as asked, and the count line; a problem is appended to ``messages``."""
    n_modules, top_k = view.n_modules, settings.top_k
    top_k_mode = settings.mode == "top-k"
    if top_k_mode and not (isinstance(top_k, int) and 1 <= top_k < n_modules):
        messages.append(f"top-k must be an integer in [1, {n_modules - 1}]")
        top_k = min(3, n_modules - 1)
    threshold = threshold_of(settings.threshold)
    color = settings.color
    try:
        node_colors = "module" if color == "attribution" else color or "module"
        elements, n_edges = view.graph_elements(
            circuit, threshold, top_k if top_k_mode else None, node_colors
        )
    except TooManyEdges as err:
        elements, n_edges = [], 0
        messages.append(str(err))
    setting = f"top-{top_k} per module" if top_k_mode else f"P > {threshold:g}"
    count = f"{n_modules} modules, {n_edges} links ({setting})"
    if color == "attribution":
        elements, n_edges, problem = _attributed(
            stores, key, view, circuit, elements, settings.minimal
        )
        messages += [problem] if problem else []
        if settings.minimal and not problem:
            count = minimal_count(n_modules, n_edges)
    return elements, count


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
