"""``circuitlab info``: a summary of a circuit store of any model kind."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import pandas as pd
import typer

from circuitlab.cli.common import app, exit_with
from circuitlab.kinds import model_kind
from circuitlab.kinds.base import load

if TYPE_CHECKING:
    pass

__all__ = []


@app.command()
def info(
    store_path: Annotated[Path, typer.Argument(help="A circuit store directory.")],
    threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Link threshold on P for the graph.")
    ] = 0.5,
) -> None:
    """Summarise a circuit store: size, modules, and the graph of its first circuit (a
    Neural Interpreter's store: its arrays and the routing of its first input; a Modular
    Network's: module usage and the path of its first input; an NFM network's: which layers
    each layer reads)."""
    from circuitlab.store import CircuitStore, CircuitStoreError

    try:
        store = CircuitStore.open(store_path)
    except CircuitStoreError as err:
        exit_with(err)
    kind = model_kind(store.kind)
    if kind.store_summary is not None:
        typer.echo(load(kind.store_summary)(store))
        return
    graph = store[0].to_networkx(threshold)
    typer.echo(repr(store))
    typer.echo(f"columns: {list(store.frame.columns)}")
    typer.echo(
        f"circuit 0 at P > {threshold}: {graph.number_of_nodes()} modules, "
        f"{graph.number_of_edges()} links"
    )
    if len(store) > 1 and "label" in store.frame.columns:
        links = np.empty(len(store))
        for start, p in store.link_probability_batches(batch=1024):
            links[start : start + len(p)] = np.triu(p > threshold, k=1).sum((1, 2))
        summary = pd.DataFrame({"label": store.frame["label"], "links": links})
        typer.echo(f"links at P > {threshold} per label (mean, std over circuits):")
        typer.echo(summary.groupby("label")["links"].agg(["count", "mean", "std"]).round(1))
