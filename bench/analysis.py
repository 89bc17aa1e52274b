"""The analysis layer at scale: PCA -> t-SNE of 10k circuits (scikit-learn against openTSNE,
the default of circuitlab.analysis.embedding.tsne), and reading one circuit from a store of
10k. The four prior fits at U = 1024 have their own script, bench/prior_fit_time.py.

The circuits: 10 clusters of signatures (U = 64 modules, 16 dims each), so the map has a
structure to keep; each t-SNE is scored by how often a circuit's 10 nearest map neighbours
share its cluster.

    python bench/analysis.py [--circuits 10000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common import write_table
from sklearn.neighbors import KNeighborsClassifier

from circuitlab.analysis.embedding import pca_features, tsne
from circuitlab.circuit import PROCESSOR, Circuit
from circuitlab.store import CircuitStore

MODULES, SIG_DIM, CLUSTERS = 64, 16, 10


def clustered_store(path: Path, n: int, seed: int = 0) -> tuple[CircuitStore, np.ndarray]:
    """A store of ``n`` circuits whose signatures scatter around one of ``CLUSTERS`` centres."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((CLUSTERS, MODULES, SIG_DIM))
    labels = rng.integers(0, CLUSTERS, n)
    roles = np.array([PROCESSOR] * MODULES)
    noise = 0.5 * rng.standard_normal((n, MODULES, SIG_DIM))
    circuits = [Circuit(centres[k] + e, roles) for k, e in zip(labels, noise, strict=True)]
    frame = pd.DataFrame({"cluster": labels})
    return CircuitStore.write(path, circuits, frame, overwrite=True), labels


def neighbour_agreement(xy: np.ndarray, labels: np.ndarray) -> float:
    """Leave-one-out 10-NN accuracy of the cluster labels on the map."""
    knn = KNeighborsClassifier(11).fit(xy, labels)
    neighbours = knn.kneighbors(xy, return_distance=False)[:, 1:]
    return float((labels[neighbours] == labels[:, None]).mean())


def timed(fn, *args) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--circuits", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        write_s, (store, labels) = timed(clustered_store, Path(tmp) / "store", args.circuits)
        rows.append({"task": f"write a store of {args.circuits} circuits", "seconds": write_s})
        open_s = statistics.median(
            timed(CircuitStore.open, store.path)[0] for _ in range(args.repeats)
        )
        rows.append({"task": "open the store", "seconds": open_s})
        rng = np.random.default_rng(1)
        reads = [timed(store.__getitem__, int(i))[0] for i in rng.integers(0, len(store), 200)]
        rows.append({"task": "read one circuit (median of 200)", "seconds": np.median(reads)})
        pca_s, features = timed(pca_features, store)
        rows.append({"task": f"P of every circuit, PCA to {features.shape[1]}", "seconds": pca_s})
        for name, backend in (("scikit-learn", "sklearn"), ("openTSNE", "opentsne")):
            runs = [timed(tsne, features, 30, 0, backend) for _ in range(args.repeats)]
            seconds = statistics.median(t for t, _ in runs)
            agreement = neighbour_agreement(runs[0][1], labels)
            rows.append({"task": f"t-SNE, {name}", "seconds": seconds, "10nn_agreement": agreement})
    table = write_table(rows, "analysis", f"analysis at {args.circuits} circuits (U = {MODULES})")
    tsne_seconds = table[table["task"].str.startswith("t-SNE")].set_index("task")["seconds"]
    faster = tsne_seconds.idxmin().removeprefix("t-SNE, ")
    print(f"faster t-SNE: {faster} ({tsne_seconds.max() / tsne_seconds.min():.1f}x)")


if __name__ == "__main__":
    main()
