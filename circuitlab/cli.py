"""The ``circuitlab`` command line: train, export, inspect."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import numpy as np
import pandas as pd
import typer
import yaml
from typer.core import TyperGroup

from circuitlab.app.serving import DEFAULT_HOST, DEFAULT_THREADS

if TYPE_CHECKING:
    from circuitlab.store import CircuitStore

# what each model kind is called in messages
KIND_NAMES = {
    "nac": "Neural Attentive Circuit",
    "ni": "Neural Interpreter",
    "mn": "Modular Network",
    "nfm": "network with Neural Function Modules",
}

# what bad input raises (a wrong value or file, a file that is not what it claims to be: an
# OSError covers a directory given for a file, a .gz that is not gzip, no permission): one red
# line and exit status 2, never a traceback; CIRCUITLAB_TRACEBACK=1 shows the traceback instead
USER_ERRORS = (ValueError, OSError, EOFError)


class _UserErrorsGroup(TyperGroup):
    """The command group: any command's user error ends as ``_exit_with`` does."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as err:
            if os.environ.get("CIRCUITLAB_TRACEBACK"):
                raise
            _exit_with(err)


app = typer.Typer(
    help="circuitlab: train Neural Attentive Circuits and export the circuits they learn.",
    no_args_is_help=True,
    add_completion=False,
    cls=_UserErrorsGroup,
)


def _exit_with(err: Exception) -> NoReturn:
    """Report a user error (bad input, missing file ...) in one red line and exit with 2."""
    typer.secho(f"error: {err}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2) from err


def _parse_value(text: str) -> Any:
    """'16' -> 16, 'true' -> True, 'null' -> None, '[1, 2]' -> [1, 2], other text stays text."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _read_config_file(path: Path) -> dict[str, Any]:
    from circuitlab.options_file import read_options

    try:
        return read_options(path)
    except (FileNotFoundError, ValueError) as err:
        raise typer.BadParameter(str(err), param_hint="--config") from err


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
            _exit_with(ValueError(f"{out / 'config.json'} is not valid JSON ({err}); restore it"))
    else:
        values = _read_config_file(config) if config else {}
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
        model[key.strip()] = _parse_value(text)
    try:
        train_config = TrainConfig.from_dict({**values, "model": model})
        if pick_device(train_config.device).type == "cpu":
            keep_freed_memory()  # this process only trains: large tensors are reused, not refaulted
        summary = run_training(train_config, out, resume=resume, progress=progress)
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        _exit_with(err)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if os.environ.get("RANK", "0") == "0":  # under torchrun, rank 0 speaks for all
        typer.echo(json.dumps(summary, indent=2))


@app.command()
def export(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="Run directory written by `circuitlab train`, or a folder of unconditional runs."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Circuit store directory to write.")],
    n_circuits: Annotated[
        int,
        typer.Option(
            min=1,
            help="Conditional models, Neural Interpreters, Modular Networks: inputs to export.",
        ),
    ] = 256,
    seed: Annotated[int, typer.Option(help="Seed of the conditioning inputs.")] = 0,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing store.")] = False,
    app_cache: Annotated[
        bool,
        typer.Option(
            help="Cache in each store the module layout and t-SNE map the app draws, so that "
            "its first open is fast (about 15 s for 4,000 circuits)."
        ),
    ] = True,
) -> None:
    """Write the circuits of a trained run to a circuit store (an NLVR model: two stores,
    OUT/nlvr2 and OUT/nlvr; a pair-world model: OUT/nlvr2 and OUT/pairs). RUN_DIR may also be
    a folder of unconditional runs (e.g. checkpoints/priors): one store, a circuit per run."""
    from circuitlab.export import export_checkpoint

    try:
        stores = export_checkpoint(
            run_dir, out, n_circuits=n_circuits, seed=seed, overwrite=overwrite
        )
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        _exit_with(err)
    for store in stores.values():
        typer.echo(f"wrote {store!r}")
    nac_stores = [s for s in stores.values() if s.meta.get("kind", "nac") == "nac"]
    if app_cache and nac_stores:  # the other kinds' app views compute nothing on first open
        from circuitlab.app.store_view import prepare_store

        for store in nac_stores:
            prepare_store(store)
        typer.echo("cached the app's module layout and t-SNE map in each store")
    if set(stores) == {"nlvr2", "nlvr"}:
        typer.echo(_nlvr_summary(stores["nlvr"].frame, stores["nlvr2"].frame))
    if set(stores) == {"nlvr2", "pairs"}:
        typer.echo(_pairs_summary(stores["pairs"].frame))


def _pairs_summary(pairs: pd.DataFrame) -> str:
    """Accuracy on the pairs store's examples of each held-out split, under the names the
    README and docs/results.md give them (theirs are over 4,000 examples a split)."""
    from circuitlab.pairs_eval import HELDOUT_SPLITS

    lines = ["accuracy on the pair-world examples of the store:"]
    for split, column in HELDOUT_SPLITS.items():
        rows = pairs[pairs["split"] == split]
        if len(rows):
            name = column.replace("heldout_", "held-out ")
            lines.append(f"  {name}: {rows['correct'].mean():.3f} over {len(rows)} examples")
    lines.append("  (the README's figures are over 4,000 examples a split: bench/pair_circuits.py)")
    return "\n".join(lines)


def _nlvr_summary(nlvr: pd.DataFrame, nlvr2: pd.DataFrame) -> str:
    """Accuracy on NLVR dev/test and the NLVR2 sentences per category and category source."""
    lines = ["accuracy on NLVR (sentence + scene):"]
    for split, rows in nlvr.groupby("split"):
        lines.append(f"  {split}: {rows['correct'].mean():.3f} over {len(rows)} examples")
    counts = (
        nlvr2.explode("categories")
        .dropna(subset=["categories"])
        .groupby(["categories", "category_source"])
        .size()
        .unstack(fill_value=0)
    )
    lines.append(
        f"NLVR2 sentences per category ({len(nlvr2)} sentences; a sentence may have several):"
    )
    lines.append(counts.to_string())
    return "\n".join(lines)


@app.command()
def evaluate(
    checkpoint: Annotated[
        Path,
        typer.Argument(
            help="A run directory of `circuitlab train --task nlvr`, or its checkpoint.pt."
        ),
    ],
    nlvr: Annotated[
        str,
        typer.Option(
            help="A file in NLVR's official JSON-lines format (plain or .gz), or a shipped "
            "name: nlvr-dev, nlvr-test."
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Write one row per example (prediction, correct, ...) here.")
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu, cuda, cuda:1.")] = "auto",
) -> None:
    """Score an NLVR model on any NLVR-format file: accuracy overall and per reasoning category."""
    from circuitlab.data.nlvr import NLVRFormatError
    from circuitlab.device import pick_device
    from circuitlab.nlvr_eval import evaluate_file, write_predictions

    if out is not None and out.is_dir():
        _exit_with(ValueError(f"--out {out} is a folder: give a file, e.g. {out}/predictions.csv"))
    try:
        predictions, table = evaluate_file(checkpoint, nlvr, str(pick_device(device)))
    except (ValueError, FileNotFoundError, NLVRFormatError) as err:
        _exit_with(err)
    typer.echo(f"{len(predictions)} examples from {nlvr}")
    typer.echo(table.to_string(index=False))
    if out is not None:
        write_predictions(predictions, out)
        typer.echo(f"wrote {out}")


@app.command()
def causality(
    checkpoint: Annotated[
        Path,
        typer.Argument(
            help="A run directory of `circuitlab train --task nlvr`, or its checkpoint.pt."
        ),
    ],
    nlvr: Annotated[
        list[str] | None,
        typer.Option(
            help="Also score an NLVR-format file (or nlvr-dev, nlvr-test); may be repeated."
        ),
    ] = None,
    world: Annotated[
        int,
        typer.Option(min=0, help="Held-out world examples (new sentences, new scenes); 0: none."),
    ] = 4000,
    seed: Annotated[int, typer.Option(help="Seed of the swap partners.")] = 0,
    device: Annotated[str, typer.Option(help="auto, cpu, cuda, cuda:1.")] = "auto",
) -> None:
    """Does the circuit decide the answer? Accuracy with the model's own circuits, with
    signatures swapped between examples of different sentences (codes kept), with codes swapped
    (signatures kept), with an all-ones kernel; and the graphs' density (links with P > 0.5),
    its spread over sentences, participation ratio, first component's share and that
    component's correlation with the graphs' mean P (is it just how full they are?)."""
    from circuitlab.data.nlvr import NLVRFormatError, read_nlvr
    from circuitlab.device import pick_device
    from circuitlab.loading import load_model
    from circuitlab.nlvr_eval import full_task, nlvr_causality, nlvr_task, world_heldout

    files = list(nlvr or [])
    if world < 0:
        _exit_with(ValueError(f"--world must be >= 0, got {world}"))
    if world == 0 and not files:
        _exit_with(ValueError("nothing to score: give --world N > 0 or --nlvr FILE"))
    try:
        model, config = load_model(checkpoint, str(pick_device(device)))
        if config.model_kind != "nac":
            raise ValueError(
                f"{checkpoint} is a {KIND_NAMES[config.model_kind]}: interventions swap and cut "
                "a NAC's circuits; read its routing in its store (circuitlab export, "
                "circuitlab app)"
            )
        if not model.config.conditional:
            raise ValueError(
                f"{checkpoint} is an unconditional model: it has one circuit, nothing to swap"
            )
        # the world's held-out sentences need the run's own pools; NLVR files need none
        if world:
            typer.echo("drawing the run's sentence pools (about a minute)", err=True)
        task = full_task(config) if world else nlvr_task(config)
        sets = {"world held-out": world_heldout(task, world)} if world else {}
        sets.update({name: read_nlvr(name) for name in files})
        rows = {}
        for name, data in sets.items():
            typer.echo(f"{name}: {len(data)} examples, own circuit and 3 interventions", err=True)
            rows[name] = nlvr_causality(model, task, data, seed)
    except (ValueError, FileNotFoundError, NLVRFormatError) as err:
        _exit_with(err)
    table = pd.DataFrame(rows)  # one column per data set, one row per measure
    with pd.option_context("display.float_format", "{:.3f}".format):
        typer.echo(table.to_string())


@app.command()
def attribute(
    store_path: Annotated[
        Path,
        typer.Argument(help="A NAC store of scenes: stores/nlvr/nlvr or stores/pairs/pairs."),
    ],
    checkpoint: Annotated[
        Path, typer.Option(help="The run (or checkpoint.pt) that wrote the store.")
    ],
    threshold: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Links with P above this are attributed exactly."),
    ] = 0.5,
    limit: Annotated[
        int | None, typer.Option(help="Attribute only the first N examples with scenes.")
    ] = None,
) -> None:
    """Which links and modules decide each answer: the exact drop of p(answer) when each link
    the circuit has is cut, the first-order estimate for every link, each module knocked out,
    and the minimal circuit that keeps the answer; written into the store as attr_* columns."""
    from circuitlab.app.attribution_view import attribute_store
    from circuitlab.store import CircuitStoreError

    if limit is not None and limit < 1:
        _exit_with(ValueError(f"--limit must be >= 1, got {limit}"))
    if not 0.0 <= threshold < 1.0:
        _exit_with(ValueError(f"--threshold must be in [0, 1), got {threshold}"))
    try:
        store, summary = attribute_store(store_path, checkpoint, threshold=threshold, limit=limit)
    except (CircuitStoreError, ValueError, FileNotFoundError) as err:
        _exit_with(err)
    typer.echo(repr(store))
    with pd.option_context("display.float_format", "{:.3f}".format):
        typer.echo(summary.to_string())
    typer.echo(f"added columns attr_* to {store.path}")


nlvr2_app = typer.Typer(help="NLVR2 with images: frozen CLIP features.", no_args_is_help=True)
app.add_typer(nlvr2_app, name="nlvr2")


@nlvr2_app.command("features")
def nlvr2_features(
    images: Annotated[Path, typer.Option(help="Folder of NLVR2 images (searched recursively).")],
    clip: Annotated[Path, typer.Option(help="A transformers CLIP model folder you have.")],
    nlvr2: Annotated[
        str, typer.Option(help="An NLVR2 JSON-lines file (or nlvr2-dev, nlvr2-test1).")
    ],
    out: Annotated[Path, typer.Option(help="Feature folder to write (or complete).")],
    device: Annotated[str, typer.Option(help="auto, cpu, cuda, cuda:1.")] = "auto",
    batch_size: Annotated[int, typer.Option(min=1, help="Image pairs per CLIP batch.")] = 16,
) -> None:
    """Compute and cache frozen CLIP image and text features for an NLVR2 file."""
    from circuitlab.data.clip_features import compute_features
    from circuitlab.data.nlvr import NLVRFormatError
    from circuitlab.device import pick_device

    try:
        path = compute_features(
            nlvr2, images, clip, out, device=str(pick_device(device)), batch_size=batch_size
        )
    except (ValueError, FileNotFoundError, ImportError, NLVRFormatError) as err:
        _exit_with(err)
    typer.echo(f"wrote {path}; train with: circuitlab train --task nlvr2 --features {path}")


config_app = typer.Typer(help="Read training recipes (config files).", no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def config_show(
    path: Annotated[Path, typer.Argument(help="A recipe: YAML or JSON, may have a 'base'.")],
) -> None:
    """Print a recipe fully resolved: its chain of 'base' files merged and every training
    option a run of it would use (the run's config.json), as YAML."""
    import dataclasses

    from circuitlab.run_config import TrainConfig

    try:
        values = _read_config_file(path)
        config = TrainConfig.from_dict(values)
    except (typer.BadParameter, ValueError, TypeError) as err:
        _exit_with(err)
    typer.echo(f"# {path}, resolved", nl=True)
    typer.echo(yaml.safe_dump(dataclasses.asdict(config), sort_keys=False).rstrip())


@app.command()
def info(
    store_path: Annotated[Path, typer.Argument(help="A circuit store directory.")],
    threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Link threshold on P for the graph.")
    ] = 0.5,
) -> None:
    """Summarise a circuit store: size, modules, and the graph of its first circuit (a
    Neural Interpreter's store: its arrays and the routing of its first input; a Modular
    Network's: module usage and the path of its first input; an NFM network's: which layers
    each layer reads)."""
    from circuitlab.store import CircuitStore, CircuitStoreError

    try:
        store = CircuitStore.open(store_path)
    except CircuitStoreError as err:
        _exit_with(err)
    if store.kind == "ni":
        typer.echo(_ni_summary(store))
        return
    if store.kind == "mn":
        typer.echo(_mn_summary(store))
        return
    if store.kind == "nfm":
        typer.echo(_nfm_summary(store))
        return
    graph = store[0].to_networkx(threshold)
    typer.echo(repr(store))
    typer.echo(f"columns: {list(store.frame.columns)}")
    typer.echo(
        f"circuit 0 at P > {threshold}: {graph.number_of_nodes()} modules, "
        f"{graph.number_of_edges()} links"
    )
    if len(store) > 1 and "label" in store.frame.columns:
        links = np.empty(len(store))
        for start, p in store.link_probability_batches(batch=1024):
            links[start : start + len(p)] = np.triu(p > threshold, k=1).sum((1, 2))
        summary = pd.DataFrame({"label": store.frame["label"], "links": links})
        typer.echo(f"links at P > {threshold} per label (mean, std over circuits):")
        typer.echo(summary.groupby("label")["links"].agg(["count", "mean", "std"]).round(1))


def _arrays_summary(store: CircuitStore) -> list[str]:
    """A store's repr, frame columns and one line per array."""
    lines = [repr(store), f"columns: {list(store.frame.columns)}", "arrays:"]
    for spec in store.meta["arrays"]:
        lines.append(
            f"  {spec['name']}: {spec['dtype']} {spec['shape']} ({', '.join(spec['axes'])})"
        )
    return lines


def _mn_summary(store: CircuitStore) -> str:
    """A Modular Network store's arrays, each layer's module usage and input 0's path."""
    lines = _arrays_summary(store)
    usage = np.asarray(store.array("usage"))
    lines.append(f"method {store.meta['method']}; share of inputs picking each module:")
    for layer, shares in enumerate(usage):
        lines.append(f"  layer {layer}: " + " ".join(f"m{m}:{v:.2f}" for m, v in enumerate(shares)))
    path = np.asarray(store.array("paths")[0])
    steps = " -> ".join("+".join(f"m{m}" for m in sorted(set(layer))) for layer in path.tolist())
    lines.append(f"input 0 ({store.frame['text'].iloc[0]}): {steps}")
    return "\n".join(lines)


def _nfm_summary(store: CircuitStore) -> str:
    """An NFM store's arrays and what each reader layer reads, averaged over the inputs."""
    lines = _arrays_summary(store)
    mean = np.asarray(store.array("attention"), dtype=np.float64).mean(0)  # (readers, slots)
    lines.append("mean attention of each second-pass layer over what each layer wrote:")
    for reader, row in enumerate(mean):
        cells = " ".join(
            f"{name}:{v:.2f}" for name, v in zip(store.meta["slots"], row, strict=True)
        )
        lines.append(f"  pass 2 layer {reader + 1} reads {cells}")
    return "\n".join(lines)


def _ni_summary(store: CircuitStore) -> str:
    """A Neural Interpreter store's arrays, and which function handles each token of input 0
    at each step (its largest routing weight)."""
    lines = _arrays_summary(store)
    routing = np.asarray(store.array("routing")[0], dtype=np.float32)  # (steps, U, V)
    tokens = store.meta["tokens"]
    lines.append("input 0, the function that handles each token most, per step:")
    for k, step in enumerate(store.meta["steps"]):
        best = routing[k].argmax(0)
        cells = " ".join(f"{t}:f{u}" for t, u in zip(tokens, best, strict=True))
        lines.append(f"  script {step['script']} iteration {step['iteration']}: {cells}")
    return "\n".join(lines)


@app.command()
def analyze(
    store_path: Annotated[Path, typer.Argument(help="A circuit store directory.")],
    threshold: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Link threshold on P for the graph statistics (not the priors)."
        ),
    ] = 0.5,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Goodness-of-fit check of each verdict.")
    ] = True,
    method: Annotated[str, typer.Option(help="Embedding: tsne, pca or umap.")] = "tsne",
    seed: Annotated[int, typer.Option(help="Seed of fits, embedding and layout.")] = 0,
    recompute: Annotated[bool, typer.Option(help="Ignore cached results in the store.")] = False,
) -> None:
    """Graph statistics, prior fits, embedding and layout of every circuit, cached in the store;
    prints a summary per prior verdict."""
    from circuitlab.analysis.store_analysis import analyze_store
    from circuitlab.store import CircuitStoreError

    try:
        store, summary = analyze_store(
            store_path,
            threshold=threshold,
            check=check,
            method=method,
            seed=seed,
            recompute=recompute,
        )
    except (CircuitStoreError, ValueError, ImportError, OSError) as err:
        _exit_with(err)
    typer.echo(repr(store))
    null = (store.analysis_params("graphs") or {}).get("prior_null")
    typer.echo(
        "prior verdicts (best_prior: the families fitted to P among the processors; "
        f"null: {null}; null_z: median |z| against it, > 4 is distinguishable; gap: median "
        f"nats to the runner-up); links, density, ...: the graphs at P > {threshold}:"
    )
    typer.echo(summary.round(3).to_string())
    typer.echo(
        f"added columns graph_*, prior*, {method}_x/_y and the module layout to {store.path}"
    )


@app.command()
def figures(
    store_path: Annotated[Path, typer.Argument(help="A circuit store directory.")],
    out: Annotated[Path, typer.Option(help="Directory for the PNG, SVG and PDF files.")] = Path(
        "figures"
    ),
    dropping: Annotated[
        Path | None,
        typer.Option(help="CSV of model, dropped, accuracy, throughput (bench/dropping.py)."),
    ] = None,
    method: Annotated[str, typer.Option(help="Embedding: tsne, pca or umap.")] = "tsne",
    threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Link threshold on P for drawn graphs.")
    ] = 0.5,
) -> None:
    """Write the publication figures of a store (prior samples, degree distribution with its
    fit, embedding by category with example circuits, and module dropping if given)."""
    from circuitlab.analysis.store_analysis import write_figures
    from circuitlab.store import CircuitStoreError

    try:
        paths = write_figures(
            store_path, out, dropping=dropping, method=method, threshold=threshold
        )
    except (CircuitStoreError, ValueError, ImportError, OSError) as err:
        _exit_with(err)
    for path in paths:
        typer.echo(f"wrote {path}")


@app.command("app")
def serve_app(
    store_path: Annotated[
        Path, typer.Argument(help="A circuit store, or a folder of stores (its first is shown).")
    ],
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8050,
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on: 127.0.0.1 serves this machine only; 0.0.0.0 serves the "
            "lab's network (every interface)."
        ),
    ] = DEFAULT_HOST,
    threads: Annotated[
        int,
        typer.Option(
            min=1, help="Threads of the server (waitress): visitors answered at the same time."
        ),
    ] = DEFAULT_THREADS,
    root: Annotated[
        Path | None,
        typer.Option(
            help="Serve the stores under this folder, ?store=KEY picks one (default: STORE_PATH)."
        ),
    ] = None,
    checkpoint: Annotated[
        list[Path] | None,
        typer.Option(
            help="The stores' conditional NLVR or pair-world model: typed sentences get "
            "circuits, stored scenes take interventions. Repeat it for several models; each "
            "store gets the one it was exported from."
        ),
    ] = None,
    debug: Annotated[
        bool,
        typer.Option(
            help="Flask's development server in Dash debug mode (reloads, dev tools) instead "
            "of waitress; for working on the app, never for serving it."
        ),
    ] = False,
) -> None:
    """Browse circuit stores in the Dash app at http://HOST:PORT/ (served by waitress, a
    production WSGI server, with THREADS threads)."""
    from circuitlab.app.factory import create_app
    from circuitlab.app.serving import serve
    from circuitlab.store import CircuitStoreError

    try:
        dash_app = create_app(store_path, root=root, checkpoint=checkpoint)
    except (CircuitStoreError, ValueError, OSError) as err:
        _exit_with(err)
    stores = dash_app.circuit_stores
    under = f"\n  stores under {stores.root}: {', '.join(stores.keys)} (?store=KEY)"

    def announce(line: str) -> None:
        typer.echo(line + (under if len(stores.keys) > 1 else ""))

    try:
        serve(dash_app, host=host, port=port, threads=threads, debug=debug, announce=announce)
    except (OSError, ValueError) as err:  # a host that does not resolve, a port in use
        _exit_with(ValueError(f"cannot serve on {host}:{port}: {err}"))


if __name__ == "__main__":
    app()
