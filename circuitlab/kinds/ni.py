"""Neural Interpreters (``circuitlab.ni``): ``NIConfig``, ``NeuralInterpreter``, stores of
routing."""

from __future__ import annotations

from typing import Any

import numpy as np

from circuitlab.kinds.base import ModelKind, arrays_summary

__all__ = ["KIND", "NAME", "config_for_task", "store_summary"]

NAME = "ni"


def config_for_task(options: dict[str, Any], task: Any) -> Any:
    """A Neural Interpreter's config: the task fixes the inputs and the CLS tokens (one per
    regression target, one per task of a multitask set, else one) and what each emits.
    ValueError for a conditional task (an interpreter reads no sentence).

    Parameters
    ----------
    options
        The run's model options.
    task
        The run's task.
    """
    from circuitlab.ni.config import NIConfig

    if task.conditional:
        raise ValueError(
            "a Neural Interpreter has no circuit generator and reads no sentence: "
            "train it unconditional (conditional: false)"
        )
    values = dict(options, input_dim=task.input_dim)
    objective = getattr(task, "objective", "classification")
    if objective == "regression":
        values.update(n_cls=task.n_outputs, n_outputs=1)
    elif objective == "multitask":  # a CLS token per task, reading its classes
        values.update(n_cls=task.n_tasks, n_outputs=task.n_classes)
    else:
        values.update(n_outputs=task.n_classes)
    return NIConfig.from_dict(values)


def store_summary(store: Any) -> str:
    """A Neural Interpreter store's arrays, and which function handles each token of input 0
    at each step (its largest routing weight).

    Parameters
    ----------
    store
        A store of this kind.
    """
    lines = arrays_summary(store)
    routing = np.asarray(store.array("routing")[0], dtype=np.float32)  # (steps, U, V)
    tokens = store.meta["tokens"]
    lines.append("input 0, the function that handles each token most, per step:")
    for k, step in enumerate(store.meta["steps"]):
        best = routing[k].argmax(0)
        cells = " ".join(f"{t}:f{u}" for t, u in zip(tokens, best, strict=True))
        lines.append(f"  script {step['script']} iteration {step['iteration']}: {cells}")
    return "\n".join(lines)


KIND = ModelKind(
    name=NAME,
    title="Neural Interpreter",
    config="circuitlab.ni.config:NIConfig",
    model="circuitlab.ni.model:NeuralInterpreter",
    config_for_task="circuitlab.kinds.ni:config_for_task",
    exporter="circuitlab.ni.export:write_ni_store",
    store_summary="circuitlab.kinds.ni:store_summary",
    circuit_array="routing",
    app_panel="circuitlab.app.panels.ni:PANEL",
)
