"""Attribution of a store's examples (``circuitlab.attribution``), run with the stored circuits
and written into the store as analysis columns (``circuitlab attribute``), for the app and for
notebooks.

Per store row with a scene (NLVR scenes or pair-world pairs; rows without one get None), with
its stored signatures and codes:

- ``attr_link_effect``: the exact drop of p(answer) when each link is cut, for the links the
  circuit has (P > threshold); NaN for the others. The links, in order, are
  ``circuitlab.circuit.circuit_links(n_processors, n_readouts)``;
- ``attr_link_estimate``: the first-order estimate of the same drop, for every link;
- ``attr_module_effect``: the exact drop when each module is knocked out (processors first);
- ``attr_minimal``: the minimal circuit, link indices most attributed first: the fewest links,
  taken in the order of the estimate, that keep the answer with every other link cut;
  ``attr_minimal_keeps``: whether it was found (the whole circuit always keeps it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from circuitlab.app.scene_kinds import scene_examples
from circuitlab.app.store_view import load_circuit_generator
from circuitlab.circuit import circuit_links, present_links
from circuitlab.kinds import nac
from circuitlab.store import CircuitStore

__all__ = ["ExampleAttribution", "attribute_store", "store_links", "stored_circuits"]

ATTRIBUTION_KEY = "attribution"
COLUMNS = (
    "attr_answer",
    "attr_p_answer",
    "attr_link_effect",
    "attr_link_estimate",
    "attr_module_effect",
    "attr_minimal",
    "attr_minimal_keeps",
)
CHUNK = 64  # examples per step: a step's exact cuts are about 4,000 model rows


def store_links(store: CircuitStore) -> np.ndarray:
    """The (L, 2) links of a NAC store's circuits, in the order of its attribution columns.

    Parameters
    ----------
    store
        A NAC store.
    """
    roles = store.meta["roles"]
    return circuit_links(roles.count("processor"), roles.count("readout"))


def stored_circuits(store: CircuitStore, rows: np.ndarray) -> dict[str, Any]:
    """The stored ``signatures`` (N, U, d_sig) and ``codes`` (N, U, d_code; None when the
    store keeps none) of ``rows``, as float32 tensors: the circuits keyword arguments of
    ``circuitlab.attribution``'s functions.

    Parameters
    ----------
    store
        A NAC store.
    rows
        The rows.
    """
    import torch

    codes = None if store.codes is None else np.array(store.codes[rows], dtype=np.float32)
    return {
        "signatures": torch.from_numpy(np.array(store.signatures[rows], dtype=np.float32)),
        "codes": None if codes is None else torch.from_numpy(codes),
    }


def attribute_store(
    store_path: str | Path,
    checkpoint: str | Path,
    *,
    threshold: float = 0.5,
    limit: int | None = None,
    progress: bool = True,
) -> tuple[CircuitStore, pd.DataFrame]:
    """Attribute every row of the store at ``store_path`` that has a scene (the first ``limit``
    of them, if given) with the model at ``checkpoint`` (the one that wrote the store), and add
    the columns above under analysis key ``attribution``. Returns the store and a summary: per
    measure, its mean, median and share.

    Parameters
    ----------
    store_path
        A NAC store of NLVR scenes or pair-world pairs.
    checkpoint
        The model that wrote it.
    threshold, limit, progress
        P above which a link counts as present; rows attributed at most (None: all with a
        scene); a progress bar.
    """
    from tqdm import tqdm

    from circuitlab.attribution import (
        link_effect_estimates,
        link_effects,
        minimal_circuits,
        module_effects,
    )
    from circuitlab.files import file_sha256

    store = CircuitStore.open(store_path)
    if store.kind != nac.NAME or "scene" not in store.frame:
        raise ValueError(
            f"{store_path} holds no scenes to run: attribution needs a NAC store of NLVR scenes "
            "or pair-world pairs (e.g. stores/nlvr/nlvr, stores/pairs/pairs)"
        )
    generator = load_circuit_generator(checkpoint)
    model = generator.model
    if model.config.n_modules != store.meta["n_modules"]:
        raise ValueError(
            f"{checkpoint} has {model.config.n_modules} modules, the store's circuits "
            f"{store.meta['n_modules']}: give the checkpoint that wrote {store_path}"
        )
    frame = store.frame.reset_index(drop=True)
    rows = np.flatnonzero(frame["scene"].map(lambda s: isinstance(s, str)).to_numpy())
    rows = rows[:limit] if limit is not None else rows
    links = store_links(store)
    values: dict[str, list[Any]] = {name: [None] * len(frame) for name in COLUMNS}
    steps = range(0, len(rows), CHUNK)
    for start in tqdm(steps, desc="attribution", unit="step", disable=not progress):
        part = rows[start : start + CHUNK]
        batch = generator.task.batch_for(scene_examples(frame.iloc[part]))
        circuits = stored_circuits(store, part)
        which = present_links(store.link_probabilities(part), links, threshold)
        baseline, exact = link_effects(model, batch, **circuits, links=links, which=which)
        _, estimate = link_effect_estimates(model, batch, **circuits, links=links)
        _, modules = module_effects(model, batch, **circuits)
        minimal = minimal_circuits(model, batch, estimate, **circuits, links=links)
        for k, row in enumerate(part):
            values["attr_answer"][row] = int(baseline.answer[k])
            values["attr_p_answer"][row] = float(baseline.value[k])
            values["attr_link_effect"][row] = exact[k].astype(np.float32)
            values["attr_link_estimate"][row] = estimate[k].astype(np.float32)
            values["attr_module_effect"][row] = modules[k].astype(np.float32)
            values["attr_minimal"][row] = minimal.members[k].astype(np.int32)
            values["attr_minimal_keeps"][row] = bool(minimal.keeps[k])
    params = {
        "checkpoint_sha256": file_sha256(_checkpoint_file(checkpoint)),
        "measure": "p_answer",
        "threshold": threshold,
        "n_links": len(links),
        "examples": len(rows),
    }
    store.add_analysis(ATTRIBUTION_KEY, params, pd.DataFrame(values))
    return store, attribution_summary(store)


def _checkpoint_file(checkpoint: str | Path) -> Path:
    path = Path(checkpoint)
    return path / "checkpoint.pt" if path.is_dir() else path


def attribution_summary(store: CircuitStore) -> pd.DataFrame:
    """What the attribution columns say over the attributed rows: links each circuit has, the
    largest exact effect, the estimate's rank agreement with the exact effects (Spearman, over
    each row's present links), the minimal circuit's size and the share found."""
    from scipy.stats import spearmanr

    done = store.frame[store.frame["attr_answer"].notna()]
    if not len(done):
        raise ValueError(f"{store.path} has no attribution: run circuitlab attribute first")
    stats = []
    for _, row in done.iterrows():
        exact = np.asarray(row["attr_link_effect"], dtype=float)
        estimate = np.asarray(row["attr_link_estimate"], dtype=float)
        present = np.isfinite(exact)
        agreement = np.nan
        if present.sum() >= 3 and np.ptp(exact[present]) > 0:
            agreement = spearmanr(exact[present], estimate[present])[0]
        stats.append(
            {
                "present links": int(present.sum()),
                "largest effect": float(np.nanmax(exact)) if present.any() else np.nan,
                "rank agreement": agreement,
                "minimal size": len(row["attr_minimal"]),
                "minimal found": float(bool(row["attr_minimal_keeps"])),
            }
        )
    table = pd.DataFrame(stats)
    return table.agg(["mean", "median"]).T


class ExampleAttribution:
    """One stored example's attribution, for the app: exact effects of every link and module
    on p(answer) (``link_effect`` (L,) over ``links`` (L, 2), ``module_effect`` (U,)), and the
    minimal circuit ranked by them (``minimal``: link indices). Computed live with the
    example's stored circuit.

    Parameters
    ----------
    intervener
        The store's ``Intervener`` (its model and probe examples).
    index
        The store row of the example.
    """

    def __init__(self, intervener: Any, index: int) -> None:
        from circuitlab.attribution import link_effects, minimal_circuits, module_effects

        store = intervener.view.store
        one = np.array([index])
        signatures, codes = intervener._circuits(one, one)
        batch = intervener._scene_batch(index)
        model = intervener.model
        self.links = store_links(store)
        circuits = {"signatures": signatures, "codes": codes, "links": self.links}
        baseline, effects = link_effects(model, batch, **circuits)
        _, modules = module_effects(model, batch, signatures=signatures, codes=codes)
        minimal = minimal_circuits(model, batch, effects, **circuits)
        self.answer = int(baseline.answer[0])
        self.p_answer = float(baseline.value[0])
        self.link_effect = effects[0]
        self.module_effect = modules[0]
        self.minimal = minimal.members[0]

    def effect_of(self, i: int, j: int) -> float | None:
        """The effect of cutting link i-j (either order); None for no such link."""
        i, j = min(i, j), max(i, j)
        hits = np.flatnonzero((self.links[:, 0] == i) & (self.links[:, 1] == j))
        return float(self.link_effect[hits[0]]) if len(hits) else None

    def strongest(self, n_links: int = 6, n_modules: int = 3) -> list[tuple[str, float]]:
        """The edits that lower p(answer) most: ("cut i-j", effect) for the ``n_links``
        strongest links, then ("knock out m", effect) for the ``n_modules`` strongest modules."""
        order = np.argsort(-self.link_effect, kind="stable")[:n_links]
        rows = [
            (f"cut {i}-{j}", float(self.link_effect[k]))
            for k, (i, j) in zip(order, self.links[order], strict=True)
        ]
        modules = np.nan_to_num(self.module_effect, nan=-np.inf)
        for m in np.argsort(-modules, kind="stable")[:n_modules]:
            if np.isfinite(modules[m]):
                rows.append((f"knock out {m}", float(modules[m])))
        return rows
