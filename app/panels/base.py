"""What a model kind's page panel declares: ``KindPanel``. A Neural Interpreter's, a Modular
Network's and an NFM network's panels are input panels (a table of the store's inputs, the
chosen input drawn, the map of all inputs), whose callbacks ``circuitlab.app.callbacks.inputs``
registers from what they declare; the NAC's panels are the page's own
(``circuitlab.app.layout``, ``circuitlab.app.callbacks``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["KindPanel", "input_title"]

Prop = tuple[str, str]  # (component id, property)


@dataclass(frozen=True)
class KindPanel:
    """The body a page shows for a store of one model kind.

    Parameters
    ----------
    kind
        The model kind's name (``circuitlab.kinds``): stores of this kind get this body.
    prefix
        The prefix of the body's component ids: ``PREFIX-body``, and for an input panel
        ``PREFIX-key`` (the page's store key, set only on a page of this kind),
        ``PREFIX-inputs`` (the table), ``PREFIX-input`` (the row shown) and ``PREFIX-map``.
    body
        ``() -> dash component``: the body's layout, hidden until a store of this kind is shown.
    plots
        The ids of the body's Plotly graphs, each in a closed slot
        (``circuitlab.app.layout.parts.plot``) opened with the body.
    first_graph, title_id
        The ids of the cytoscape graph a fresh page of this kind draws on the server
        (``callbacks.first_view``) and of its title.
    view
        The class of a store's view (built from the ``CircuitStore``); None for the NAC, whose
        view (``StoreView``) ``AppStores.view`` opens with its model.
    filled, fill
        The components filled once per store: ``fill(view)`` returns their values.
    shown, show, controls
        The components drawn for the chosen input: ``show(view, index, *values)`` returns
        their values, ``values`` those of the ``controls`` inputs (a step, say).
    title
        ``(view, index) -> str``: the title of the chosen input.
    first_elements
        ``(view, index) -> list``: ``first_graph``'s elements for the chosen input.
    """

    kind: str
    prefix: str
    body: Callable[[], Any]
    plots: tuple[str, ...]
    first_graph: str
    title_id: str
    view: type | None = None
    filled: tuple[Prop, ...] = ()
    fill: Callable[[Any], tuple] | None = None
    shown: tuple[Prop, ...] = ()
    show: Callable[..., tuple] | None = None
    controls: tuple[Prop, ...] = field(default=())
    title: Callable[[Any, int], str] | None = None
    first_elements: Callable[[Any, int], list] | None = None

    @property
    def body_id(self) -> str:
        return f"{self.prefix}-body"

    @property
    def is_input_panel(self) -> bool:
        """Whether the panel shows one input of a table at a time (every kind but the NAC)."""
        return self.view is not None


def input_title(frame: pd.DataFrame, index: int, extra: str = "") -> str:
    """An input panel's title for row ``index``: its id and text, then ``extra``.

    Parameters
    ----------
    frame
        The store's rows.
    index
        The row.
    extra
        Text added after.
    """
    text = frame["text"].iloc[index] if "text" in frame else ""
    return f"Input {frame['id'].iloc[index]}: {text}{extra}"
