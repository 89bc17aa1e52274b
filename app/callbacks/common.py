"""What several panels' callbacks share: the page's store, the URL query, the view settings,
the visitor's edit and the store's model for the shown example."""

from __future__ import annotations

from urllib.parse import parse_qs

from dash.exceptions import PreventUpdate

from circuitlab.app.intervention_view import Intervener
from circuitlab.app.store_view import MAX_SENTENCE, StoreView
from circuitlab.app.stores import AppStores
from circuitlab.edits import CircuitEdit

__all__ = [
    "DECIDES",
    "DRAWING_CONTROLS",
    "MODES",
    "VIEW_DEFAULTS",
    "edit_of",
    "page_store",
    "parse_view",
    "query_of",
    "row_has_scene",
    "row_of",
    "scene_intervener",
    "shows_circuit",
    "store_view",
    "threshold_of",
    "typing_controls",
]

# the view settings a fresh page starts with; the URL carries only those that differ
# (what decides an answer where the store has the example's scene and its model; the links
# with P > threshold where not)
VIEW_DEFAULTS = {"threshold": 0.5, "mode": "decides", "top_k": 3, "color": "module"}
# how a circuit is drawn: its links with P > threshold, each module's top k, or what decides the
# shown example's answer (its decisive circuit, with reads and read-out links)
DECIDES = "decides"
NO_SCENE = "this circuit's example has no scene to run the model on"
MODES = ("threshold", "top-k", DECIDES)
# the controls that set how a circuit is drawn: link threshold, threshold or top-k, k
DRAWING_CONTROLS = ("threshold", "mode", "top-k")


def store_view(stores: AppStores, key: str | None) -> StoreView:
    """The view of the page's store; a key the app does not serve answers nothing (keys come
    from the server, so only a forged request has one).

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    """
    try:
        return stores.view(key)
    except KeyError:
        raise PreventUpdate from None


def typing_controls(view: StoreView) -> tuple[dict, str]:
    """The sentence box's style and the line said in its place: the box on a store a model of
    the app made; elsewhere hidden, and why there is none (a store of unconditional models has
    no sentences at all).

    Parameters
    ----------
    view
        The page's store.
    """
    if view.generate_circuit is not None:
        return {}, ""
    if not view.has_sentences:
        why = "this store holds one circuit per unconditional model, not one per sentence"
        return {"display": "none"}, f"no typed sentences here: {why}"
    return {"display": "none"}, f"no typed sentences here: {view.no_model_reason}"


def page_store(stores: AppStores, key: str | None, search: str | None) -> str:
    """The page's store key; on a fresh page, before the store key has landed, the store its
    URL names (not the default store: a first open of another store would draw the default
    store's circuit of the same row).

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key, None before it lands.
    search
        The URL's query string.
    """
    return stores.resolve(query_of(search).get("store"))[0] if key is None else key


def threshold_of(value: float | None) -> float:
    """The link threshold of the slider, its default while the page has none yet.

    Parameters
    ----------
    value
        The slider's value, None before it is set.
    """
    return VIEW_DEFAULTS["threshold"] if value is None else float(value)


def query_of(search: str | None) -> dict[str, str]:
    """The URL's query string as {name: last value}.

    Parameters
    ----------
    search
        The URL's query string ("?a=1&b=2"), or None.
    """
    return {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}


def parse_view(query: dict[str, str]) -> tuple[dict, list[str]]:
    """Validated view settings from the URL query, and a message per value refused.

    Parameters
    ----------
    query
        The URL's query (``query_of``).
    """
    values, problems = {}, []
    if "threshold" in query:
        try:
            threshold = float(query["threshold"])
            if not 0 <= threshold <= 1:
                raise ValueError
            values["threshold"] = threshold
        except ValueError:
            problems.append(f"threshold {query['threshold'][:40]!r} is not a number in [0, 1]")
    if "mode" in query:
        if query["mode"] in MODES:
            values["mode"] = query["mode"]
        else:
            problems.append(f"mode {query['mode'][:40]!r} is not threshold, top-k or decides")
    if "k" in query:
        if query["k"].isdigit() and int(query["k"]) >= 1:
            values["top_k"] = int(query["k"])
        else:
            problems.append(f"k {query['k'][:40]!r} is not a positive integer")
    if "compare" in query:
        values["compare"] = query["compare"][:40]  # checked against the store's ids on use
    if "q" in query:
        values["search"] = query["q"][:MAX_SENTENCE]  # a plain substring, shown as text
    if "color" in query:
        if query["color"] in ("module", "community", "attribution"):
            values["color"] = query["color"]
        else:
            problems.append(
                f"color {query['color'][:40]!r} is not module, community or attribution"
            )
    return values, problems


def shows_circuit(circuit: dict | None) -> bool:
    """Whether the page state names a circuit (a store row or a typed sentence).

    Parameters
    ----------
    circuit
        The page's circuit state.
    """
    if not circuit:
        return False
    return "index" in circuit or ("typed" in circuit and isinstance(circuit.get("text"), str))


def row_of(point: dict, figure: dict) -> int:
    """The store row of a clicked or selected embedding point: its customdata, which WebGL
    traces leave out of selection events, so looked up by trace and point index then.

    Parameters
    ----------
    point
        The clicked or selected point.
    figure
        The map's figure.
    """
    if "customdata" in point:
        return int(point["customdata"])
    trace = figure["data"][point["curveNumber"]]
    return int(trace["customdata"][point["pointIndex"]])


def _toggle(chosen: dict, item) -> None:
    """Add ``item`` to the ordered set ``chosen`` (a dict), or take it out if it is there."""
    if item in chosen:
        del chosen[item]
    else:
        chosen[item] = None


def edit_of(actions: list) -> CircuitEdit:
    """The edit a list of toggles makes: ["cut", i, j], ["force", i, j] or ["knock", m], in
    order (a trailing ["pick", m], the first module of a link to force, edits nothing).

    Parameters
    ----------
    actions
        As above.
    """
    links: dict[str, dict[tuple[int, int], None]] = {"cut": {}, "force": {}}
    knocked: dict[int, None] = {}
    for action in actions or []:
        if action[0] in links:
            _toggle(links[action[0]], (min(action[1], action[2]), max(action[1], action[2])))
        elif action[0] == "knock":
            _toggle(knocked, action[1])
    return CircuitEdit(tuple(links["cut"]), tuple(knocked), tuple(links["force"]))


def row_has_scene(view: StoreView, index: int) -> bool:
    """Whether row ``index`` of the store ``view`` shows has a stored scene to run the model on
    (read from the store, without the model; False for a row past its end).

    Parameters
    ----------
    view
        The store's view.
    index
        The row.
    """
    frame = view.frame
    in_range = "scene" in frame and 0 <= index < len(frame)
    return in_range and isinstance(frame["scene"].iloc[index], str)


def scene_intervener(
    stores: AppStores, key: str | None, circuit: dict | None, what: str
) -> tuple[Intervener | None, str | None]:
    """The store's Intervener when the shown circuit is a stored example with a scene, else
    (None, why not: "``what`` on a stored example with its scene", ...).

    Parameters
    ----------
    stores
        The app's stores.
    key
        The page's store key.
    circuit
        The page's circuit.
    what
        What the message says needs the scene ("cut links").
    """
    if not shows_circuit(circuit) or "typed" in circuit:
        return None, f"{what} on a stored example with its scene"
    if not row_has_scene(store_view(stores, key), circuit["index"]):
        return None, NO_SCENE  # known without the model, which may still be loading
    try:
        intervener = stores.intervener(key)
    except ValueError as err:
        return None, str(err)
    if not intervener.has_scene(circuit["index"]):
        return None, NO_SCENE
    return intervener, None
