"""``circuitlab app``: the Dash app served through waitress (the app layer)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import typer

from circuitlab.app.serving import DEFAULT_HOST, DEFAULT_THREADS
from circuitlab.cli.common import app, exit_with

__all__ = []


@app.command("app")
def serve_app(
    store_path: Annotated[
        Path, typer.Argument(help="A circuit store, or a folder of stores (its first is shown).")
    ],
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8050,
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on: 127.0.0.1 serves this machine only; 0.0.0.0 serves the "
            "lab's network (every interface)."
        ),
    ] = DEFAULT_HOST,
    threads: Annotated[
        int,
        typer.Option(
            min=1, help="Threads of the server (waitress): visitors answered at the same time."
        ),
    ] = DEFAULT_THREADS,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Processes serving the app, each with THREADS threads and its own copy of the "
            "stores and models (memory grows with it): 3 kept both cores of a 2-core server "
            "busy under 20 visitors (POSIX).",
        ),
    ] = 1,
    root: Annotated[
        Path | None,
        typer.Option(
            help="Serve the stores under this folder, ?store=KEY picks one (default: STORE_PATH)."
        ),
    ] = None,
    checkpoint: Annotated[
        list[Path] | None,
        typer.Option(
            help="The stores' conditional NLVR or pair-world model: typed sentences get "
            "circuits, stored scenes take interventions. Repeat it for several models; each "
            "store gets the one it was exported from."
        ),
    ] = None,
    debug: Annotated[
        bool,
        typer.Option(
            help="Flask's development server in Dash debug mode (reloads, dev tools) instead "
            "of waitress; for working on the app, never for serving it."
        ),
    ] = False,
) -> None:
    """Browse circuit stores in the Dash app at http://HOST:PORT/ (served by waitress, a
    production WSGI server, with THREADS threads in each of WORKERS processes)."""
    from circuitlab.app.factory import create_app
    from circuitlab.app.serving import one_thread_per_request, serve
    from circuitlab.store import CircuitStoreError

    if not debug:  # before the models start loading in the background (they import torch)
        one_thread_per_request()

    if workers > 1:
        if debug:
            exit_with(ValueError("--debug serves from one process: drop --workers"))
        build = functools.partial(create_app, store_path, root=root, checkpoint=checkpoint)
        _serve_workers(build, host, port, threads, workers)

    try:
        dash_app = create_app(store_path, root=root, checkpoint=checkpoint)
    except (CircuitStoreError, ValueError, OSError) as err:
        exit_with(err)
    stores = dash_app.circuit_stores
    under = f"\n  stores under {stores.root}: {', '.join(stores.keys)} (?store=KEY)"

    def announce(line: str) -> None:
        typer.echo(line + (under if len(stores.keys) > 1 else ""))

    try:
        serve(dash_app, host=host, port=port, threads=threads, debug=debug, announce=announce)
    except (OSError, ValueError) as err:  # a host that does not resolve, a port in use
        exit_with(ValueError(f"cannot serve on {host}:{port}: {err}"))


def _serve_workers(build, host: str, port: int, threads: int, workers: int) -> None:
    from circuitlab.app.serving import serve_processes

    try:
        status = serve_processes(
            build, host=host, port=port, threads=threads, workers=workers, announce=typer.echo
        )
    except (OSError, ValueError) as err:
        exit_with(ValueError(f"cannot serve on {host}:{port}: {err}"))
    raise typer.Exit(status)


if __name__ == "__main__":
    app()
