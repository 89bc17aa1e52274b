"""Serving the Dash app: through waitress, a production WSGI server, by default; through Flask's
development server with ``debug`` (reloads, dev tools).

Waitress rather than gunicorn: it is pure Python and runs wherever circuitlab does (Linux,
macOS, Windows), and it serves with threads in one process, so the app's models and stores are
loaded once and shared by every visitor (gunicorn's workers are processes, each loading its
own copy of the models, and it does not run on Windows). The app keeps no visitor's state on the
server (typed sentences and edits live in each visitor's page), so threads need no session
handling; its caches are ``functools.lru_cache``s (safe under threads) and its models run
under locks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["DEFAULT_HOST", "DEFAULT_THREADS", "make_server", "serve"]

DEFAULT_HOST = "127.0.0.1"  # this machine only; "0.0.0.0" serves the lab's network
# waitress's own default (4) leaves a visitor waiting behind three slow circuit draws; 8 keeps
# two cores busy without queueing a typed sentence behind the map of another visitor
DEFAULT_THREADS = 8


def make_server(
    dash_app: Any, *, host: str = DEFAULT_HOST, port: int = 8050, threads: int = DEFAULT_THREADS
) -> Any:
    """A waitress server of ``dash_app`` (a ``dash.Dash``) bound to ``host``:``port`` (0: a free
    port, then read ``server.effective_port``), not yet serving: ``server.run()`` serves until
    ``server.close()``.

    Parameters
    ----------
    dash_app, host, port
        As above.
    threads
        Requests answered at once.
    """
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    from waitress.server import create_server

    return create_server(dash_app.server, host=host, port=port, threads=threads, ident="circuitlab")


def serve(
    dash_app: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = 8050,
    threads: int = DEFAULT_THREADS,
    debug: bool = False,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve ``dash_app`` (a ``dash.Dash``) on ``host``:``port`` until interrupted: waitress
    with ``threads`` worker threads, or Flask's development server with ``debug``. Once the
    address is bound (a bad host or a port in use fails before), ``announce`` gets the line
    that says where and how it is served.

    Parameters
    ----------
    dash_app, host, port, threads, debug, announce
        As above.
    """
    everywhere = host in ("0.0.0.0", "::")
    shown = "127.0.0.1" if everywhere else host
    how = "Flask's development server, debug" if debug else f"waitress, {threads} threads"
    line = f"circuitlab app: http://{shown}:{port}/  ({how}; Ctrl-C to stop)"
    if everywhere:
        line += "\n  listening on every interface: others reach it at this machine's address"
    if debug:
        announce(line)
        dash_app.run(host=host, port=port, debug=True)
        return
    server = make_server(dash_app, host=host, port=port, threads=threads)
    announce(line)
    try:
        server.run()
    except KeyboardInterrupt:  # Ctrl-C: stop quietly, as the development server does
        pass
    finally:
        server.close()
