"""The Neural Attentive Circuit (the default kind): ``NACConfig``, ``NAC``, its stores of
signatures."""

from __future__ import annotations

from typing import Any

from circuitlab.kinds.base import ModelKind

__all__ = ["KIND", "NAME", "config_for_task"]

NAME = "nac"


def config_for_task(options: dict[str, Any], task: Any) -> Any:
    """A NAC's config: the task fixes inputs, classes and conditioning (its width or
    vocabulary, and whether sentences come split in skeleton and content), ``options`` the
    rest. ValueError for a regression task or a split generator on unsplit sentences.

    Parameters
    ----------
    options
        The run's model options.
    task
        The run's task.
    """
    from circuitlab.config import NACConfig
    from circuitlab.config_groups import nest_flat_names

    if getattr(task, "objective", "classification") != "classification":
        raise ValueError(f"task {task.name!r} is a regression: train it with model_kind 'ni'")
    values = nest_flat_names(options)
    generator = dict(values.get("generator", {}), cond_vocab=task.cond_vocab)
    if task.cond_dim is not None:
        generator["cond_dim"] = task.cond_dim
    split_text = getattr(task, "split_text", False)  # the task's sentences come in 2 parts
    if generator.get("split_conditioning") and not split_text:
        raise ValueError(
            "model.generator.split_conditioning needs sentences split in skeleton and "
            "content: set task_options.text_encoder to 'minilm-split'"
        )
    if split_text:
        generator["split_conditioning"] = True
    values.update(
        input_dim=task.input_dim,
        n_classes=task.n_classes,
        conditional=task.conditional,
        generator=generator,
    )
    return NACConfig.from_dict(values)


KIND = ModelKind(
    name=NAME,
    title="Neural Attentive Circuit",
    config="circuitlab.config:NACConfig",
    model="circuitlab.model:NAC",
    config_for_task="circuitlab.kinds.nac:config_for_task",
    exporter="circuitlab.export:write_nac_stores",
    circuit_array="signatures",
    app_panel="circuitlab.app.panels.nac:PANEL",
)
