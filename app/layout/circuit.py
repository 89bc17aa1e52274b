"""The circuit panel (middle): the shown circuit, how it is drawn, edits and exports;
``callbacks.circuit``, ``intervene``, ``attribution`` and ``export`` fill it."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import dash_cytoscape as cyto
from dash import dcc, html

from circuitlab.app.callbacks.common import DECIDES
from circuitlab.app.layout.parts import GRAPH_STYLE, loading, radio

__all__ = ["circuit_panel"]

HOVER_LINE = {
    "height": "1.5em",
    "whiteSpace": "nowrap",
    "overflow": "hidden",
    "textOverflow": "ellipsis",
}
# the threshold slider's drawn height: its code loads after the page is drawn, and the space
# it then took pushed the graph down under the pointer (34 px); held open from the start
SLIDER_BOX = {"minHeight": "34px"}
MODE_OPTIONS = [  # the first is the page's default (``VIEW_DEFAULTS``)
    {"label": "what decides", "value": DECIDES},
    {"label": "threshold", "value": "threshold"},
    {"label": "top-k", "value": "top-k"},
]


def _view_controls() -> list:
    """How the circuit is drawn (threshold or top-k, colours) and the typed-sentence box."""
    return [
        dbc.Row(
            [
                dbc.Col(radio("mode", MODE_OPTIONS), width=5),
                dbc.Col(radio("color-by", ["module", "community", "attribution"]), width=7),
            ]
        ),
        html.Div(
            dcc.Slider(
                id="threshold",
                min=0,
                max=1,
                step=0.05,
                value=0.5,
                marks={v / 10: f"{v / 10:g}" for v in range(0, 11)},
            ),
            id="threshold-box",
            style=SLIDER_BOX,
        ),
        dbc.Checklist(
            id="minimal-only",
            options=[{"label": "minimal circuit only (with colour by attribution)", "value": "on"}],
            value=[],
            switch=True,
            className="small",
        ),
        html.Div(  # shown in top-k mode only (``show_top_k``)
            [
                html.Label("links per module, k", htmlFor="top-k", className="small me-2"),
                dbc.Input(
                    id="top-k",
                    type="number",
                    min=1,
                    step=1,
                    value=3,
                    size="sm",
                    style={"width": 90},
                ),
            ],
            id="top-k-box",
            style={"display": "none"},
        ),
        dbc.InputGroup(  # hidden on a store no model of the app made (``show_typing``)
            [
                # no maxLength: the browser would cut a pasted sentence without a word; the
                # server says how long it is and the limit (``StoreView.checked_sentence``)
                dbc.Input(id="typed", placeholder="type a new sentence"),
                dbc.Button("circuit", id="generate", n_clicks=0, color="secondary"),
            ],
            id="typed-group",
            size="sm",
            className="my-1",
        ),
        html.Div(id="typed-unavailable", className="small text-muted"),
        loading(html.Div(id="typed-message", className="small text-danger"), "typed-loading"),
    ]


def _export_buttons() -> html.Div:
    buttons = [
        dbc.Button(
            label,
            id=f"export-{label.lower()}",
            n_clicks=0,
            size="sm",
            color="light",
            className="me-1",
        )
        for label in ("PNG", "SVG", "CSV", "JSON", "Figure")
    ]
    return html.Div([html.Span("export: ", className="small"), *buttons], className="mt-1")


def _edit_controls() -> html.Div:
    """Interventions: in edit mode a click on a link cuts it and a click on a module knocks
    it out (again: restores it); undo, reset, and what the edit does to the answer."""
    buttons = [
        dbc.Button(
            label, id=f"edit-{label}", n_clicks=0, size="sm", color="light", className="me-1"
        )
        for label in ("undo", "reset")
    ]
    return html.Div(
        [
            html.Span("click to: ", className="small"),
            radio(
                "click-mode",
                [
                    {"label": "inspect", "value": "inspect"},
                    {"label": "cut links / knock out modules", "value": "edit"},
                    {"label": "force links (click both ends)", "value": "force"},
                    {"label": "pin modules / links", "value": "pin"},
                ],
                small=True,
            ),
            html.Span(buttons, className="ms-2"),
            html.Div(id="edit-summary", className="small text-muted"),
            loading(html.Div(id="intervention", className="small"), "intervention-loading"),
            loading(html.Div(id="attribution-table"), "attribution-loading"),
        ],
        className="mt-1",
    )


def _small_group(*children, group_id: str | None = None) -> dbc.InputGroup:
    kwargs = {"id": group_id} if group_id else {}
    return dbc.InputGroup(list(children), size="sm", className="my-1", **kwargs)


def _button(label: str, button_id: str) -> dbc.Button:
    return dbc.Button(label, id=button_id, n_clicks=0, color="light")


def _notes_controls() -> dbc.Card:
    """Pins, groups and notes (``callbacks.notes``): the pinned subgraph alone, the pinned
    modules grouped under a name, a note on the clicked module or group, and the view saved
    beside the store, opened, exported and imported as a file."""
    return dbc.Card(
        dbc.CardBody(
            [
                html.Div(
                    [
                        html.B("pins, groups, notes ", className="small"),
                        dbc.Checklist(
                            id="pinned-only",
                            options=[{"label": "pinned only", "value": "on"}],
                            value=[],
                            switch=True,
                            inline=True,
                            className="small d-inline-block ms-2",
                        ),
                    ]
                ),
                _small_group(
                    dbc.Input(id="group-name", placeholder="group name"),
                    _button("group pinned", "group-make"),
                    _button("ungroup", "group-remove"),
                ),
                html.Div(
                    "click a module or group to write a note on it",
                    id="note-target-line",
                    className="small text-muted",
                ),
                _small_group(
                    dbc.Input(id="note-text", placeholder="note"),
                    _button("save note", "note-save"),
                ),
                _small_group(
                    dbc.Input(id="view-name", placeholder="view name"),
                    _button("save view", "view-save"),
                    _button("export", "view-export"),
                    dcc.Upload(
                        _button("import", "view-import"),
                        id="view-upload",
                        accept=".json,application/json",
                        max_size=1_000_000,  # bytes: a view file is a few hundred
                    ),
                ),
                dcc.Dropdown(id="view-load", placeholder="open a saved view", className="small"),
                html.Div(id="notes-message", className="small"),
                dcc.Download(id="view-download"),
                # {"name": the saved view's name or None, "view": view_notes.ViewNotes.to_json}
                dcc.Store(id="view-notes"),
                dcc.Store(id="note-target"),  # "module 3" or "group NAME"
            ],
            className="p-2",
        ),
        className="mt-1",
    )


def circuit_panel() -> dbc.Col:
    """Middle: the shown circuit, its view controls and the export buttons."""
    return dbc.Col(
        [
            html.H6(id="circuit-title", children="no circuit selected"),
            *_view_controls(),
            html.Div(id="edge-count", className="small"),
            # one line held open whether or not something is hovered: a hover line that
            # appeared pushed the graph down under the pointer, so the first click missed
            html.Div(id="edge-hover", className="small text-muted", style=HOVER_LINE),
            dbc.Alert(id="graph-message", color="warning", is_open=False, className="py-1 my-1"),
            loading(
                cyto.Cytoscape(
                    id="graph",
                    elements=[],
                    layout={"name": "preset"},
                    stylesheet=GRAPH_STYLE,
                    style={"width": "100%", "height": "460px", "border": "1px solid #ddd"},
                    userZoomingEnabled=True,
                    minZoom=0.3,
                    maxZoom=4,
                ),
                "graph-loading",
            ),
            _edit_controls(),
            _export_buttons(),
            _notes_controls(),
            dcc.Download(id="download"),
        ],
        width=6,
    )
