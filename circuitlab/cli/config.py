"""``circuitlab config show``: a recipe resolved through its ``base`` chain."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import yaml

from circuitlab.cli.common import app, exit_with, read_config_file

__all__ = []

config_app = typer.Typer(help="Read training recipes (config files).", no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def config_show(
    path: Annotated[Path, typer.Argument(help="A recipe: YAML or JSON, may have a 'base'.")],
) -> None:
    """Print a recipe fully resolved: its chain of 'base' files merged and every training
    option a run of it would use (the run's config.json), as YAML."""
    import dataclasses

    from circuitlab.run_config import TrainConfig

    try:
        values = read_config_file(path)
        config = TrainConfig.from_dict(values)
    except (typer.BadParameter, ValueError, TypeError) as err:
        exit_with(err)
    typer.echo(f"# {path}, resolved", nl=True)
    typer.echo(yaml.safe_dump(dataclasses.asdict(config), sort_keys=False).rstrip())
