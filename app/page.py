"""The page: search and results (left), the circuit (middle), module and prior-fit details
(right), the embedding and the lasso selection (below)."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import dash_cytoscape as cyto
from dash import dash_table, dcc, html

from circuitlab.app.store_view import FILTER_COLUMNS


def graph_style(font_size: float, node_size: float, edge_color: str = "#888") -> list[dict]:
    """A cytoscape stylesheet; sizes are in the layout's units, so each view passes those that
    its usual zoom renders legibly (labels about 11 px: the main view opens at about 0.74x,
    the compare views at about 0.48x)."""
    return [
        {
            "selector": "node",
            "style": {
                "background-color": "data(color)",
                "label": "data(label)",
                "font-size": font_size,
                "text-valign": "center",
                "text-outline-color": "#fff",
                "text-outline-width": font_size / 8,
                "width": node_size,
                "height": node_size,
                "border-width": 1,
                "border-color": "#333",
            },
        },
        {"selector": ".readout", "style": {"shape": "square"}},
        {
            "selector": "edge",
            "style": {
                "width": "data(width)",
                "line-color": edge_color,
                "opacity": 0.45 if edge_color == "#888" else 0.8,
                "curve-style": "haystack",
            },
        },
        {"selector": "node:selected", "style": {"border-width": 3, "border-color": "#d62728"}},
        # coloured by attribution (``circuitlab.app.callbacks.attribution``)
        {"selector": "edge.attributed", "style": {"line-color": "data(color)", "opacity": 0.9}},
        # what the visitor cut or knocked out (``circuitlab.app.callbacks.intervene``)
        {
            "selector": "edge.cut",
            "style": {"line-style": "dashed", "line-color": "#d62728", "opacity": 0.9},
        },
        {
            "selector": "edge.forced",
            "style": {"line-style": "dashed", "line-color": "#2ca02c", "opacity": 0.9},
        },
        {
            "selector": "node.knocked",
            "style": {"background-color": "#f0f0f0", "border-style": "dashed", "opacity": 0.6},
        },
    ]


GRAPH_STYLE = graph_style(font_size=15, node_size=24)
COMPARE_STYLE = graph_style(font_size=24, node_size=30)
DIFF_STYLE = graph_style(font_size=24, node_size=30, edge_color="data(color)")
TABLE_COLUMNS = ["id", "text", "label", "split", "categories"]


def _loading(child, loading_id: str) -> dcc.Loading:
    """``child`` under a spinner shown while a callback it waits on runs longer than half a
    second (the first open of a store computes its map; a first typed sentence loads the
    model's text encoder)."""
    return dcc.Loading(child, id=loading_id, delay_show=500, type="circle")


def _radio(radio_id: str, options: list[str] | list[dict], small: bool = False) -> dcc.RadioItems:
    """Inline radio buttons (options as values, or label/value dicts), the first one chosen;
    ``small``: in a line of small text."""
    first = options[0]["value"] if isinstance(options[0], dict) else options[0]
    return dcc.RadioItems(
        id=radio_id,
        options=options,
        value=first,
        inline=True,
        inputStyle={"marginRight": 4, "marginLeft": 8},
        className="small d-inline" if small else None,
    )


def _table(table_id: str, page_size: int) -> dash_table.DataTable:
    return dash_table.DataTable(
        id=table_id,
        columns=[{"name": c, "id": c} for c in TABLE_COLUMNS],
        data=[],
        page_size=page_size,
        style_cell={
            "textAlign": "left",
            "fontSize": 12,
            "whiteSpace": "normal",
            "height": "auto",
            "maxWidth": 320,
        },
        style_table={"overflowX": "auto"},
    )


def _filters() -> list:
    """Search box and filters; their options come from the shown store (``open_store``)."""
    controls = [
        dbc.Input(id="search", placeholder="search sentences", type="search", debounce=True),
        dcc.Dropdown(id="category", options=[], placeholder="category"),
    ]
    for column in FILTER_COLUMNS:
        controls.append(dcc.Dropdown(id=f"filter-{column}", options=[], placeholder=column))
    return controls


def _graph_view(graph_id: str, stylesheet: list[dict], height: str = "320px") -> cyto.Cytoscape:
    """An empty compare-sized cytoscape view on the preset (store) layout."""
    return cyto.Cytoscape(
        id=graph_id,
        elements=[],
        layout={"name": "preset"},
        stylesheet=stylesheet,
        style={"width": "100%", "height": height, "border": "1px solid #ddd"},
    )


def _graph_panel(graph_id: str, caption: str, stylesheet: list[dict], width: int) -> dbc.Col:
    """A captioned ``_graph_view``."""
    return dbc.Col(
        [html.Div(caption, className="small text-muted"), _graph_view(graph_id, stylesheet)],
        width=width,
    )


def _compare_row() -> dbc.Row:
    """Compare the shown circuit with another one or with a category's mean circuit."""
    return dbc.Row(
        [
            dbc.Col(
                [
                    html.H6("Compare"),
                    dbc.Input(
                        id="compare-id",
                        placeholder="with circuit id",
                        type="text",
                        debounce=True,
                        size="sm",
                    ),
                    dcc.Dropdown(
                        id="compare-category",
                        options=[],
                        placeholder="or a category's mean circuit",
                    ),
                    html.Div(id="compare-summary", className="small mt-1"),
                    _loading(html.Div(id="swap-outcome", className="small mt-1"), "swap-loading"),
                    html.Div(id="compare-hover", className="small text-muted mt-1"),
                ],
                width=4,
            ),
            _graph_panel("graph-b", "reference", COMPARE_STYLE, width=8),
        ],
        className="mt-3",
    )


def _store_choice(store_keys: list[str]) -> dcc.Dropdown:
    """Which store the page shows; hidden when the app serves one."""
    return dcc.Dropdown(
        id="store-choice",
        options=store_keys,
        clearable=False,
        searchable=False,
        style={"width": 260, "display": "block" if len(store_keys) > 1 else "none"},
    )


def _search_panel() -> dbc.Col:
    """Left: the search box, filters and matching sentences."""
    return dbc.Col(
        [
            html.H6("Find a sentence"),
            _loading(html.Div(_filters()), "store-loading"),  # a store's first open takes seconds
            html.Div(id="result-count", className="small text-muted my-1"),
            _table("results", page_size=8),
        ],
        width=3,
    )


def _view_controls() -> list:
    """How the circuit is drawn (threshold or top-k, colours) and the typed-sentence box."""
    return [
        dbc.Row(
            [
                dbc.Col(_radio("mode", ["threshold", "top-k"]), width=5),
                dbc.Col(_radio("color-by", ["module", "community", "attribution"]), width=7),
            ]
        ),
        dcc.Slider(
            id="threshold",
            min=0,
            max=1,
            step=0.05,
            value=0.5,
            marks={v / 10: f"{v / 10:g}" for v in range(0, 11)},
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
        _loading(html.Div(id="typed-message", className="small text-danger"), "typed-loading"),
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
            _radio(
                "click-mode",
                [
                    {"label": "inspect", "value": "inspect"},
                    {"label": "cut links / knock out modules", "value": "edit"},
                    {"label": "force links (click both ends)", "value": "force"},
                ],
                small=True,
            ),
            html.Span(buttons, className="ms-2"),
            html.Div(id="edit-summary", className="small text-muted"),
            _loading(html.Div(id="intervention", className="small"), "intervention-loading"),
            _loading(html.Div(id="attribution-table"), "attribution-loading"),
        ],
        className="mt-1",
    )


def _circuit_panel() -> dbc.Col:
    """Middle: the shown circuit, its view controls and the export buttons."""
    return dbc.Col(
        [
            html.H6(id="circuit-title", children="no circuit selected"),
            *_view_controls(),
            html.Div(id="edge-count", className="small"),
            html.Div(id="edge-hover", className="small text-muted"),
            dbc.Alert(id="graph-message", color="warning", is_open=False, className="py-1 my-1"),
            _loading(
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
            dcc.Download(id="download"),
        ],
        width=6,
    )


def _details_panel() -> dbc.Col:
    """Right: the circuit's example, the clicked module, and the circuit's prior fit with its
    degree plot."""
    example = dbc.Card(
        [
            dbc.CardHeader("Example"),
            dbc.CardBody(
                [
                    html.Img(
                        id="example-scene", alt="the example's scene", style={"display": "none"}
                    ),
                    html.Div(id="example-facts", className="small mt-1"),
                    _loading(html.Div(id="example-world"), "example-loading"),
                ]
            ),
        ],
        className="mb-2",
    )
    module = dbc.Card(
        [dbc.CardHeader("Module"), dbc.CardBody(id="module-details", children="click a module")]
    )
    degree = _plot("degree", "170px", config={"displayModeBar": False})
    prior = dbc.Card(
        [dbc.CardHeader("Prior fit"), dbc.CardBody([html.Div(id="prior-fit"), degree])],
        className="mt-2",
    )
    return dbc.Col([_difference_card(), example, module, prior], width=3)


def _difference_card() -> dbc.Card:
    """The shown circuit's difference from the compared one, beside the circuit (hidden until
    something is compared, below)."""
    scale = _radio(
        "diff-scale",
        [
            {"label": "P z-scored within each circuit", "value": "z"},
            {"label": "P", "value": "p"},
        ],
        small=True,
    )
    return dbc.Card(
        [
            dbc.CardHeader("Difference from the compared circuit (red gained, blue lost)"),
            dbc.CardBody([scale, _graph_view("graph-diff", DIFF_STYLE, height="300px")]),
        ],
        id="diff-card",
        className="mb-2",
        style={"display": "none"},
    )


def _map_row() -> dbc.Row:
    """Below: the embedding of every circuit, and the lasso selection."""
    embedding = dbc.Col(
        [
            html.H6(id="map-title", children="All circuits (t-SNE of P); lasso to select"),
            dbc.Row(
                [
                    dbc.Col(
                        dcc.Dropdown(id="embedding-color", options=[], placeholder="colour by"),
                        width=8,
                    ),
                    dbc.Col(_radio("map-method", ["tsne"]), width=4),
                ]
            ),
            _loading(
                _plot("embedding", "420px"),
                "embedding-loading",
            ),
        ],
        width=7,
    )
    selection = dbc.Col(
        [
            html.H6("Nearest circuits to the shown one (PCA space of P)"),
            _table("neighbours", page_size=5),
            html.H6(id="selection-count", children="selection", className="mt-2"),
            html.Div(id="selection-summary", className="small mb-1"),
            _table("selection", page_size=10),
        ],
        width=5,
    )
    return dbc.Row([embedding, selection], className="mt-3")


def _arrow_style(node: dict, edge_color: str = "#888") -> list[dict]:
    """A cytoscape stylesheet of labelled nodes (``node``: their own style) and arrows whose
    width is their data's ``width``."""
    return [
        {"selector": "node", "style": {"label": "data(label)", "text-valign": "center", **node}},
        {
            "selector": "edge",
            "style": {
                "width": "data(width)",
                "line-color": edge_color,
                "target-arrow-color": edge_color,
                "target-arrow-shape": "triangle",
                "curve-style": "bezier",
            },
        },
    ]


# The page's Plotly graphs by the store kind whose body holds them. Each sits in a slot that
# renders it only once opened (``plot_slot``): a mounted dcc.Graph loads plotly.js (4.8 MB) and
# draws itself even in a hidden body, and on a NAC page that held the circuit back by ~2 s.
# The NAC's slots open once its circuit is drawn, another kind's once its body is shown.
PLOTS = {
    "nac": ("degree", "embedding"),
    "ni": ("ni-heatmap", "ni-map"),
    "mn": ("mn-probabilities", "mn-usage", "mn-map"),
    "nfm": ("nfm-image", "nfm-heatmap", "nfm-map"),
}
SLOT_OPEN, SLOT_CLOSED = "open", "closed"


def kind_key(kind: str) -> str:
    """The id of the store holding the page's store key on a page of ``kind`` ("ni", "mn",
    "nfm") alone."""
    return f"{kind}-key"


def plot_slot(graph_id: str) -> str:
    """The id of the slot holding the graph ``graph_id``; its ``value`` SLOT_OPEN renders it."""
    return f"{graph_id}-slot"


def _plot(graph_id: str, height: str, config: dict | None = None) -> dcc.Tabs:
    """The Plotly graph ``graph_id`` in its closed slot: a dcc.Tabs without headers whose one
    tab is rendered only when the slot's value is SLOT_OPEN. Closed, the graph is still in the
    layout: callbacks read and write its props, and it shows their latest values once open."""
    graph = dcc.Graph(
        id=graph_id, style={"height": height}, config=config or {"displaylogo": False}
    )
    return dcc.Tabs(
        id=plot_slot(graph_id),
        value=SLOT_CLOSED,
        children=[dcc.Tab(value=SLOT_OPEN, children=graph)],
        style={"display": "none"},
    )


def _kind_body(body_id: str, children: list) -> dbc.Container:
    """The body of one store kind's panels, hidden until a store of that kind is shown."""
    return dbc.Container(children, id=body_id, fluid=True, style={"display": "none"})


TRANSITION_STYLE = _arrow_style(
    {"background-color": "#1f77b4", "color": "#fff", "font-size": 14, "width": 34, "height": 34}
)
TRANSITION_STYLE[1]["style"].update({"loop-direction": "0deg", "loop-sweep": "-45deg"})
PATH_STYLE = [
    *_arrow_style(
        {
            "background-color": "#9ecae1",
            "color": "#222",
            "font-size": 12,
            "width": "data(size)",
            "height": "data(size)",
        },
        edge_color="#ccc",
    ),
    {"selector": "node.picked", "style": {"background-color": "#d62728", "color": "#fff"}},
    {
        "selector": "edge.picked",
        "style": {"line-color": "#d62728", "target-arrow-color": "#d62728", "z-index": 10},
    },
]
READ_STYLE = [
    *_arrow_style(
        {"background-color": "#9ecae1", "color": "#222", "font-size": 11, "width": 44, "height": 44}
    ),
    {
        "selector": "edge.top-down",
        "style": {"line-color": "#d62728", "target-arrow-color": "#d62728"},
    },
]


def _routing_body() -> dbc.Container:
    """A Neural Interpreter's store (kind "ni"): its inputs, the routing of the chosen one per
    step (tokens x functions), how its functions hand tokens on, and the map of all inputs.
    Hidden unless the page's store is of that kind."""
    inputs = dbc.Col(
        [
            html.H6("Inputs (click one)"),
            _inputs_table("ni-inputs", ("id", "text", "error")),
        ],
        width=3,
    )
    routing = dbc.Col(
        [
            html.H6(id="ni-title", children="Routing"),
            dcc.Dropdown(id="ni-step", options=[], clearable=False),
            _plot("ni-heatmap", "360px"),
        ],
        width=6,
    )
    hand_on = dbc.Col(
        [
            html.H6("Functions -> the functions their tokens go to next"),
            cyto.Cytoscape(
                id="ni-transitions",
                elements=[],
                layout={"name": "circle"},
                stylesheet=TRANSITION_STYLE,
                style={"width": "100%", "height": "360px", "border": "1px solid #ddd"},
            ),
        ],
        width=3,
    )
    overview = _plot("ni-map", "420px")
    return _kind_body("ni-body", [dbc.Row([inputs, routing, hand_on], className="mt-2"), overview])


def _inputs_table(table_id: str, columns: tuple[str, ...]) -> dash_table.DataTable:
    """The clickable table of a store's inputs (Neural Interpreter, Modular Network)."""
    return dash_table.DataTable(
        id=table_id,
        columns=[{"name": c, "id": c} for c in columns],
        data=[],
        page_size=15,
        style_cell={"textAlign": "left", "fontSize": 12},
    )


def _path_body() -> dbc.Container:
    """A Modular Network's store (kind "mn"): its inputs, the layered module graph with the
    chosen input's path in red, that input's controller probabilities, module usage by class
    and the map of all inputs. Hidden unless the page's store is of that kind."""
    inputs = dbc.Col(
        [
            html.H6("Inputs (click one)"),
            _inputs_table("mn-inputs", ("id", "text", "label", "path", "error")),
        ],
        width=4,
    )
    graph = dbc.Col(
        [
            html.H6(id="mn-title", children="Path"),
            cyto.Cytoscape(
                id="mn-graph",
                elements=[],
                layout={"name": "preset", "fit": True, "padding": 20},
                stylesheet=PATH_STYLE,
                style={"width": "100%", "height": "420px", "border": "1px solid #ddd"},
            ),
        ],
        width=5,
    )
    probabilities = dbc.Col(
        _plot("mn-probabilities", "300px"),
        width=3,
    )
    usage = _plot("mn-usage", "380px")
    overview = _plot("mn-map", "420px")
    return _kind_body(
        "mn-body", [dbc.Row([inputs, graph, probabilities], className="mt-2"), usage, overview]
    )


def _read_body() -> dbc.Container:
    """An NFM network's store (kind "nfm"): its questions, the chosen one's image, the graph of
    which layer reads what each layer wrote (top-down reads in red), the reads as a heatmap and
    the map of all inputs. Hidden unless the page's store is of that kind."""
    inputs = dbc.Col(
        [
            html.H6("Questions (click one)"),
            _inputs_table("nfm-inputs", ("id", "text", "label", "split", "answered", "top-down")),
        ],
        width=4,
    )
    image = dbc.Col(
        [
            html.H6(id="nfm-title", children="Input"),
            _plot("nfm-image", "260px"),
        ],
        width=3,
    )
    graph = dbc.Col(
        [
            html.H6("Layer reads (left: first pass; right: second pass; red: top-down)"),
            cyto.Cytoscape(
                id="nfm-graph",
                elements=[],
                layout={"name": "preset", "fit": True, "padding": 30},
                stylesheet=READ_STYLE,
                style={"width": "100%", "height": "380px", "border": "1px solid #ddd"},
            ),
        ],
        width=5,
    )
    heatmap = _plot("nfm-heatmap", "320px")
    overview = _plot("nfm-map", "420px")
    return _kind_body(
        "nfm-body", [dbc.Row([inputs, image, graph], className="mt-2"), heatmap, overview]
    )


# each store kind's first drawn graph and its title (ids)
FIRST_DRAWN = {
    "nac": ("graph", "circuit-title"),
    "ni": ("ni-transitions", "ni-title"),
    "mn": ("mn-graph", "mn-title"),
    "nfm": ("nfm-graph", "nfm-title"),
}


def page(store_keys: list[str], first: dict | None = None) -> html.Div:
    """The whole page; every control starts empty and is filled from the URL and the store it
    names (one of ``store_keys``), but for ``first`` (``callbacks.first_view``): the graph of
    the URL's store drawn before any callback runs, with its ``kind``, ``elements`` and
    ``title`` (a NAC's also its ``circuit`` and link ``count``), its body shown."""
    state = [
        dcc.Location(id="url-read"),
        dcc.Location(id="url-write", refresh=False),
        dcc.Location(id="url-switch", refresh=True),  # another store: a fresh page
        dcc.Store(id="store-key"),
        dcc.Store(id="circuit"),
        dcc.Store(id="module"),
        # the visitor's edits in order: ["cut", i, j] or ["knock", m], each a toggle
        dcc.Store(id="edits", data=[]),
        # the sentences typed in this page, in order: the visitor's own, never the server's
        dcc.Store(id="typed-sentences", data=[]),
        dcc.Store(id="ni-input"),  # the row of a Neural Interpreter's store shown
        dcc.Store(id="mn-input"),  # the row of a Modular Network's store shown
        dcc.Store(id="nfm-input"),  # the row of an NFM network's store shown
        # the page's store key again, set only on a page of that kind: its panel's callbacks
        # wait for it and never run on another kind's page
        *[dcc.Store(id=kind_key(kind)) for kind in ("ni", "mn", "nfm")],
    ]
    navbar = dbc.NavbarSimple(
        _store_choice(store_keys),
        id="navbar",
        brand="circuitlab",
        color="dark",
        dark=True,
        fluid=True,
    )
    panels = dbc.Row([_search_panel(), _circuit_panel(), _details_panel()], className="mt-2")
    body = dbc.Container([panels, _compare_row(), _map_row()], id="nac-body", fluid=True)
    root = html.Div([*state, navbar, body, _routing_body(), _path_body(), _read_body()])
    if first is not None:
        graph, title = FIRST_DRAWN[first["kind"]]
        root[graph].elements = first["elements"]
        root[title].children = first["title"]
        if first["kind"] == "nac":
            root["circuit"].data = first["circuit"]
            root["edge-count"].children = first["count"]
        else:  # as callbacks/bodies.py shows it
            root["nac-body"].style = {"display": "none"}
            root[f"{first['kind']}-body"].style = {}
    return root
