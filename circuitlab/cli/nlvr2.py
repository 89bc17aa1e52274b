"""``circuitlab nlvr2 features``: frozen CLIP features of NLVR2 images, for users who have them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from circuitlab.cli.common import app, exit_with

__all__ = []

nlvr2_app = typer.Typer(help="NLVR2 with images: frozen CLIP features.", no_args_is_help=True)
app.add_typer(nlvr2_app, name="nlvr2")


@nlvr2_app.command("features")
def nlvr2_features(
    images: Annotated[Path, typer.Option(help="Folder of NLVR2 images (searched recursively).")],
    clip: Annotated[Path, typer.Option(help="A transformers CLIP model folder you have.")],
    nlvr2: Annotated[
        str, typer.Option(help="An NLVR2 JSON-lines file (or nlvr2-dev, nlvr2-test1).")
    ],
    out: Annotated[Path, typer.Option(help="Feature folder to write (or complete).")],
    device: Annotated[str, typer.Option(help="auto, cpu, cuda, cuda:1.")] = "auto",
    batch_size: Annotated[int, typer.Option(min=1, help="Image pairs per CLIP batch.")] = 16,
) -> None:
    """Compute and cache frozen CLIP image and text features for an NLVR2 file."""
    from circuitlab.data.clip_features import compute_features
    from circuitlab.data.nlvr import NLVRFormatError
    from circuitlab.device import pick_device

    try:
        path = compute_features(
            nlvr2, images, clip, out, device=str(pick_device(device)), batch_size=batch_size
        )
    except (ValueError, FileNotFoundError, ImportError, NLVRFormatError) as err:
        exit_with(err)
    typer.echo(f"wrote {path}; train with: circuitlab train --task nlvr2 --features {path}")
