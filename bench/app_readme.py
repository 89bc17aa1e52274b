"""The app as `make demo` leaves it, timed from cold: the README's own command
(``circuitlab app`` on every demo store, both checkpoints) started as a process, and

- how long until its server listens;
- per store, the first drawn circuit in a fresh browser session (a new Chromium: nothing in its
  cache) on the store's first open since the server started, then again once the server has it
  open (median of ``repeats`` fresh sessions);
- on the stores with scenes and their model, the attribution view: from the click on "colour
  by: attribution" until the modules carry their effects.

Goals (issue 61): listening < 5 s; first drawn circuit < 2 s on a first open and < 1.2 s once
cached; an attribution view < 1 s. Needs Debian's chromium and chromium-driver
(``scripts/setup.sh --browser``) and the stores of ``make demo``; run it with nothing else
running (``bench/app_latency.py --browser`` runs it first):

    python bench/app_readme.py    # prints the table, writes bench/results/app_readme_latency.csv
"""

from __future__ import annotations

import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import pandas as pd
from app_browser import _browser

from circuitlab.app.stores import find_stores
from circuitlab.store import CircuitStore

# the serve line of `make demo` (tests/test_bench_app_readme.py holds them equal)
README_ARGS = (
    "app",
    "stores/pairs/nlvr2",
    "--root",
    "stores",
    "--checkpoint",
    "checkpoints/pairs",
    "--checkpoint",
    "checkpoints/nlvr",
)
ROOT = Path("stores")
GOALS_MS = {"listening": 5000, "first open": 2000, "cached": 1200, "attribution view": 1000}
# the graph each kind of store draws first: a NAC's circuit, a Neural Interpreter's routing,
# a Modular Network's paths, an NFM network's layer reads
GRAPH_OF_KIND = {"nac": "graph", "ni": "ni-transitions", "mn": "mn-graph", "nfm": "nfm-graph"}
# resolves with performance.now() (ms from navigation start) once the cytoscape graph of id
# arguments[0] shows arguments[1] nodes (a NAC's modules), or any (0: the other kinds)
DRAWN_WITH = """
const [id, want] = arguments, done = arguments[arguments.length - 1];
function check() {
    const graph = document.getElementById(id);
    const cy = graph && graph._cyreg && graph._cyreg.cy;
    const n = cy ? cy.nodes().length : 0;
    const count = document.getElementById('edge-count');
    // want -1: a NAC page's default view (what decides) may draw any number of nodes, or none
    // (an answer that stands with every link cut): drawn once the draw wrote its count line
    const written = want === -1 && cy && count && count.textContent.length > 0;
    if (written || (n > 0 && (want === 0 || n === want))) { done(performance.now()); }
    else { requestAnimationFrame(check); }
}
check();
"""
# resolves once the page has settled: its plots drawn (their slots open after the circuit) and
# no component waiting for a callback, so that a click is timed alone, as a visitor's would be
SETTLED = """
const done = arguments[arguments.length - 1];
function check() {
    const plots = ['degree', 'embedding'].map(id => document.querySelector(`#${id} .main-svg`));
    const busy = document.querySelector('[data-dash-is-loading="true"]');
    if (plots.every(p => p) && !busy) { done(performance.now()); }
    else { setTimeout(check, 20); }
}
check();
"""
# clicks "colour by: attribution" and resolves with the ms until the modules carry their
# effects; the click is the script's own, so the clock starts with it (a click sent by the
# driver first let a fast answer land before the clock started: 0.3 ms)
ATTRIBUTED = """
const done = arguments[arguments.length - 1], start = performance.now();
document.querySelector("#color-by input[value='attribution']").click();
function check() {
    const cy = document.getElementById('graph')._cyreg.cy;
    // every node carries an effect key (null until attributed): wait for a number
    if (cy.nodes().some(n => n.data('effect') != null)) { done(performance.now() - start); }
    else { requestAnimationFrame(check); }
}
check();
"""


def _circuitlab() -> str:
    """The console script of the running environment (else the one on PATH)."""
    beside = Path(sys.executable).parent / "circuitlab"
    found = str(beside) if beside.is_file() else shutil.which("circuitlab")
    if found is None:
        raise SystemExit("no circuitlab command: install the project (make setup)")
    return found


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_listening(
    server: subprocess.Popen, log: IO[str], port: int, timeout_s: float = 120
) -> float:
    """Seconds from now until ``port`` accepts a connection (the caller started ``server``
    just before, logging to ``log``); raises if the server exits or the timeout passes."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout_s:
        if server.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"the app exited ({server.returncode}): {log.read()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return time.perf_counter() - start
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"the app did not listen on port {port} within {timeout_s} s")


def _first_drawn(url: str, drawn: tuple[str, int]) -> float:
    """ms from navigation start to the drawn graph of ``url`` (``drawn``: its id and node
    count, ``_drawn_graph``), in a fresh Chromium."""
    driver = _browser()
    try:
        driver.get(url)
        return driver.execute_async_script(DRAWN_WITH, *drawn)
    finally:
        driver.quit()


def _drawn_graph(store: Path) -> tuple[str, int]:
    """The id of the graph a page of ``store`` draws first, and what counts as drawn: -1 for a
    NAC (its default view, what decides, has written its count line), 0 for any nodes."""
    meta = json.loads((store / "store.json").read_text())
    kind = meta.get("kind", "nac")
    return GRAPH_OF_KIND[kind], -1 if kind == "nac" else 0


def _attribution_view(url: str, n_modules: int) -> float:
    """ms from the click on "colour by: attribution" to modules coloured by their effect, the
    click made once the page has settled."""
    driver = _browser()
    try:
        driver.get(f"{url}&mode=threshold")  # every module drawn, coloured once attributed
        driver.execute_async_script(DRAWN_WITH, "graph", n_modules)
        driver.execute_async_script(SETTLED)
        elapsed = driver.execute_async_script(ATTRIBUTED)
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        if errors:
            raise RuntimeError(f"the browser console holds errors: {errors[:3]}")
        return elapsed
    finally:
        driver.quit()


def _has_scenes(store: Path) -> bool:
    """Whether the store's examples carry scenes an attached model can run (NLVR, pairs)."""
    return "scene" in CircuitStore.open(store).frame.columns


def readme_latency(repeats: int = 3) -> pd.DataFrame:
    """The table (step, store, ms, goal_ms, met) of the README command from cold."""
    if not ROOT.is_dir():
        raise SystemExit(f"no {ROOT}/: run `make demo` first")
    port = free_port()
    command = [_circuitlab(), *README_ARGS, "--port", str(port)]
    # the server logs every request to stderr: a file, since a pipe nobody reads fills up and
    # blocks the server mid-page
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, text=True)
    rows = []
    try:
        listening = 1000 * _wait_listening(server, log, port)
        rows.append({"step": "listening", "store": "-", "ms": listening})
        url = f"http://127.0.0.1:{port}/"
        for store in find_stores(ROOT.resolve()):
            key = store.relative_to(ROOT.resolve()).as_posix()
            drawn = _drawn_graph(store)
            page = f"{url}?store={key}"
            rows.append({"step": "first open", "store": key, "ms": _first_drawn(page, drawn)})
            cached = [_first_drawn(page, drawn) for _ in range(repeats)]
            rows.append({"step": "cached", "store": key, "ms": statistics.median(cached)})
            if _has_scenes(store):
                views = [_attribution_view(f"{page}&id=0", drawn[1]) for _ in range(repeats)]
                rows.append(
                    {"step": "attribution view", "store": key, "ms": statistics.median(views)}
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    frame = pd.DataFrame(rows)
    frame["goal_ms"] = frame["step"].map(GOALS_MS)
    frame["met"] = frame["ms"] < frame["goal_ms"]
    return frame


def main() -> None:
    """Print the README command's table from cold and write it to bench/results."""
    from common import write_table

    frame = readme_latency()
    header = "the README's app command from cold, right after make demo (ms)"
    write_table(frame.to_dict("records"), "app_readme_latency", header)


if __name__ == "__main__":
    main()
