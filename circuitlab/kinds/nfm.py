"""CNN-MLPs with Neural Function Modules (``circuitlab.nfm``): ``NFMConfig``, ``NFMNetwork``,
stores of which layer reads which."""

from __future__ import annotations

from typing import Any

import numpy as np

from circuitlab.kinds.base import ModelKind, arrays_summary

__all__ = ["KIND", "NAME", "config_for_task", "store_summary"]

NAME = "nfm"


def config_for_task(options: dict[str, Any], task: Any) -> Any:
    """An NFM network's config: the task fixes the image size, the question width and the
    answers. ValueError for a task without images and questions.

    Parameters
    ----------
    options
        The run's model options.
    task
        The run's task.
    """
    from circuitlab.nfm.config import NFMConfig

    if getattr(task, "image_size", None) is None or task.cond_dim is None:
        raise ValueError(
            f"an NFM network answers questions about images: task {task.name!r} has "
            "none (train it on sort-of-clevr)"
        )
    values = dict(options, image_size=task.image_size, question_dim=task.cond_dim)
    return NFMConfig.from_dict({**values, "n_answers": task.n_classes})


def store_summary(store: Any) -> str:
    """An NFM store's arrays and what each reader layer reads, averaged over the inputs.

    Parameters
    ----------
    store
        A store of this kind.
    """
    lines = arrays_summary(store)
    mean = np.asarray(store.array("attention"), dtype=np.float64).mean(0)  # (readers, slots)
    lines.append("mean attention of each second-pass layer over what each layer wrote:")
    for reader, row in enumerate(mean):
        cells = " ".join(
            f"{name}:{v:.2f}" for name, v in zip(store.meta["slots"], row, strict=True)
        )
        lines.append(f"  pass 2 layer {reader + 1} reads {cells}")
    return "\n".join(lines)


KIND = ModelKind(
    name=NAME,
    title="network with Neural Function Modules",
    config="circuitlab.nfm.config:NFMConfig",
    model="circuitlab.nfm.model:NFMNetwork",
    config_for_task="circuitlab.kinds.nfm:config_for_task",
    exporter="circuitlab.nfm.export:write_nfm_store",
    store_summary="circuitlab.kinds.nfm:store_summary",
    circuit_array="attention",
    app_panel="circuitlab.app.panels.nfm:PANEL",
)
