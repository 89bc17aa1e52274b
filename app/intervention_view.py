"""Live interventions for the app: a store's examples (NLVR scenes or pair-world pairs) run
through the app's model with
their stored circuits, as stored or with links cut and modules knocked out
(``circuitlab.interventions``), to see whether the edited part of the circuit matters."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from circuitlab.app.attribution_view import ExampleAttribution
from circuitlab.app.scene_kinds import SceneKind, scene_examples, scene_kind
from circuitlab.app.store_view import CircuitGenerator, StoreView
from circuitlab.edits import CircuitEdit

if TYPE_CHECKING:
    from circuitlab.decisive import DecisiveCircuit
    from circuitlab.faithfulness import FaithfulnessCurve
    from circuitlab.task import Batch

__all__ = ["Intervener", "Outcome"]

# torch and the model code are imported inside the methods that run the model: the app reads
# stores without torch, and only a store opened with a checkpoint ever makes an Intervener.

PROBE_SIZE = 256  # stored examples the accuracy under an edit is measured on


@dataclass(frozen=True)
class Outcome:
    """p(true) on the shown example before and after the edit, and the accuracy over the probe
    examples (each with its own stored circuit, the same edit) before and after.

    Parameters
    ----------
    p_before, p_after, label, accuracy_before, accuracy_after, n_probe
        As above.
    """

    p_before: float
    p_after: float
    label: bool
    accuracy_before: float
    accuracy_after: float
    n_probe: int


class Intervener:
    """Runs a store's examples that have scenes with their stored circuits under a ``CircuitEdit``.
    The probe batch (the first PROBE_SIZE such examples) is built once, on first use.

    Parameters
    ----------
    generator
        The store's model.
    view
        The store's view.
    """

    def __init__(self, generator: CircuitGenerator, view: StoreView) -> None:
        if "scene" not in view.frame:
            raise ValueError(
                "this store holds no scenes: interventions need an NLVR store or a pairs store"
            )
        self.model, self.task, self.view = generator.model, generator.task, view
        self.rows = np.flatnonzero(view.frame["scene"].map(lambda s: isinstance(s, str)))
        frame = view.frame
        dataset = frame["dataset"].iloc[0] if "dataset" in frame and len(frame) else None
        self.kind: SceneKind = scene_kind(dataset)  # a store holds one dataset
        self._with_scene = frozenset(self.rows.tolist())
        self._probe: Batch | None = None
        self._baseline: np.ndarray | None = None
        self._lock = threading.Lock()
        # one example's batch (its sentence encoded once): clicks on one scene reuse it
        self._scene_batch = lru_cache(maxsize=64)(lambda index: self._batch(np.array([index])))
        # the module panel and the scene both ask for the shown example's reads, and its scene
        self.reads = lru_cache(maxsize=32)(self._reads)
        # the attribution view, the hover and the strongest-edits table ask for the same one
        self.attribution = lru_cache(maxsize=32)(self._attribution)
        self.decisive = lru_cache(maxsize=32)(self._decisive)
        self.faithfulness = lru_cache(maxsize=32)(self._faithfulness)
        self.scene_of = lru_cache(maxsize=64)(self._scene_of)

    def has_scene(self, index: int) -> bool:
        """Whether store row ``index`` has a scene to run the model on."""
        return index in self._with_scene

    def _batch(self, rows: np.ndarray) -> Batch:
        return self.task.batch_for(scene_examples(self.view.frame.iloc[rows]))

    def _circuits(self, signature_rows: np.ndarray, code_rows: np.ndarray):  # noqa: ANN202
        """The stored signatures of ``signature_rows`` and codes of ``code_rows`` (None when the
        store keeps no codes), as tensors."""
        store = self.view.store
        codes = None if store.codes is None else _tensor(store.codes[code_rows])
        return _tensor(store.signatures[signature_rows]), codes

    def _p_true(
        self, rows: np.ndarray, batch: Batch, edit: CircuitEdit, code_rows: np.ndarray | None = None
    ) -> np.ndarray:
        """p(true) on ``batch`` with the stored signatures of ``rows`` and codes of
        ``code_rows`` (default: ``rows``), under ``edit``."""
        from circuitlab.interventions import run_with_circuit

        signatures, codes = self._circuits(rows, rows if code_rows is None else code_rows)
        # runs in the server's threads may overlap: a run keeps no state on the model
        logits = run_with_circuit(
            self.model,
            batch,
            signatures=signatures,
            codes=codes,
            edit=edit or None,
        )
        return logits.softmax(-1)[:, 1].numpy()

    def probe(self) -> tuple[np.ndarray, Batch, np.ndarray]:
        """The probe rows, their batch and their p(true) with the stored circuits."""
        with self._lock:
            if self._probe is None:
                rows = self.rows[:PROBE_SIZE]
                self._probe = self._batch(rows)
                self._baseline = self._p_true(rows, self._probe, CircuitEdit())
        return self.rows[:PROBE_SIZE], self._probe, self._baseline

    def scene(self, index: int, edit: CircuitEdit) -> tuple[float, float]:
        """p(true) on store row ``index`` (which must have a scene) with its stored circuit,
        unedited and under ``edit``."""
        one = np.array([index])
        batch = self._scene_batch(index)
        before = float(self._p_true(one, batch, CircuitEdit())[0])
        return before, (float(self._p_true(one, batch, edit)[0]) if edit else before)

    def accuracy(self, edit: CircuitEdit) -> tuple[float, float]:
        """Accuracy over the probe examples, each with its own stored circuit, unedited and
        with the same ``edit``."""
        rows, batch, baseline = self.probe()
        labels = batch.labels.numpy().astype(bool)
        after = self._p_true(rows, batch, edit) if edit else baseline
        return float(np.mean((baseline > 0.5) == labels)), float(np.mean((after > 0.5) == labels))

    def outcome(self, index: int, edit: CircuitEdit) -> Outcome:
        """The edit's effect on store row ``index`` and on the probe."""
        p_before, p_after = self.scene(index, edit)
        accuracy_before, accuracy_after = self.accuracy(edit)
        return Outcome(
            p_before=p_before,
            p_after=p_after,
            label=bool(self.view.frame["label"].iloc[index]),
            accuracy_before=accuracy_before,
            accuracy_after=accuracy_after,
            n_probe=len(self.rows[:PROBE_SIZE]),
        )

    def swapped(self, index: int, other: int) -> dict[str, float]:
        """p(true) on store row ``index``'s scene with its own circuit and with store row
        ``other``'s signatures (its codes kept), codes (its signatures kept) or both."""
        batch, own, theirs = self._scene_batch(index), np.array([index]), np.array([other])
        choices = {"own": (own, own), "signatures": (theirs, own)}
        if self.view.store.codes is not None:
            choices.update(codes=(own, theirs), both=(theirs, theirs))
        return {
            name: float(self._p_true(signature_rows, batch, CircuitEdit(), code_rows)[0])
            for name, (signature_rows, code_rows) in choices.items()
        }

    def _attribution(self, index: int) -> ExampleAttribution:
        """Store row ``index``'s attribution: every link cut and every module knocked out,
        with its stored circuit (``attribution`` keeps the last 32)."""
        return ExampleAttribution(self, index)

    def _decisive(self, index: int) -> DecisiveCircuit:
        """Store row ``index``'s decisive circuit (``circuitlab.decisive``) with its stored
        circuit: its links and reads ranked by their estimated effect, kept up to 80 % of
        p(answer) (``decisive`` keeps the last 32)."""
        from circuitlab.decisive import decisive_circuit

        one = np.array([index])
        signatures, codes = self._circuits(one, one)
        return decisive_circuit(
            self.model, self._scene_batch(index), signatures=signatures, codes=codes
        )

    def _faithfulness(self, index: int) -> FaithfulnessCurve:
        """Store row ``index``'s faithfulness curve (``circuitlab.faithfulness``): f(k) of the
        ranking its decisive circuit keeps by (every link and read, by estimated effect) over
        the budget grid, beside 20 random rankings of the same elements (``faithfulness``
        keeps the last 32)."""
        from circuitlab.faithfulness import faithfulness_curve

        decisive = self.decisive(index)
        one = np.array([index])
        signatures, codes = self._circuits(one, one)
        return faithfulness_curve(
            self.model,
            self._scene_batch(index),
            decisive.link_scores[None],
            read_scores=decisive.read_scores[None],
            signatures=signatures,
            codes=codes,
            links=decisive.links,
        )

    def _scene_of(self, index: int) -> Any:
        """Store row ``index``'s scene (of ``self.kind``: NLVR boxes or a ``PairScene``), read
        from its JSON (``scene_of`` keeps the last 64 read: scenes are immutable)."""
        return self.kind.read(self.view.frame["scene"].iloc[index])

    def _reads(self, index: int, edit: CircuitEdit) -> np.ndarray:
        """What each processor reads of store row ``index``'s scene (its stored circuit, under
        ``edit``): read-in attention averaged over heads and over the model's read-ins,
        (n_processors, n_objects [+1: the null token, last, when the model has one])."""
        from circuitlab.interventions import read_in_weights

        one = np.array([index])
        signatures, codes = self._circuits(one, one)
        weights = read_in_weights(  # the recording is this call's own, safe beside other runs
            self.model,
            self._scene_batch(index),
            signatures=signatures,
            codes=codes,
            edit=edit or None,
        )
        return weights[:, 0].mean(0).numpy()

    def knockout(self, module: int) -> list[tuple[str, int, float, float]]:
        """(group, examples, accuracy with the stored circuits, accuracy with ``module``
        knocked out) over the probe: "all", then each category of the probe's examples."""
        rows, batch, baseline = self.probe()
        labels = batch.labels.numpy().astype(bool)
        after = self._p_true(rows, batch, CircuitEdit(knocked_out=(module,)))
        right_before, right_after = (baseline > 0.5) == labels, (after > 0.5) == labels
        groups = [("all", np.ones(len(rows), dtype=bool))]
        for category, mask in self.view.statistics.category_rows().items():
            if mask[rows].any():
                groups.append((category, mask[rows]))
        return [
            (name, int(m.sum()), float(right_before[m].mean()), float(right_after[m].mean()))
            for name, m in groups
        ]


def _tensor(values: np.ndarray):  # noqa: ANN202 - a torch.Tensor (torch imported lazily)
    """Stored circuit rows as a float32 tensor."""
    import torch

    return torch.from_numpy(np.asarray(values)).float()
