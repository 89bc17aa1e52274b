"""What every ``circuitlab`` command shares: the Typer app, its user-error handling (one red
line and exit status 2, never a traceback) and the readers of options."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import typer
import yaml
from typer.core import TyperGroup

__all__ = ["app", "exit_with", "parse_value", "read_config_file"]

# what bad input raises (a wrong value or file, a file that is not what it claims to be: an
# OSError covers a directory given for a file, a .gz that is not gzip, no permission): one red
# line and exit status 2, never a traceback; CIRCUITLAB_TRACEBACK=1 shows the traceback instead
USER_ERRORS = (ValueError, OSError, EOFError)


class _UserErrorsGroup(TyperGroup):
    """The command group: any command's user error ends as ``_exit_with`` does."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as err:
            if os.environ.get("CIRCUITLAB_TRACEBACK"):
                raise
            exit_with(err)


app = typer.Typer(
    help="circuitlab: train Neural Attentive Circuits and export the circuits they learn.",
    no_args_is_help=True,
    add_completion=False,
    cls=_UserErrorsGroup,
)


def exit_with(err: Exception) -> NoReturn:
    """Report a user error (bad input, missing file ...) in one red line and exit with 2.

    Parameters
    ----------
    err
        The error; its message is printed.
    """
    typer.secho(f"error: {err}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2) from err


def parse_value(text: str) -> Any:
    """'16' -> 16, 'true' -> True, 'null' -> None, '[1, 2]' -> [1, 2], other text stays text.

    Parameters
    ----------
    text
        A value as typed on the command line.
    """
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def read_config_file(path: Path) -> dict[str, Any]:
    """The options of a YAML or JSON config file (its ``base:`` chain merged); a bad file is
    ``typer.BadParameter`` naming it.

    Parameters
    ----------
    path
        The config file.
    """
    from circuitlab.options_file import read_options

    try:
        return read_options(path)
    except (FileNotFoundError, ValueError) as err:
        raise typer.BadParameter(str(err), param_hint="--config") from err
