"""``circuitlab analyze`` and ``figures``: graph statistics, prior verdicts, embeddings and
publication figures of a store (the analysis layer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from circuitlab.cli.common import app, exit_with

__all__ = []


@app.command()
def analyze(
    store_path: Annotated[Path, typer.Argument(help="A circuit store directory.")],
    threshold: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Link threshold on P for the graph statistics (not the priors)."
        ),
    ] = 0.5,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Goodness-of-fit check of each verdict.")
    ] = True,
    method: Annotated[str, typer.Option(help="Embedding: tsne, pca or umap.")] = "tsne",
    seed: Annotated[int, typer.Option(help="Seed of fits, embedding and layout.")] = 0,
    recompute: Annotated[bool, typer.Option(help="Ignore cached results in the store.")] = False,
) -> None:
    """Graph statistics, prior fits, embedding and layout of every circuit, cached in the store;
    prints a summary per prior verdict."""
    from circuitlab.analysis.store_analysis import analyze_store
    from circuitlab.store import CircuitStoreError

    try:
        store, summary = analyze_store(
            store_path,
            threshold=threshold,
            check=check,
            method=method,
            seed=seed,
            recompute=recompute,
        )
    except (CircuitStoreError, ValueError, ImportError, OSError) as err:
        exit_with(err)
    typer.echo(repr(store))
    null = (store.analysis_params("graphs") or {}).get("prior_null")
    typer.echo(
        "prior verdicts (best_prior: the families fitted to P among the processors; "
        f"null: {null}; null_z: median |z| against it, > 4 is distinguishable; gap: median "
        f"nats to the runner-up); links, density, ...: the graphs at P > {threshold}:"
    )
    typer.echo(summary.round(3).to_string())
    typer.echo(
        f"added columns graph_*, prior*, {method}_x/_y and the module layout to {store.path}"
    )


@app.command()
def figures(
    store_path: Annotated[Path, typer.Argument(help="A circuit store directory.")],
    out: Annotated[Path, typer.Option(help="Directory for the PNG, SVG and PDF files.")] = Path(
        "figures"
    ),
    dropping: Annotated[
        Path | None,
        typer.Option(help="CSV of model, dropped, accuracy, throughput (bench/dropping.py)."),
    ] = None,
    method: Annotated[str, typer.Option(help="Embedding: tsne, pca or umap.")] = "tsne",
    threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Link threshold on P for drawn graphs.")
    ] = 0.5,
) -> None:
    """Write the publication figures of a store (prior samples, degree distribution with its
    fit, embedding by category with example circuits, and module dropping if given)."""
    from circuitlab.analysis.store_analysis import write_figures
    from circuitlab.store import CircuitStoreError

    try:
        paths = write_figures(
            store_path, out, dropping=dropping, method=method, threshold=threshold
        )
    except (CircuitStoreError, ValueError, ImportError, OSError) as err:
        exit_with(err)
    for path in paths:
        typer.echo(f"wrote {path}")
