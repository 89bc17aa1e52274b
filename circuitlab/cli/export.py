"""``circuitlab export``: a trained run's circuits into circuit stores, with the app's cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from circuitlab.cli.common import app, exit_with
from circuitlab.kinds import nac

__all__ = []


@app.command()
def export(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="Run directory written by `circuitlab train`, or a folder of unconditional runs."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Circuit store directory to write.")],
    n_circuits: Annotated[
        int,
        typer.Option(
            min=1,
            help="Conditional models, Neural Interpreters, Modular Networks: inputs to export.",
        ),
    ] = 256,
    seed: Annotated[int, typer.Option(help="Seed of the conditioning inputs.")] = 0,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing store.")] = False,
    app_cache: Annotated[
        bool,
        typer.Option(
            help="Cache in each store the module layout and t-SNE map the app draws, so that "
            "its first open is fast (about 15 s for 4,000 circuits)."
        ),
    ] = True,
) -> None:
    """Write the circuits of a trained run to a circuit store (an NLVR model: two stores,
    OUT/nlvr2 and OUT/nlvr; a pair-world model: OUT/nlvr2 and OUT/pairs). RUN_DIR may also be
    a folder of unconditional runs (e.g. checkpoints/priors): one store, a circuit per run."""
    from circuitlab.export import export_checkpoint

    try:
        stores = export_checkpoint(
            run_dir, out, n_circuits=n_circuits, seed=seed, overwrite=overwrite
        )
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        exit_with(err)
    for store in stores.values():
        typer.echo(f"wrote {store!r}")
    nac_stores = [s for s in stores.values() if s.kind == nac.NAME]
    if app_cache and nac_stores:  # the other kinds' app views compute nothing on first open
        from circuitlab.app.store_view import prepare_store

        for store in nac_stores:
            prepare_store(store)
        typer.echo("cached the app's module layout and t-SNE map in each store")
    if set(stores) == {"nlvr2", "nlvr"}:
        typer.echo(_nlvr_summary(stores["nlvr"].frame, stores["nlvr2"].frame))
    if set(stores) == {"nlvr2", "pairs"}:
        typer.echo(_pairs_summary(stores["pairs"].frame))


def _pairs_summary(pairs: pd.DataFrame) -> str:
    """Accuracy on the pairs store's examples of each held-out split, under the names the
    README and docs/results.md give them (theirs are over 4,000 examples a split)."""
    from circuitlab.pairs_eval import HELDOUT_SPLITS

    lines = ["accuracy on the pair-world examples of the store:"]
    for split, column in HELDOUT_SPLITS.items():
        rows = pairs[pairs["split"] == split]
        if len(rows):
            name = column.replace("heldout_", "held-out ")
            lines.append(f"  {name}: {rows['correct'].mean():.3f} over {len(rows)} examples")
    lines.append("  (the README's figures are over 4,000 examples a split: bench/pair_circuits.py)")
    return "\n".join(lines)


def _nlvr_summary(nlvr: pd.DataFrame, nlvr2: pd.DataFrame) -> str:
    """Accuracy on NLVR dev/test and the NLVR2 sentences per category and category source."""
    lines = ["accuracy on NLVR (sentence + scene):"]
    for split, rows in nlvr.groupby("split"):
        lines.append(f"  {split}: {rows['correct'].mean():.3f} over {len(rows)} examples")
    counts = (
        nlvr2.explode("categories")
        .dropna(subset=["categories"])
        .groupby(["categories", "category_source"])
        .size()
        .unstack(fill_value=0)
    )
    lines.append(
        f"NLVR2 sentences per category ({len(nlvr2)} sentences; a sentence may have several):"
    )
    lines.append(counts.to_string())
    return "\n".join(lines)
