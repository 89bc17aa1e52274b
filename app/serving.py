"""Serving the Dash app: through waitress, a production WSGI server, by default; through Flask's
development server with ``debug`` (reloads, dev tools).

Waitress rather than gunicorn: it is pure Python and runs wherever circuitlab does (Linux, macOS,
Windows), and by default it serves with threads in one process, so the app's models and stores are
loaded once, which is what one person on a laptop needs. A lab's server needs more than one process
(``serve_processes``: Python runs one thread at a time, and a circuit draw is mostly Python), each
with its own copy of the models; waitress serves each of them on one shared socket, as gunicorn's
workers would, so one server runs both (gunicorn does not run on Windows, where the app serves from
one process). The app keeps no visitor's state on the server (typed sentences and edits live in
each visitor's page), so threads and processes need no session handling; its caches are
``functools.lru_cache``s (safe under threads) and its models run under locks.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable
from multiprocessing import connection, get_context
from typing import Any

__all__ = ["DEFAULT_HOST", "DEFAULT_THREADS", "make_server", "serve", "serve_processes"]

STOP_S = 10  # seconds a stopped worker has to exit before it is killed
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
    how = "Flask's development server, debug" if debug else f"waitress, {threads} threads"
    line = _address_line(host, port, how)
    if debug:
        announce(line)
        dash_app.run(host=host, port=port, debug=True)
        return
    one_thread_per_request()
    server = make_server(dash_app, host=host, port=port, threads=threads)
    announce(line)
    try:
        server.run()
    except KeyboardInterrupt:  # Ctrl-C: stop quietly, as the development server does
        pass
    finally:
        server.close()


def serve_processes(
    build: Callable[[], Any],
    *,
    host: str = DEFAULT_HOST,
    port: int = 8050,
    threads: int = DEFAULT_THREADS,
    workers: int = 2,
    announce: Callable[[str], None] = print,
) -> int:
    """Serve the app from ``workers`` processes until interrupted, and return the exit status:
    0 after Ctrl-C, else that of the first worker that stopped (the others are then stopped).

    Python runs one thread at a time in a process, and a circuit draw is mostly Python (the prior
    fit's graph statistics, Dash's JSON), so one process keeps about 1.3 of 2 cores busy
    however many visitors wait. Here the listening socket is bound once, then each worker (a
    forked process) builds its own app with ``build`` (its own stores, caches and models:
    memory grows with ``workers``) and serves it with waitress on that socket; the kernel
    hands each new connection to one of them. The app keeps no visitor's state on the server,
    so any worker can answer any request. POSIX only (the workers are forked).

    Parameters
    ----------
    build
        Called in each worker: returns the ``dash.Dash`` app it serves.
    host, port, threads, announce
        As ``serve`` takes them; ``threads`` per worker.
    workers
        Processes, at least 2 (one: ``serve``).
    """
    if workers < 2:
        raise ValueError(f"workers must be at least 2 here, got {workers} (one worker: serve)")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    if os.name != "posix":
        raise ValueError(f"--workers needs a POSIX system (its workers are forked), not {os.name}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=1024)
    context = get_context("fork")
    processes = [
        context.Process(
            target=_worker, args=(build, listener, threads, os.getpid()), name=f"worker-{k}"
        )
        for k in range(workers)
    ]
    for process in processes:
        process.start()
    listener.close()  # the workers hold it
    announce(_address_line(host, port, f"waitress, {workers} processes x {threads} threads"))
    # SIGTERM (a service manager's stop, ``kill``) stops the workers too, as Ctrl-C does
    # and Ctrl-C even where the server was started with SIGINT ignored (it inherits that)
    previous = signal.signal(signal.SIGTERM, _interrupt), signal.signal(signal.SIGINT, _interrupt)
    try:
        ready = connection.wait([p.sentinel for p in processes])
        stopped = next(p for p in processes if p.sentinel in ready)
        stopped.join()  # its sentinel closes a moment before its exit status is there
        status = stopped.exitcode
    except KeyboardInterrupt:
        status = 0
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=STOP_S)
            if process.is_alive():  # stuck in C code that never returned to Python
                process.kill()
                process.join()
    return status


def _address_line(host: str, port: int, how: str) -> str:
    """The line that says where the app is served and ``how``."""
    everywhere = host in ("0.0.0.0", "::")
    shown = "127.0.0.1" if everywhere else host
    line = f"circuitlab app: http://{shown}:{port}/  ({how}; Ctrl-C to stop)"
    if everywhere:
        line += "\n  listening on every interface: others reach it at this machine's address"
    return line


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _worker(build: Callable[[], Any], listener: socket.socket, threads: int, parent: int) -> None:
    """One worker process: build the app, then serve it on the shared ``listener``."""
    from waitress.server import create_server

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the workers on Ctrl-C
    # stop at once: a worker keeps nothing to save, and an interpreter's orderly exit would
    # first wait for the threads still answering requests or loading a model
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    _die_with_parent(parent)
    one_thread_per_request()
    try:
        dash_app = build()
    except Exception as err:  # noqa: BLE001 - the worker's last word: what stopped it
        print(f"circuitlab app: a worker could not start: {err}", file=sys.stderr)
        sys.exit(2)
    server = create_server(dash_app.server, sockets=[listener], threads=threads, ident="circuitlab")
    server.run()


def one_thread_per_request() -> None:
    """Each request's numerical work on its own thread, torch's and numpy's BLAS alike: the app's
    computations are small (one example, a few hundred cut circuits, a 32-module matrix), so
    pools of threads cost more than they share out once the server's threads and workers keep
    the cores busy. Measured on the 2-core machine with both cores busy: the decisive circuit of
    a pair-world example 0.16 s on two torch threads, 0.05 s on one; a prior reading 100 ms with
    OpenBLAS on two threads (its eigendecompositions spinning against each other), 31 ms on one.

    torch is not imported here: importing it (~1 s) between binding the port and serving kept the
    first visitor waiting, and a store without a model never needs it. Its OpenMP pool reads
    ``OMP_NUM_THREADS`` when a model's loading first imports it."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)  # the libraries loaded now, process-wide until the process ends
    os.environ["OMP_NUM_THREADS"] = "1"  # those loaded later (torch's OpenMP)
    # torch imported already (or being imported by a model loading in the background)
    set_num_threads = getattr(sys.modules.get("torch"), "set_num_threads", None)
    if set_num_threads is not None:
        set_num_threads(1)


def _die_with_parent(parent: int) -> None:
    """On Linux, have the kernel send this worker SIGTERM when its parent dies, even by SIGKILL
    (elsewhere a killed parent leaves its workers serving until they are stopped)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # it died before the call: nobody will send the signal
        sys.exit(0)
