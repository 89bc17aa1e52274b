"""The example panel: the shown circuit's example (an NLVR scene or a pair-world pair, drawn),
its label, the model's prediction and p(true); for a sentence without a stored scene (NLVR2,
typed), scenes from the model's generated world with its answers and, where the grammar knows
the sentence, the truth."""

from __future__ import annotations

import dash
from dash import Input, Output, html

from circuitlab.app.callbacks.common import shows_circuit, store_view
from circuitlab.app.callbacks.module import module_reads
from circuitlab.app.example_view import svg_data_uri
from circuitlab.app.scene_kinds import example_summary, scene_kind
from circuitlab.app.stores import AppStores

__all__ = ["register"]

HIDDEN = {"display": "none"}
SHOWN = {"maxWidth": "100%", "display": "block"}


def world_scenes(stores: AppStores, key: str | None, text: str) -> list:
    """Scenes of the generated world of store ``key``'s model for ``text``, each drawn with the
    model's answer and the truth where the grammar knows the sentence (nothing without a
    model)."""
    try:
        probe = stores.world_probe(key)
        answers = probe.answers(text)
    except (ValueError, KeyError):  # no model, no such store, or a sentence it cannot read
        return []
    known = answers[0].truth is not None
    note = (
        "the world's grammar made this sentence: truth from its logical form"
        if known
        else "the world's grammar does not know this sentence: truth unknown"
    )
    items = [html.Div(f"generated-world scenes ({note}):", className="small mt-2")]
    for answer in answers:
        truth = "unknown" if answer.truth is None else str(answer.truth).lower()
        items += [
            html.Img(
                src=svg_data_uri(probe.kind.svg(answer.scene, None)), style=SHOWN, className="mt-1"
            ),
            html.Div(
                f"model p(true) {answer.p_true:.2f} · truth {truth}",
                className="small world-answer",
            ),
        ]
    return items


def register(app: dash.Dash, stores: AppStores) -> None:
    """The example panel's callbacks: the scene, its facts and the world probe.

    Parameters
    ----------
    app
        The Dash app the callbacks are registered on (never the global ``dash.callback``).
    stores
        The stores it serves.
    """

    @app.callback(
        Output("example-scene", "src"),
        Output("example-scene", "style"),
        Output("example-facts", "children"),
        Output("example-world", "children"),
        Input("circuit", "data"),
        Input("store-key", "data"),  # an Input: on a fresh page it may land after the circuit
        Input("module", "data"),
    )
    def show_example(circuit, key, module):
        if not shows_circuit(circuit):
            return "", HIDDEN, "no circuit selected", []
        if "typed" in circuit:
            facts = "a typed sentence: no stored scene"
            return "", HIDDEN, facts, world_scenes(stores, key, circuit["text"])
        row = store_view(stores, key).frame.iloc[circuit["index"]]
        uri, facts = example_summary(row)
        read = None if module is None or not uri else module_reads(stores, key, module, circuit)
        if read is not None:
            kind = scene_kind(row.get("dataset"))
            uri = svg_data_uri(kind.svg(kind.read(row["scene"]), read[0]))
            facts += f" · outlined: what module {module} reads"
        if uri:
            return uri, SHOWN, facts, []
        return "", HIDDEN, facts, world_scenes(stores, key, str(row.get("text", "")))
