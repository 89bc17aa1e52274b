"""Pins, groups and notes (``circuitlab.app.view_notes``) on the page: in pin mode a click pins
a module or a link (again: unpins it; in the browser, ``TOGGLE_PIN``), the pinned modules are
grouped under a name, a note is written on the clicked module or group, "pinned only" draws the
pinned subgraph; the view is saved beside the store (``STORE/views/NAME.json``), opened from the
list or from the URL's ``view=NAME``, exported and imported as the same file. The page keeps it
in its ``view-notes`` store: ``{"name": the saved view it is, or None once changed, "view": its
JSON}``; the drawing (``callbacks.drawing``) and the exports read it from there."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import replace

import dash
from dash import Input, Output, State, ctx, no_update

from circuitlab.app.callbacks.common import query_of, store_view
from circuitlab.app.callbacks.export import file_safe_store
from circuitlab.app.stores import AppStores
from circuitlab.app.view_drawing import GROUP_PREFIX
from circuitlab.app.view_notes import ViewNotes, load_view, page_view, save_view, saved_views
from circuitlab.errors import InputError

__all__ = ["changed_view", "note_target", "register"]

NOTE_PROMPT = "click a module or group to write a note on it"

# in pin mode a click pins a module or a link (again: unpins it), in the browser: a round trip
# per click would let quick clicks read the same old view and drop one another's pin. The
# page's view in ``_page_data``'s form, as ``ViewNotes.toggle_pin`` / ``toggle_link`` change it;
# objects, reads and groups are no modules or links: nothing to pin
TOGGLE_PIN = """
function (node, edge, mode, data, key) {
    const skip = dash_clientside.no_update;
    if (mode !== "pin") { return skip; }
    const fired = dash_clientside.callback_context.triggered.map(t => t.prop_id);
    const number = /^[0-9]+$/;
    const view = Object.assign({
        format: "circuitlab-view", version: 1, store: key || ".", circuit: null, pinned: [],
        pinned_links: [], groups: {}, notes: {}, pinned_only: false
    }, (data && data.view) || {});
    if (fired.includes("graph.tapNodeData")) {
        if (!node || !number.test(node.id)) { return skip; }
        const m = Number(node.id);
        const rest = view.pinned.filter(x => x !== m);
        view.pinned = rest.length < view.pinned.length ? rest : rest.concat([m]);
        view.pinned.sort((a, b) => a - b);
    } else {
        if (!edge || !number.test(edge.source) || !number.test(edge.target)) { return skip; }
        const ends = [Number(edge.source), Number(edge.target)].sort((a, b) => a - b);
        const same = l => l[0] === ends[0] && l[1] === ends[1];
        const rest = view.pinned_links.filter(l => !same(l));
        view.pinned_links = rest.length < view.pinned_links.length ? rest : rest.concat([ends]);
        view.pinned_links.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    }
    return {name: null, view: view};
}
"""


def note_target(node: dict | None) -> str | None:
    """What a note on the clicked node is on: "module 3", "group NAME", or None (an object).

    Parameters
    ----------
    node
        The clicked node's data.
    """
    node_id = str((node or {}).get("id", ""))
    if node_id.isdigit():
        return f"module {node_id}"
    if node_id.startswith(GROUP_PREFIX):
        return f"group {node_id[len(GROUP_PREFIX) :]}"
    return None


def changed_view(
    view: ViewNotes,
    trigger: str | None,
    group_name: str | None = None,
    note: tuple[str | None, str | None] = (None, None),
    pinned_only: list | None = None,
) -> ViewNotes | None:
    """``view`` after the control ``trigger`` fired (None: another); pins change in the
    browser (``TOGGLE_PIN``).

    Parameters
    ----------
    view
        The page's view.
    trigger
        The id of what fired: "group-make", "group-remove", "note-save", "pinned-only".
    group_name
        The group box's text.
    note
        The note's target (``note_target``) and text.
    pinned_only
        The switch's value.

    Raises
    ------
    InputError
        A group without a name or without pinned modules, a note too long or on nothing.
    """
    if trigger == "group-make":
        if not view.pinned:
            raise InputError("modules", "no module pinned", "pin the group's modules first")
        # its members leave the pins (they stay in the pinned subgraph as the group), so that
        # the next group is made of the modules pinned after it
        return replace(view.with_group(str(group_name or ""), view.pinned), pinned=())
    if trigger == "group-remove":
        name = str(group_name or "").strip()
        if name not in dict(view.groups):
            names = ", ".join(name for name, _ in view.groups) or "none"
            raise InputError("name", f"no group {group_name!r}", f"one of: {names}")
        return view.without_group(name)
    if trigger == "note-save":
        target, text = note
        if target is None:
            raise InputError("target", "no module or group clicked", NOTE_PROMPT)
        return view.with_note(target, str(text or ""))
    if trigger == "pinned-only":
        return replace(view, pinned_only=bool(pinned_only))
    return None


def register(app: dash.Dash, stores: AppStores) -> None:
    """The pins, groups and notes' callbacks.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """
    _register_changes(app, stores)
    _register_files(app, stores)


def _uploaded_text(upload: str | None) -> str:
    """The text of a file dcc.Upload sent (a data URL); InputError for anything else."""
    try:
        return base64.b64decode(str(upload).split(",", 1)[1], validate=True).decode("utf-8")
    except (IndexError, ValueError):  # no data URL, not base64, not UTF-8
        raise InputError("view", "not a JSON file", "a file circuitlab exported") from None


def _page_data(view: ViewNotes, key: str | None, name: str | None = None) -> dict:
    return {"name": name, "view": view.to_json(key or ".", None)}


def _register_changes(app: dash.Dash, stores: AppStores) -> None:
    """Clicks and controls that change the view, and the note's target."""

    app.clientside_callback(
        TOGGLE_PIN,
        Output("view-notes", "data"),
        Input("graph", "tapNodeData"),
        Input("graph", "tapEdgeData"),
        State("click-mode", "value"),
        State("view-notes", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("view-notes", "data", allow_duplicate=True),
        Output("notes-message", "children"),
        Input("group-make", "n_clicks"),
        Input("group-remove", "n_clicks"),
        Input("note-save", "n_clicks"),
        Input("pinned-only", "value"),
        State("view-notes", "data"),
        State("group-name", "value"),
        State("note-target", "data"),
        State("note-text", "value"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def change(_make, _remove, _note, only, data, name, target, text, key):
        view = page_view(data, store_view(stores, key).n_modules)
        try:
            changed = changed_view(view, ctx.triggered_id, name, (target, text), only)
        except InputError as err:
            return no_update, str(err)
        if changed is None or changed == view:
            return no_update, no_update
        return _page_data(changed, key), ""

    @app.callback(
        Output("note-target", "data"),
        Output("note-target-line", "children"),
        Output("note-text", "value"),
        Output("group-name", "value"),
        Input("graph", "tapNodeData"),
        State("view-notes", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def choose_note_target(node, data, key):
        """The clicked module or group as the note's target, its note in the box to edit; a
        group's name in the group box (to ungroup it)."""
        target = note_target(node)
        if target is None:
            return no_update, no_update, no_update, no_update
        notes = dict(page_view(data, store_view(stores, key).n_modules).notes)
        group = target[len("group ") :] if target.startswith("group ") else no_update
        return target, f"note on {target}:", notes.get(target, ""), group


def _register_files(app: dash.Dash, stores: AppStores) -> None:
    """Saved views, the URL's ``view``, export and import."""

    @app.callback(
        Output("view-notes", "data", allow_duplicate=True),
        Output("notes-message", "children", allow_duplicate=True),
        Output("pinned-only", "value"),
        Input("view-save", "n_clicks"),
        Input("view-load", "value"),
        Input("view-upload", "contents"),
        Input("url-read", "search"),
        State("view-name", "value"),
        State("view-notes", "data"),
        State("store-key", "data"),
        prevent_initial_call="initial_duplicate",
    )
    def open_or_save(_save, chosen, upload, search, name, data, key):
        if key is None:  # a fresh page: the store key has not landed yet, the URL names it
            key = stores.resolve(query_of(search).get("store"))[0]
        view = store_view(stores, key)
        folder = view.store.path
        trigger, name = ctx.triggered_id, str(name or "").strip()
        try:
            if trigger == "view-save":
                save_view(folder, name, page_view(data, view.n_modules).to_json(key, None))
                return (
                    {**(data or _page_data(ViewNotes(), key)), "name": name},
                    (f"saved as {name}: open it with view={name} in the URL"),
                    no_update,
                )
            if trigger == "view-upload":
                opened, name = ViewNotes.from_json(_uploaded_text(upload), view.n_modules), None
                said = "imported"
            else:
                name = chosen if trigger == "view-load" else query_of(search).get("view")
                if not name or name == (data or {}).get("name"):
                    return no_update, no_update, no_update
                opened = ViewNotes.from_json(load_view(folder, name), view.n_modules)
                said = f"opened the saved view {name}"
        except InputError as err:
            return no_update, str(err), no_update
        except OSError as err:  # a read-only store folder, a full disk
            return no_update, f"the view could not be saved: {err.strerror}", no_update
        return _page_data(opened, key, name), said, ["on"] if opened.pinned_only else []

    @app.callback(
        Output("view-load", "options"),
        Input("store-key", "data"),
        Input("view-notes", "data"),
    )
    def list_views(key, _data):
        if key is None:
            return []
        return saved_views(store_view(stores, key).store.path)

    @app.callback(
        Output("view-download", "data"),
        Input("view-export", "n_clicks"),
        State("view-notes", "data"),
        State("store-key", "data"),
        prevent_initial_call=True,
    )
    def export_view(_clicks, data, key):
        view = store_view(stores, key)
        content = page_view(data, view.n_modules).to_json(key, None)
        text = json.dumps(content, indent=1, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        return {"content": text, "filename": f"{file_safe_store(view, key)}-view-{digest}.json"}
