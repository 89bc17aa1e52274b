"""What a model kind declares: ``ModelKind``. Classes and functions are named by import path
("module:attribute") and imported on first use, so the registry loads no torch."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["ModelKind", "arrays_summary", "load"]


def load(path: str) -> Any:
    """The object at ``path``, "package.module:attribute".

    Parameters
    ----------
    path
        As above.
    """
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class ModelKind:
    """One kind of model circuitlab trains, saves and reads.

    Parameters
    ----------
    name
        The kind's name in configs (``model_kind``), checkpoints and stores ("nac").
    title
        What the kind is called in messages ("Neural Attentive Circuit").
    config
        Import path of its config class, a dataclass with ``from_dict`` and ``to_dict``.
    model
        Import path of its model class, built from a config.
    config_for_task
        Import path of ``(model options: dict, task) -> config``: the task fixes inputs,
        outputs and conditioning, the options the rest; ValueError when the task does not fit.
    exporter
        Import path of ``(model, TrainConfig, checkpoint, out, *, n_circuits, seed,
        overwrite)``, which writes the model's circuits: one store, or a dict of stores by name.
    circuit_array
        The array a store of this kind holds its circuits in, one entry per sample.
    store_summary
        Import path of ``(CircuitStore) -> str``, what ``circuitlab info`` prints of a store of
        this kind (numpy only); None: the NAC's summary of signatures and links.
    app_panel
        Import path of the ``circuitlab.app.panels.base.KindPanel`` the app shows a store of
        this kind with ("circuitlab.app.panels.ni:PANEL"); None: the app cannot show one.
    """

    name: str
    title: str
    config: str
    model: str
    config_for_task: str
    exporter: str
    circuit_array: str
    store_summary: str | None = None
    app_panel: str | None = None

    def config_class(self) -> type:
        """The kind's config class (imported on first use)."""
        return load(self.config)

    def model_class(self) -> type:
        """The kind's model class (imported on first use: loads torch)."""
        return load(self.model)

    def build_config(self, options: dict[str, Any], task: Any) -> Any:
        """The config of a model of this kind for ``task``, from a run's model ``options``."""
        return load(self.config_for_task)(options, task)

    def export(self, model: Any, config: Any, checkpoint: Any, out: Any, **options: Any) -> dict:
        """Write ``model``'s circuits under ``out``: the stores written, by name ("" when
        ``out`` is the store itself)."""
        written = load(self.exporter)(model, config, checkpoint, out, **options)
        return written if isinstance(written, dict) else {"": written}


def arrays_summary(store: Any) -> list[str]:
    """A store's repr, frame columns and one line per array.

    Parameters
    ----------
    store
        Any store.
    """
    lines = [repr(store), f"columns: {list(store.frame.columns)}", "arrays:"]
    for spec in store.meta["arrays"]:
        lines.append(
            f"  {spec['name']}: {spec['dtype']} {spec['shape']} ({', '.join(spec['axes'])})"
        )
    return lines
