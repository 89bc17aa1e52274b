"""The app's callbacks, one module per panel; ``register_all`` wires them onto an app.

- ``search``: which store is shown, its filters, and the matching sentences;
- ``circuit``: the chosen circuit and its drawing, prior fit and degree plot;
- ``example``: the circuit's example (an NLVR scene), label, prediction and p(true);
- ``attribution``: the shown example's strongest edits (the table ``circuit``'s draw fills);
- ``faithfulness``: on a click, the shown example's faithfulness curve against random rankings;
- ``intervene``: links cut and modules knocked out by clicks, and what that does to the answer;
- ``module``: the clicked module's details;
- ``notes``: pins, groups and notes on the drawing, saved, opened, exported and imported;
- ``compare``: the shown circuit against another or a category's mean circuit;
- ``map_view``: the embedding of all circuits, typed sentences and the lasso selection;
- ``export``: image, CSV, JSON and figure downloads of the shown circuit;
- ``url_state``: the view settings read from and written to the URL;
- ``bodies``: which body the page shows, by the kind of its store;
- ``inputs``: another model kind's store, in its input panel (``circuitlab.app.panels``): the
  table of its inputs, the chosen one drawn, the map.
"""

from __future__ import annotations

import dash

from circuitlab.app.callbacks import (
    bodies,
    circuit,
    compare,
    example,
    export,
    faithfulness,
    inputs,
    intervene,
    map_view,
    module,
    notes,
    search,
    url_state,
)
from circuitlab.app.stores import AppStores

PANELS = (
    search,
    url_state,
    circuit,
    example,
    intervene,
    compare,
    faithfulness,
    module,
    notes,
    map_view,
    export,
    bodies,
    inputs,
)


def register_all(app: dash.Dash, stores: AppStores) -> None:
    """Register every panel's callbacks on ``app`` (never on the global ``dash.callback``),
    the NAC's and each input panel's."""
    for panel in PANELS:
        panel.register(app, stores)
