"""``circuitlab train``: a run from a recipe, options and ``-m KEY=VALUE`` model fields."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from circuitlab.cli.common import app, exit_with, parse_value, read_config_file

if TYPE_CHECKING:
    pass


@app.command()
def train(
    out: Annotated[
        Path, typer.Option(help="Run directory: config, metrics.csv, checkpoints.")
    ] = Path("runs/toy-sets"),
    config: Annotated[
        Path | None,
        typer.Option(
            help="YAML/JSON file of training options (keys as below, 'model' a mapping; "
            "'base: other.yaml' builds on another file)."
        ),
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(
            help="Task to train on: toy-sets, nlvr, pairs, nlvr2 (with --features), "
            "object-images, listops, fuzzy-boolean, mixture-regression, digits, digit-renditions, "
            "sort-of-clevr."
        ),
    ] = None,
    conditional: Annotated[
        bool | None,
        typer.Option("--conditional/--unconditional", help="One circuit per input, or one in all."),
    ] = None,
    steps: Annotated[int | None, typer.Option(help="Optimisation steps [3000].")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Examples per step [64].")] = None,
    lr: Annotated[float | None, typer.Option(help="Peak AdamW learning rate [1e-3].")] = None,
    signature_lr_scale: Annotated[
        float | None,
        typer.Option(
            help="The signatures' learning rate is lr times this [1]; 10 lets the "
            "graph move in a short run."
        ),
    ] = None,
    weight_decay: Annotated[float | None, typer.Option(help="AdamW weight decay [0.01].")] = None,
    warmup_steps: Annotated[int | None, typer.Option(help="Linear warm-up steps [100].")] = None,
    grad_clip: Annotated[
        float | None,
        typer.Option(help="Gradient-norm clip, > 0 [1.0] (none: grad_clip: null in a --config)."),
    ] = None,
    eval_every: Annotated[int | None, typer.Option(help="Validate every N steps [100].")] = None,
    eval_size: Annotated[int | None, typer.Option(help="Validation examples [1024].")] = None,
    checkpoint_every: Annotated[
        int | None, typer.Option(help="Write checkpoint.pt every N steps [100].")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of every random draw [0].")] = None,
    device: Annotated[
        str | None, typer.Option(help="auto (cuda if present, else cpu), cpu, cuda, cuda:1.")
    ] = None,
    compile_step: Annotated[
        bool | None,
        typer.Option(
            "--compile/--no-compile",
            help="torch.compile the training step: ~1 min to compile, faster steps after [off].",
        ),
    ] = None,
    prior: Annotated[
        str | None,
        typer.Option(
            help="Graph prior: scale_free, planted_partition, ring_of_cliques, erdos_renyi."
        ),
    ] = None,
    perceiver_io: Annotated[
        bool, typer.Option("--perceiver-io", help="Train the Perceiver IO configuration instead.")
    ] = False,
    set_model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            help="Model option KEY=VALUE, any field of the model's config (NACConfig, NIConfig, "
            "MNConfig, NFMConfig: -m dim=128 -m depth=3); repeatable.",
        ),
    ] = None,
    model_kind: Annotated[
        str | None,
        typer.Option(
            help="nac [default], ni (Neural Interpreter), mn (Modular Network) or nfm (CNN-MLP "
            "with Neural Function Modules); a kind other than nac starts from its own config's "
            "defaults, not the toy NAC's."
        ),
    ] = None,
    features: Annotated[
        Path | None,
        typer.Option(help="--task nlvr2: the folder of `circuitlab nlvr2 features`."),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Continue the run in OUT from its last checkpoint.")
    ] = False,
    init_from: Annotated[
        Path | None,
        typer.Option(
            help="Start from this checkpoint's weights (run directory or file), with a fresh "
            "optimiser and schedule: to train a model further. Same model options needed."
        ),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Train a model (a NAC unless the config's model_kind says otherwise). Options override
    the --config file, which overrides the defaults."""
    from circuitlab.device import keep_freed_memory, pick_device
    from circuitlab.run_config import TrainConfig
    from circuitlab.train import train as run_training

    if resume and (out / "config.json").is_file():
        try:
            values = json.loads((out / "config.json").read_text())
        except json.JSONDecodeError as err:
            exit_with(ValueError(f"{out / 'config.json'} is not valid JSON ({err}); restore it"))
    else:
        values = read_config_file(config) if config else {}
    kind = model_kind or values.get("model_kind", "nac")
    model = dict(values.pop("model", None) or (TrainConfig().model if kind == "nac" else {}))
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
    for item in set_model or []:
        key, sep, text = item.partition("=")
        if not sep:
            raise typer.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--model")
        model[key.strip()] = parse_value(text)
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
