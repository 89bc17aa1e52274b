"""The first view a page's layout carries: the graph its URL opens on, drawn on the server
when the layout is asked for, so that a fresh page shows it as soon as its scripts have run,
not after two (a NAC's circuit) to four (another kind's graph) rounds of callbacks. The
callbacks then run as on any page and answer the same graph."""

from __future__ import annotations

from circuitlab.app.callbacks.common import (
    DECIDES,
    VIEW_DEFAULTS,
    query_of,
    row_has_scene,
    typing_controls,
)
from circuitlab.app.callbacks.drawing import ViewSettings, drawing
from circuitlab.app.store_view import row_of_id
from circuitlab.app.stores import AppStores

__all__ = ["first_view"]

# the URL settings a first view honours; a URL with any other (a threshold, an edit, a typed
# sentence, a search) is restored and drawn by the callbacks alone, as before
FIRST_VIEW_NAMES = {"store", "id"}


def first_view(stores: AppStores, search: str | None) -> dict | None:
    """What ``page.page`` draws first for a page of URL query ``search``: the store's
    ``kind``, the graph's ``elements`` and its ``title``; a NAC's also its ``circuit`` and link
    ``count`` at the default settings. None where the callbacks must decide: other URL
    settings, a store or row the URL names but the app does not have, anything to warn about,
    a NAC store whose module layout and map are not cached (``AppStores.opens_at_once``).

    Parameters
    ----------
    stores
        The app's stores.
    search
        As above.
    """
    query = query_of(search)
    if not set(query) <= FIRST_VIEW_NAMES:
        return None
    requested = query.get("store") or stores.default
    if requested in stores.paths and not stores.opens_at_once(requested):
        return None  # its layout and map take seconds: the callbacks compute them, spinner shown
    key, problem = stores.resolve(query.get("store"))
    if problem:
        return None
    if stores.has_circuit_view(key):
        return _nac_view(stores, key, search, query)
    panel = stores.panel(key)
    view = stores.kind_view(key, panel)
    if not len(view.frame):
        return None
    index = row_of_id(view.frame, query.get("id")) or 0  # as ``inputs.input_row`` picks it
    elements, title = panel.first_elements(view, index), panel.title(view, index)
    return {"kind": panel.kind, "elements": elements, "title": title}


def _nac_view(stores: AppStores, key: str, search: str | None, query: dict) -> dict | None:
    """A NAC store's first circuit (the URL's ``id``, else row 0) drawn as ``draw`` would; None
    while the store's model, which finds what decides, is still loading (the callbacks wait
    for it behind their spinner, not the page)."""
    view = stores.view(key)
    index = view.index_of(query["id"]) if "id" in query else (0 if len(view.frame) else None)
    if index is None or (VIEW_DEFAULTS["mode"] == DECIDES and _decides_waits(stores, key, index)):
        return None
    circuit = {"index": index}
    settings = ViewSettings(
        *(VIEW_DEFAULTS[name] for name in ("threshold", "mode", "top_k", "color"))
    )
    elements, title, count, _, warned = drawing(stores, circuit, settings, search, [], None)
    if warned:
        return None
    return {
        "kind": stores.kind(key),
        "circuit": circuit,
        "elements": elements,
        "title": title,
        "count": count,
        "typing": typing_controls(view),
    }


def _decides_waits(stores: AppStores, key: str, index: int) -> bool:
    """Whether drawing what decides store row ``index`` would wait for the store's model to
    load: a row with a scene while the model loads (a row without one draws by threshold)."""
    return row_has_scene(stores.view(key), index) and stores.model_waits(key)
