"""The app served to a lab: the README's serve command (waitress) under many concurrent visitors.

It starts ``circuitlab app`` as the README does (every demo store, both checkpoints) with the user
guide's ``--workers 3`` for serving a team, on a free port, and drives N scripted visitors over
loopback, each in its own thread, at the HTTP level of Dash's callback requests
(``bench/dash_client.py`` plays the browser's renderer). Each visitor does what a person does, over
and over until the time is up: open a store, draw circuits, move the threshold, type a sentence,
cut a link, colour by attribution, compare with another circuit, switch stores. It prints, per kind
of action (the time until the page settles, every callback the action triggers included): how many,
errors, p50 / p95 / max seconds; requests served; and the server's resident memory at the start and
the end.

Two phases: the burst (``--visitors`` for ``--seconds``) and the soak (``--soak-visitors`` for
``--soak-seconds``; its memory is read after a warm-up pass of every action on every store).
Goals on the 2-core reference machine (issue 83): 20 visitors for 60 s with 0 errors, p95 of a
circuit draw < 2 s, of a typed sentence < 3 s; a 10-minute soak at 5 visitors with memory growth
< 10 % after warm-up. Needs the stores of ``make demo``; time it with nothing else running.

Plain threads and urllib rather than locust: a visitor here is a chain of Dash callbacks resolved
from the app's own dependency graph, which a locust user would need the same client for, and
locust's gevent workers would add a dependency and patch the sockets the client uses.

    python bench/app_load.py                       # burst, then the 10-minute soak
    python bench/app_load.py --soak-seconds 0      # the burst alone
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd
from app_readme import README_ARGS, _circuitlab, _wait_listening, free_port
from common import write_table
from dash_client import DashPage, Timed

from circuitlab.app.stores import find_stores
from circuitlab.store import CircuitStore

ROOT = Path("stores")
# a visitor's sentences: the kinds of NLVR2 and pair-world statements the stores hold
SENTENCES = (
    "There are exactly two dogs in the left image.",
    "At least one image shows three birds.",
    "The right image contains more cats than the left image.",
    "Each image has a single bottle.",
    "There are no people in either image.",
    "One image shows two horses and the other shows one.",
)
GOALS_S = {"draw a circuit": 2.0, "type a sentence": 3.0}
# the user guide's command for a team on the 2-core machine: one process keeps ~1.3 cores busy
# (Python runs one thread at a time), three keep both
TEAM_WORKERS = 3
SOAK_GROWTH = 0.10


def resident_mb(pid: int) -> float:
    """The resident memory of process ``pid`` and of its child processes (the workers) in MB
    (Linux /proc)."""
    total = 0.0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):  # exited while listed
            continue
        if int(status.parent.name) == pid or int(fields["PPid"]) == pid:
            total += int(fields.get("VmRSS", "0 kB").split()[0]) / 1024
    if total == 0:
        raise RuntimeError(f"no resident memory for process {pid}")
    return total


def model_stores() -> list[str]:
    """The keys of the NAC stores served with a model (typed sentences, attribution)."""
    keys = []
    for store in find_stores(ROOT.resolve()):
        key = store.relative_to(ROOT.resolve()).as_posix()
        opened = CircuitStore.open(store)
        if opened.kind == "nac" and key.split("/")[0] in ("pairs", "nlvr"):
            keys.append(key)
    if not keys:
        raise SystemExit(f"no NAC stores with a model under {ROOT}/: run `make demo` first")
    return keys


class Visitor:
    """One scripted visitor: a page, a random generator and the actions it timed."""

    def __init__(self, base: str, stores: list[str], seed: int) -> None:
        self.page = DashPage(base)
        self.stores = stores
        self.rng = random.Random(seed)
        self.timed: list[Timed] = []
        self.typed = 0

    def _rows(self) -> list[dict]:
        return self.page.props.get(("results", "data")) or []

    def _drawn_links(self) -> list[tuple[int, int]]:
        elements = self.page.props.get(("graph", "elements")) or []
        data = [e["data"] for e in elements if "source" in e["data"]]
        ends = [(d["source"], d["target"]) for d in data]
        # links among modules only: what decides also draws reads (token -> processor)
        return [(int(a), int(b)) for a, b in ends if a.isdigit() and b.isdigit()]

    def session(self, store: str) -> None:
        """One pass of what a person does on a store's page: open it, draw three circuits,
        move the threshold, cut a link and colour by attribution (on a stored circuit, whose
        scene the model can run), compare, type a sentence."""
        rng, page, log = self.rng, self.page, self.timed.append
        opened = page.open(f"store={store}")
        log(Timed("switch stores" if self.timed else "open a store", *_rest(opened)))
        for _ in range(3):
            rows = self._rows()
            if rows:
                row = rng.randrange(len(rows))
                cell = {"row": row, "column": 0, "column_id": "text", "row_id": rows[row]["id"]}
                log(page.act("draw a circuit", {("results", "active_cell"): cell}))
        # the page opens on what decides; a person moving the threshold first picks P's view
        threshold = {("mode", "value"): "threshold", ("threshold", "value"): rng.choice([0.3, 0.7])}
        log(page.act("threshold", threshold))
        links = self._drawn_links()
        if links:
            cut = [["cut", *rng.choice(links)]]
            log(page.act("cut a link", {("edits", "data"): cut}))
        log(page.act("attribute", {("color-by", "value"): "attribution"}))
        rows = self._rows()
        if rows:
            other = rows[rng.randrange(len(rows))]["id"]
            log(page.act("compare", {("compare-id", "value"): str(other)}))
        self.typed += 1
        sentence = rng.choice(SENTENCES)
        typed = {("typed", "value"): sentence, ("typed", "n_submit"): self.typed}
        log(page.act("type a sentence", typed))

    def run(self, deadline: float) -> None:
        while time.perf_counter() < deadline:
            self.session(self.rng.choice(self.stores))


def _rest(timed: Timed) -> tuple[float, int, int]:
    return timed.seconds, timed.requests, timed.errors


def drive(base: str, stores: list[str], visitors: int, seconds: float, seed: int) -> list[Timed]:
    """``visitors`` visitors, each in a thread, for ``seconds``; every action they timed."""
    deadline = time.perf_counter() + seconds
    crowd = [Visitor(base, stores, seed + k) for k in range(visitors)]
    threads = [threading.Thread(target=v.run, args=(deadline,)) for v in crowd]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [t for v in crowd for t in v.timed]


def summary(phase: str, timed: list[Timed]) -> list[dict]:
    """Per kind of action: count, requests, errors, p50 / p95 / max seconds, goal and met."""
    frame = pd.DataFrame([vars(t) for t in timed])
    rows = []
    for kind, group in frame.groupby("kind", sort=False):
        seconds = sorted(group["seconds"])
        p95 = seconds[min(len(seconds) - 1, int(round(0.95 * (len(seconds) - 1))))]
        goal = GOALS_S.get(kind)
        rows.append(
            {
                "phase": phase,
                "action": kind,
                "count": len(group),
                "requests": int(group["requests"].sum()),
                "errors": int(group["errors"].sum()),
                "p50_s": round(statistics.median(seconds), 3),
                "p95_s": round(p95, 3),
                "max_s": round(seconds[-1], 3),
                "goal_p95_s": goal,
                "met": None if goal is None else bool(p95 < goal and group["errors"].sum() == 0),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--visitors", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--soak-visitors", type=int, default=5)
    parser.add_argument("--soak-seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers",
        type=int,
        default=TEAM_WORKERS,
        help="the serve command's --workers (the user guide serves a team with 3 on 2 cores)",
    )
    args = parser.parse_args()
    stores = model_stores()
    port = free_port()
    log = tempfile.TemporaryFile(mode="w+")
    command = [_circuitlab(), *README_ARGS, "--port", str(port), "--workers", str(args.workers)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, text=True)
    base = f"http://127.0.0.1:{port}"
    rows, memory = [], []
    try:
        _wait_listening(server, log, port)
        memory.append({"when": "listening", "rss_mb": resident_mb(server.pid)})
        # warm-up: every store opened and every action done once, so that what the soak
        # measures is growth, not the first loading of models and stores
        warm = Visitor(base, stores, args.seed - 1)
        for store in stores:
            warm.session(store)
        rows += summary("warm-up (1 visitor, every store)", warm.timed)
        memory.append({"when": "after warm-up", "rss_mb": resident_mb(server.pid)})
        burst = drive(base, stores, args.visitors, args.seconds, args.seed)
        rows += summary(f"{args.visitors} visitors, {args.seconds:.0f} s", burst)
        memory.append({"when": "after the burst", "rss_mb": resident_mb(server.pid)})
        if args.soak_seconds > 0:
            start = resident_mb(server.pid)
            soak = drive(base, stores, args.soak_visitors, args.soak_seconds, args.seed + 1000)
            phase = f"soak: {args.soak_visitors} visitors, {args.soak_seconds:.0f} s"
            rows += summary(phase, soak)
            end = resident_mb(server.pid)
            memory.append({"when": "after the soak", "rss_mb": end})
            growth = (end - start) / start
            print(
                f"soak memory: {start:.0f} MB -> {end:.0f} MB ({100 * growth:+.1f} %; goal < "
                f"{100 * SOAK_GROWTH:.0f} %: {'met' if growth < SOAK_GROWTH else 'NOT met'})"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.seek(0)
        tracebacks = log.read().count("Traceback")
        log.close()
    for row in rows:
        row["server_tracebacks"] = tracebacks  # of the whole run, in the server's log
    write_table(rows, "app_load", "the app under concurrent visitors (seconds until settled)")
    write_table(memory, "app_load_memory", "the server's resident memory (MB)")


if __name__ == "__main__":
    main()
