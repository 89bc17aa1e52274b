"""How long the app takes to serve one circuit (goal: < 100 ms): building its cytoscape
elements (uncached) and its prior fit, for random circuits of a store; with ``--nlvr-store`` and
``--checkpoint``, how long a live intervention takes (goals: one scene < 300 ms, the accuracy
over 256 stored examples < 2 s), cutting 3 random links and knocking out 2 random processors;
with ``--browser``, first the README's own command from cold, right after ``make demo``
(``bench/app_readme.py``: server listening < 5 s, every store's first drawn circuit < 2 s on its
first open and < 1.2 s once cached, an attribution view < 1 s; written to
bench/results/app_readme_latency.csv), then the app in headless Chromium on a warm server
(``bench/app_browser.py``): the first view with a drawn circuit (goal < 2 s) and the server time
of a search, a switch to another circuit and a threshold step (goal < 300 ms each). Run it with
nothing else running.

    python bench/app_latency.py [STORE] [--circuits 50] [--browser]
        [--nlvr-store stores/nlvr/nlvr --checkpoint checkpoints/nlvr]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from circuitlab.app.store_view import StoreView
from circuitlab.store import CircuitStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, nargs="?", default=Path("stores/nlvr/nlvr2"))
    parser.add_argument("--circuits", type=int, default=50)
    parser.add_argument("--nlvr-store", type=Path, help="an NLVR store, for interventions")
    parser.add_argument("--checkpoint", type=Path, help="its model, for interventions")
    parser.add_argument("--browser", action="store_true", help="time the app in Chromium too")
    args = parser.parse_args()
    if args.browser:  # first: anything below opens (and caches into) the stores
        from app_readme import main as readme_cold

        readme_cold()
    view = StoreView(CircuitStore.open(args.store))
    picks = np.random.default_rng(0).choice(len(view.store), args.circuits, replace=False)
    rows = []

    def key(i: int) -> dict:
        return {"index": int(i)}

    for name, serve in (
        ("graph elements (P > 0.5)", lambda i: view.graph_elements(key(i), 0.5, None, "module")),
        ("graph elements, cached", lambda i: view.graph_elements(key(i), 0.5, None, "module")),
        ("prior fit + degree overlay", lambda i: view.prior_fit(key(i))),
        ("module details", lambda i: view.module_details(key(i), 0, 0.5)),
    ):
        times = []
        for i in picks:
            start = time.perf_counter()
            serve(i)
            times.append(1000 * (time.perf_counter() - start))
        rows.append({"step": name, "median_ms": statistics.median(times), "max_ms": max(times)})
    frame = pd.DataFrame(rows)
    total = frame.loc[frame["step"] != "graph elements, cached", "median_ms"].sum()
    print(f"{view.store!r}; {args.circuits} random circuits")
    print(frame.to_string(index=False, float_format=lambda x: f"{x:.1f}"))
    print(
        f"one circuit served (uncached elements + prior fit + details): {total:.1f} ms median;"
        f" goal < 100 ms: {'met' if total < 100 else 'not met'}"
    )

    if args.nlvr_store is not None and args.checkpoint is not None:
        intervention_latency(args.nlvr_store, args.checkpoint, args.circuits)
    if args.browser:
        from app_browser import browser_latency

        frame = browser_latency(args.store)
        print(f"\nthe app in headless Chromium on {args.store} (warm server; medians)")
        print(frame.to_string(index=False, float_format=lambda x: f"{x:.1f}"))


def intervention_latency(store: Path, checkpoint: Path, n_edits: int) -> None:
    """Median time of an edit's effect on one scene and on the probe's accuracy (warm: the
    probe batch is built and scored once first, as on a server that has answered before)."""
    from circuitlab.app.intervention_view import Edit
    from circuitlab.app.stores import AppStores

    stores = AppStores(store, checkpoint=checkpoint)
    intervener = stores.intervener(None)
    intervener.probe()
    rng = np.random.default_rng(0)
    roles = intervener.view.store.roles
    processors = [m for m in range(intervener.view.n_modules) if roles[m] == "processor"]
    batch_name = f"accuracy over {len(intervener.probe()[0])} examples"
    times: dict[str, list[float]] = {"one scene": [], batch_name: []}
    for _ in range(n_edits):
        pairs = [sorted(rng.choice(processors, 2, replace=False).tolist()) for _ in range(3)]
        knocked = tuple(rng.choice(processors, 2, replace=False).tolist())
        edit = Edit(cut=tuple(tuple(p) for p in pairs), knocked_out=knocked)
        index = int(rng.choice(intervener.rows))
        intervener.scene(index, Edit())  # its sentence encoded once, as after the first click
        start = time.perf_counter()
        intervener.scene(index, edit)
        times["one scene"].append(1000 * (time.perf_counter() - start))
        start = time.perf_counter()
        intervener.accuracy(edit)
        times[batch_name].append(1000 * (time.perf_counter() - start))
    goals = {"one scene": 300, batch_name: 2000}
    frame = pd.DataFrame(
        [
            {
                "intervention": name,
                "median_ms": statistics.median(samples),
                "max_ms": max(samples),
                "goal_ms": goals[name],
                "met": statistics.median(samples) < goals[name],
            }
            for name, samples in times.items()
        ]
    )
    print(f"\ninterventions on {store} with {checkpoint}; {n_edits} random edits")
    print(frame.to_string(index=False, float_format=lambda x: f"{x:.1f}"))


if __name__ == "__main__":
    main()
