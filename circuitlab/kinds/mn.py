"""Modular Networks (``circuitlab.mn``, Viterbi EM): ``MNConfig``, ``ModularNetwork``, stores of
module paths."""

from __future__ import annotations

from typing import Any

import numpy as np

from circuitlab.kinds.base import ModelKind, arrays_summary

__all__ = ["KIND", "NAME", "config_for_task", "store_summary"]

NAME = "mn"


def config_for_task(options: dict[str, Any], task: Any) -> Any:
    """A Modular Network's config: inputs, outputs, objective, image shape and the size of the
    training set (the rows of Viterbi EM's table) come from the task. ValueError for a
    conditional task, or an endless one under EM.

    Parameters
    ----------
    options
        The run's model options.
    task
        The run's task.
    """
    from circuitlab.mn.config import MNConfig

    if task.conditional:
        raise ValueError("a Modular Network reads no sentence: train it unconditional")
    objective = getattr(task, "objective", "classification")
    values = dict(options, input_dim=task.input_dim, objective=objective)
    values["n_outputs"] = task.n_outputs if objective == "regression" else task.n_classes
    if getattr(task, "image_shape", None) is not None:
        values["image_shape"] = list(task.image_shape)
    n_train = getattr(task, "n_train", None)
    if n_train is None and values.get("method", "em") == "em":
        raise ValueError(
            f"task {task.name!r} is an endless stream of examples, and Viterbi EM keeps one "
            "best path per training example: train a finite task (mixture-regression, digits), "
            "or the method 'reinforce' or 'topk'"
        )
    values["n_examples"] = n_train or 0
    return MNConfig.from_dict(values)


def store_summary(store: Any) -> str:
    """A Modular Network store's arrays, each layer's module usage and input 0's path.

    Parameters
    ----------
    store
        A store of this kind.
    """
    lines = arrays_summary(store)
    usage = np.asarray(store.array("usage"))
    lines.append(f"method {store.meta['method']}; share of inputs picking each module:")
    for layer, shares in enumerate(usage):
        lines.append(f"  layer {layer}: " + " ".join(f"m{m}:{v:.2f}" for m, v in enumerate(shares)))
    path = np.asarray(store.array("paths")[0])
    steps = " -> ".join("+".join(f"m{m}" for m in sorted(set(layer))) for layer in path.tolist())
    lines.append(f"input 0 ({store.frame['text'].iloc[0]}): {steps}")
    return "\n".join(lines)


KIND = ModelKind(
    name=NAME,
    title="Modular Network",
    config="circuitlab.mn.config:MNConfig",
    model="circuitlab.mn.model:ModularNetwork",
    config_for_task="circuitlab.kinds.mn:config_for_task",
    exporter="circuitlab.mn.export:write_mn_store",
    store_summary="circuitlab.kinds.mn:store_summary",
    circuit_array="paths",
    app_panel="circuitlab.app.panels.mn:PANEL",
)
