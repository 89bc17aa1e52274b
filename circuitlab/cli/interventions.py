"""``circuitlab evaluate``, ``causality`` and ``attribute``: scoring an NLVR model and asking
whether (and which part of) its circuit decides the answer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from circuitlab.cli.common import app, exit_with
from circuitlab.kinds import model_kind, nac

__all__ = []


@app.command()
def evaluate(
    checkpoint: Annotated[
        Path,
        typer.Argument(
            help="A run directory of `circuitlab train --task nlvr`, or its checkpoint.pt."
        ),
    ],
    nlvr: Annotated[
        str,
        typer.Option(
            help="A file in NLVR's official JSON-lines format (plain or .gz), or a shipped "
            "name: nlvr-dev, nlvr-test."
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Write one row per example (prediction, correct, ...) here.")
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu, cuda, cuda:1.")] = "auto",
) -> None:
    """Score an NLVR model on any NLVR-format file: accuracy overall and per reasoning category."""
    from circuitlab.data.nlvr import NLVRFormatError
    from circuitlab.device import pick_device
    from circuitlab.nlvr_eval import evaluate_file, write_predictions

    if out is not None and out.is_dir():
        exit_with(ValueError(f"--out {out} is a folder: give a file, e.g. {out}/predictions.csv"))
    try:
        predictions, table = evaluate_file(checkpoint, nlvr, str(pick_device(device)))
    except (ValueError, FileNotFoundError, NLVRFormatError) as err:
        exit_with(err)
    typer.echo(f"{len(predictions)} examples from {nlvr}")
    typer.echo(table.to_string(index=False))
    if out is not None:
        write_predictions(predictions, out)
        typer.echo(f"wrote {out}")


@app.command()
def causality(
    checkpoint: Annotated[
        Path,
        typer.Argument(
            help="A run directory of `circuitlab train --task nlvr`, or its checkpoint.pt."
        ),
    ],
    nlvr: Annotated[
        list[str] | None,
        typer.Option(
            help="Also score an NLVR-format file (or nlvr-dev, nlvr-test); may be repeated."
        ),
    ] = None,
    world: Annotated[
        int,
        typer.Option(min=0, help="Held-out world examples (new sentences, new scenes); 0: none."),
    ] = 4000,
    seed: Annotated[int, typer.Option(help="Seed of the swap partners.")] = 0,
    device: Annotated[str, typer.Option(help="auto, cpu, cuda, cuda:1.")] = "auto",
) -> None:
    """Does the circuit decide the answer? Accuracy with the model's own circuits, with
    signatures swapped between examples of different sentences (codes kept), with codes swapped
    (signatures kept), with an all-ones kernel; and the graphs' density (links with P > 0.5),
    its spread over sentences, participation ratio, first component's share and that
    component's correlation with the graphs' mean P (is it just how full they are?)."""
    from circuitlab.data.nlvr import NLVRFormatError, read_nlvr
    from circuitlab.device import pick_device
    from circuitlab.loading import load_model
    from circuitlab.nlvr_eval import full_task, nlvr_causality, nlvr_task, world_heldout

    files = list(nlvr or [])
    if world < 0:
        exit_with(ValueError(f"--world must be >= 0, got {world}"))
    if world == 0 and not files:
        exit_with(ValueError("nothing to score: give --world N > 0 or --nlvr FILE"))
    try:
        model, config = load_model(checkpoint, str(pick_device(device)))
        if config.model_kind != nac.NAME:
            title = model_kind(config.model_kind).title
            raise ValueError(
                f"{checkpoint} is a {title}: interventions swap and cut a NAC's circuits; "
                "read its routing in its store (circuitlab export, circuitlab app)"
            )
        if not model.config.conditional:
            raise ValueError(
                f"{checkpoint} is an unconditional model: it has one circuit, nothing to swap"
            )
        # the world's held-out sentences need the run's own pools; NLVR files need none
        if world:
            typer.echo("drawing the run's sentence pools (about a minute)", err=True)
        task = full_task(config) if world else nlvr_task(config)
        sets = {"world held-out": world_heldout(task, world)} if world else {}
        sets.update({name: read_nlvr(name) for name in files})
        rows = {}
        for name, data in sets.items():
            typer.echo(f"{name}: {len(data)} examples, own circuit and 3 interventions", err=True)
            rows[name] = nlvr_causality(model, task, data, seed)
    except (ValueError, FileNotFoundError, NLVRFormatError) as err:
        exit_with(err)
    table = pd.DataFrame(rows)  # one column per data set, one row per measure
    with pd.option_context("display.float_format", "{:.3f}".format):
        typer.echo(table.to_string())


@app.command()
def attribute(
    store_path: Annotated[
        Path,
        typer.Argument(help="A NAC store of scenes: stores/nlvr/nlvr or stores/pairs/pairs."),
    ],
    checkpoint: Annotated[
        Path, typer.Option(help="The run (or checkpoint.pt) that wrote the store.")
    ],
    threshold: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Links with P above this are attributed exactly."),
    ] = 0.5,
    limit: Annotated[
        int | None, typer.Option(help="Attribute only the first N examples with scenes.")
    ] = None,
) -> None:
    """Which links and modules decide each answer: the exact drop of p(answer) when each link
    the circuit has is cut, the first-order estimate for every link, each module knocked out,
    and the minimal circuit that keeps the answer; written into the store as attr_* columns."""
    from circuitlab.app.attribution_view import attribute_store
    from circuitlab.store import CircuitStoreError

    if limit is not None and limit < 1:
        exit_with(ValueError(f"--limit must be >= 1, got {limit}"))
    if not 0.0 <= threshold < 1.0:
        exit_with(ValueError(f"--threshold must be in [0, 1), got {threshold}"))
    try:
        store, summary = attribute_store(store_path, checkpoint, threshold=threshold, limit=limit)
    except (CircuitStoreError, ValueError, FileNotFoundError) as err:
        exit_with(err)
    typer.echo(repr(store))
    with pd.option_context("display.float_format", "{:.3f}".format):
        typer.echo(summary.to_string())
    typer.echo(f"added columns attr_* to {store.path}")
