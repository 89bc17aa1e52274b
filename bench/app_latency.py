"""How long the app takes to serve one circuit (issue 5's goal: < 100 ms): building its
cytoscape elements (uncached) and its prior fit, for random circuits of a store.

    python bench/app_latency.py [STORE] [--circuits 50]
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
    args = parser.parse_args()
    view = StoreView(CircuitStore.open(args.store))
    picks = np.random.default_rng(0).choice(len(view.store), args.circuits, replace=False)
    rows = []

    def key(i: int) -> dict:
        return {"index": int(i)}

    for name, serve in (
        ("graph elements (P > 0.5)", lambda i: view.graph_elements(key(i), 0.5, None, "module")),
        ("graph elements, cached", lambda i: view.graph_elements(key(i), 0.5, None, "module")),
        ("prior fit + degree overlay", lambda i: view.prior_fit(key(i), 0.5)),
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


if __name__ == "__main__":
    main()
