"""``circuitlab info``: a summary of a circuit store of any model kind."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import pandas as pd
import typer

from circuitlab.cli.common import app, exit_with

if TYPE_CHECKING:
    from circuitlab.store import CircuitStore


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
    if store.kind == "ni":
        typer.echo(_ni_summary(store))
        return
    if store.kind == "mn":
        typer.echo(_mn_summary(store))
        return
    if store.kind == "nfm":
        typer.echo(_nfm_summary(store))
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


def _arrays_summary(store: CircuitStore) -> list[str]:
    """A store's repr, frame columns and one line per array."""
    lines = [repr(store), f"columns: {list(store.frame.columns)}", "arrays:"]
    for spec in store.meta["arrays"]:
        lines.append(
            f"  {spec['name']}: {spec['dtype']} {spec['shape']} ({', '.join(spec['axes'])})"
        )
    return lines


def _mn_summary(store: CircuitStore) -> str:
    """A Modular Network store's arrays, each layer's module usage and input 0's path."""
    lines = _arrays_summary(store)
    usage = np.asarray(store.array("usage"))
    lines.append(f"method {store.meta['method']}; share of inputs picking each module:")
    for layer, shares in enumerate(usage):
        lines.append(f"  layer {layer}: " + " ".join(f"m{m}:{v:.2f}" for m, v in enumerate(shares)))
    path = np.asarray(store.array("paths")[0])
    steps = " -> ".join("+".join(f"m{m}" for m in sorted(set(layer))) for layer in path.tolist())
    lines.append(f"input 0 ({store.frame['text'].iloc[0]}): {steps}")
    return "\n".join(lines)


def _nfm_summary(store: CircuitStore) -> str:
    """An NFM store's arrays and what each reader layer reads, averaged over the inputs."""
    lines = _arrays_summary(store)
    mean = np.asarray(store.array("attention"), dtype=np.float64).mean(0)  # (readers, slots)
    lines.append("mean attention of each second-pass layer over what each layer wrote:")
    for reader, row in enumerate(mean):
        cells = " ".join(
            f"{name}:{v:.2f}" for name, v in zip(store.meta["slots"], row, strict=True)
        )
        lines.append(f"  pass 2 layer {reader + 1} reads {cells}")
    return "\n".join(lines)


def _ni_summary(store: CircuitStore) -> str:
    """A Neural Interpreter store's arrays, and which function handles each token of input 0
    at each step (its largest routing weight)."""
    lines = _arrays_summary(store)
    routing = np.asarray(store.array("routing")[0], dtype=np.float32)  # (steps, U, V)
    tokens = store.meta["tokens"]
    lines.append("input 0, the function that handles each token most, per step:")
    for k, step in enumerate(store.meta["steps"]):
        best = routing[k].argmax(0)
        cells = " ".join(f"{t}:f{u}" for t, u in zip(tokens, best, strict=True))
        lines.append(f"  script {step['script']} iteration {step['iteration']}: {cells}")
    return "\n".join(lines)
