"""``circuitlab train``: a run from a recipe, options and ``-m KEY=VALUE`` model fields."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from circuitlab.cli.common import app, exit_with, parse_value, read_config_file
from circuitlab.kinds import DEFAULT, nac

__all__ = []

# the options of `circuitlab train`, each with its help
_Out = Annotated[Path, typer.Option(help="Run directory: config, metrics.csv, checkpoints.")]
_Config = Annotated[
    Path | None,
    typer.Option(
        help="YAML/JSON file of training options (keys as below, 'model' a mapping; "
        "'base: other.yaml' builds on another file)."
    ),
]
_Task = Annotated[
    str | None,
    typer.Option(
        help="Task to train on: toy-sets, nlvr, pairs, nlvr2 (with --features), "
        "object-images, listops, fuzzy-boolean, mixture-regression, digits, digit-renditions, "
        "sort-of-clevr."
    ),
]
_Conditional = Annotated[
    bool | None,
    typer.Option("--conditional/--unconditional", help="One circuit per input, or one in all."),
]
_Steps = Annotated[int | None, typer.Option(help="Optimisation steps [3000].")]
_BatchSize = Annotated[int | None, typer.Option(help="Examples per step [64].")]
_Lr = Annotated[float | None, typer.Option(help="Peak AdamW learning rate [1e-3].")]
_SignatureLrScale = Annotated[
    float | None,
    typer.Option(
        help="The signatures' learning rate is lr times this [1]; 10 lets the "
        "graph move in a short run."
    ),
]
_WeightDecay = Annotated[float | None, typer.Option(help="AdamW weight decay [0.01].")]
_WarmupSteps = Annotated[int | None, typer.Option(help="Linear warm-up steps [100].")]
_GradClip = Annotated[
    float | None,
    typer.Option(help="Gradient-norm clip, > 0 [1.0] (none: grad_clip: null in a --config)."),
]
_EvalEvery = Annotated[int | None, typer.Option(help="Validate every N steps [100].")]
_EvalSize = Annotated[int | None, typer.Option(help="Validation examples [1024].")]
_CheckpointEvery = Annotated[
    int | None, typer.Option(help="Write checkpoint.pt every N steps [100].")
]
_Seed = Annotated[int | None, typer.Option(help="Seed of every random draw [0].")]
_Device = Annotated[
    str | None, typer.Option(help="auto (cuda if present, else cpu), cpu, cuda, cuda:1.")
]
_CompileStep = Annotated[
    bool | None,
    typer.Option(
        "--compile/--no-compile",
        help="torch.compile the training step: ~1 min to compile, faster steps after [off].",
    ),
]
_Prior = Annotated[
    str | None,
    typer.Option(help="Graph prior: scale_free, planted_partition, ring_of_cliques, erdos_renyi."),
]
_PerceiverIo = Annotated[
    bool, typer.Option("--perceiver-io", help="Train the Perceiver IO configuration instead.")
]
_SetModel = Annotated[
    list[str] | None,
    typer.Option(
        "--model",
        "-m",
        help="Model option KEY=VALUE, any field of the model's config (NACConfig, NIConfig, "
        "MNConfig, NFMConfig: -m dim=128 -m depth=3); repeatable.",
    ),
]
_ModelKind = Annotated[
    str | None,
    typer.Option(
        help="nac [default], ni (Neural Interpreter), mn (Modular Network) or nfm (CNN-MLP "
        "with Neural Function Modules); a kind other than nac starts from its own config's "
        "defaults, not the toy NAC's."
    ),
]
_Features = Annotated[
    Path | None,
    typer.Option(help="--task nlvr2: the folder of `circuitlab nlvr2 features`."),
]
_Resume = Annotated[bool, typer.Option(help="Continue the run in OUT from its last checkpoint.")]
_InitFrom = Annotated[
    Path | None,
    typer.Option(
        help="Start from this checkpoint's weights (run directory or file), with a fresh "
        "optimiser and schedule: to train a model further. Same model options needed."
    ),
]
_Progress = Annotated[bool, typer.Option(help="Show a progress bar.")]


@app.command()
def train(
    out: _Out = Path("runs/toy-sets"),
    config: _Config = None,
    task: _Task = None,
    conditional: _Conditional = None,
    steps: _Steps = None,
    batch_size: _BatchSize = None,
    lr: _Lr = None,
    signature_lr_scale: _SignatureLrScale = None,
    weight_decay: _WeightDecay = None,
    warmup_steps: _WarmupSteps = None,
    grad_clip: _GradClip = None,
    eval_every: _EvalEvery = None,
    eval_size: _EvalSize = None,
    checkpoint_every: _CheckpointEvery = None,
    seed: _Seed = None,
    device: _Device = None,
    compile_step: _CompileStep = None,
    prior: _Prior = None,
    perceiver_io: _PerceiverIo = False,
    set_model: _SetModel = None,
    model_kind: _ModelKind = None,
    features: _Features = None,
    resume: _Resume = False,
    init_from: _InitFrom = None,
    progress: _Progress = True,
) -> None:
    """Train a model (a NAC unless the config's model_kind says otherwise). Options override
    the --config file, which overrides the defaults."""
    from circuitlab.device import keep_freed_memory, pick_device
    from circuitlab.run_config import TrainConfig
    from circuitlab.train import train as run_training

    values = _starting_values(out, config, resume)
    kind = model_kind or values.get("model_kind", DEFAULT)
    model = dict(values.pop("model", None) or (TrainConfig().model if kind == DEFAULT else {}))
    cli = dict(
        task=task,
        conditional=conditional,
        steps=steps,
        batch_size=batch_size,
        lr=lr,
        signature_lr_scale=signature_lr_scale,
        weight_decay=weight_decay,
        warmup_steps=warmup_steps,
        grad_clip=grad_clip,
        eval_every=eval_every,
        eval_size=eval_size,
        checkpoint_every=checkpoint_every,
        seed=seed,
        device=device,
        compile=compile_step,
        init_from=None if init_from is None else str(init_from),
        model_kind=model_kind,
    )
    values.update({k: v for k, v in cli.items() if v is not None})
    if features is not None:
        values["task_options"] = {**values.get("task_options", {}), "features": str(features)}
    if perceiver_io:
        model.update(modfc=False, graph="dense", prior=None)
    if prior is not None:
        model["prior"] = prior
    model = _with_model_fields(model, _model_fields(set_model or []), kind)
    try:
        train_config = TrainConfig.from_dict({**values, "model": model})
        if pick_device(train_config.device).type == "cpu":
            keep_freed_memory()  # this process only trains: large tensors are reused, not refaulted
        summary = run_training(train_config, out, resume=resume, progress=progress)
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        exit_with(err)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if os.environ.get("RANK", "0") == "0":  # under torchrun, rank 0 speaks for all
        typer.echo(json.dumps(summary, indent=2))


def _starting_values(out: Path, config: Path | None, resume: bool) -> dict:
    """The options a run starts from: a resumed run's own config.json, else the --config file's
    (or none)."""
    if resume and (out / "config.json").is_file():
        try:
            return json.loads((out / "config.json").read_text())
        except json.JSONDecodeError as err:
            exit_with(ValueError(f"{out / 'config.json'} is not valid JSON ({err}); restore it"))
    return read_config_file(config) if config else {}


def _model_fields(items: list[str]) -> dict:
    """``-m KEY=VALUE`` options as model fields, each value read as YAML ('16' -> 16); a dotted
    key sets a field of a group (``-m kernel.eps=0.2``)."""
    fields: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep:
            raise typer.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--model")
        *groups, name = key.strip().split(".")
        level = fields
        for group in groups:
            level = level.setdefault(group, {})
        level[name] = parse_value(text)
    return fields


def _with_model_fields(model: dict, fields: dict, kind: str) -> dict:
    """``fields`` on top of ``model``, a NAC's options in groups either way (so ``-m eps=0.2``
    replaces a config's ``kernel: {eps: ...}``)."""
    from circuitlab.config_groups import nest_flat_names
    from circuitlab.options_file import merge_options

    if kind == nac.NAME:
        model, fields = nest_flat_names(model), nest_flat_names(fields)
    return merge_options(model, fields)
