"""What the bench scripts share: the speed benches' model size and training step, side-by-side
timing, peak memory of one step in a fresh process, the machine line, writing the table, and
the claims benches' kept training runs.
Import as ``from common import ...`` (the scripts run as ``python bench/NAME.py``, so bench/ is
on the path)."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import torch
import torch.nn.functional as F

from circuitlab.checkpoint import CHECKPOINT
from circuitlab.device import keep_freed_memory
from circuitlab.files import writer_lock
from circuitlab.model import NAC
from circuitlab.options_file import read_options
from circuitlab.train import TrainConfig, load_model, train
from circuitlab.worlds.tasks import make_task

if TYPE_CHECKING:
    import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"  # the docs' figures
CONFIGS = Path(__file__).resolve().parent.parent / "configs"  # the recipes
# blocks (cliques) of the block-structured priors in the claims benches' runs: 4 for both the
# toy NACs (64 processors) and the NLVR ones (16)
BLOCKS = {"planted_partition": 4, "ring_of_cliques": 4}
INPUT_DIM = 32  # features per token of the speed benches' random inputs
N_CLASSES = 10


def nac_size(modules: int, **overrides: object) -> dict:
    """NACConfig fields of the speed benches' model: ``modules`` processors and 4 readouts,
    width 128, depth 4, 4 heads x 32, on INPUT_DIM features and N_CLASSES classes."""
    size = dict(
        input_dim=INPUT_DIM,
        n_classes=N_CLASSES,
        n_processors=modules,
        n_readouts=4,
        dim=128,
        depth=4,
        heads=4,
        head_dim=32,
    )
    return {**size, **overrides}


def random_batch_train_step(
    model: torch.nn.Module, batch: int, tokens: int, device: torch.device
) -> Callable[[], None]:
    """One training step (forward, cross-entropy, backward, AdamW) of ``model`` on a fixed
    random batch of (batch, tokens, INPUT_DIM) inputs, as a callable."""
    model = model.to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    inputs = torch.randn(batch, tokens, INPUT_DIM, device=device)
    labels = torch.randint(0, N_CLASSES, (batch,), device=device)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()

    return step


def machine(device: torch.device) -> str:
    """One line naming what the numbers were measured on."""
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}"
    cores = len(os.sched_getaffinity(0))
    return (
        f"{platform.processor() or platform.machine()} CPU, {cores} cores, "
        f"{torch.get_num_threads()} torch threads, torch {torch.__version__}"
    )


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def interleaved_medians(
    steps: dict[str, Callable[[], object]],
    device: torch.device,
    *,
    repeats: int = 5,
    warmup: int = 2,
) -> dict[str, float]:
    """Median seconds per call of each step. The steps take turns within every round (not one
    after the other), so a slow spell of a shared machine hits them alike."""
    for step in steps.values():
        for _ in range(warmup):
            step()
    sync(device)
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            sync(device)
            start = time.perf_counter()
            step()
            sync(device)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _status_bytes(field: str) -> int:
    """A size from /proc/self/status (VmRSS: resident now; VmHWM: peak resident)."""
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith(field + ":"))
    return int(line.split()[1]) * 1024


def _reset_peak_rss() -> None:
    """Peak resident := resident now (Linux >= 4.0); ru_maxrss cannot be reset and even
    carries the parent's peak across exec."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _measure_child(build, args, device_name, queue, repeats, keep_freed) -> None:
    try:
        if keep_freed:
            keep_freed_memory()
        device = torch.device(device_name)
        step = build(*args, device=device)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
            base = torch.cuda.memory_allocated(device)
            step()
            torch.cuda.synchronize(device)
            peak = torch.cuda.max_memory_allocated(device)
            extra = peak - base
        else:
            _reset_peak_rss()
            base = _status_bytes("VmRSS")
            step()
            peak = _status_bytes("VmHWM")
            extra = max(peak - base, 0)
        seconds = None
        if repeats:
            seconds = interleaved_medians({"step": step}, device, repeats=repeats)["step"]
            if device.type == "cuda":
                peak = max(peak, torch.cuda.max_memory_allocated(device))
            else:
                peak = _status_bytes("VmHWM")
        queue.put(("ok", (extra, peak, seconds)))
    except Exception as err:  # reported in the parent, which names the configuration
        queue.put(("error", f"{type(err).__name__}: {err}"))


def _in_fresh_process(
    build: Callable, args: tuple, device: torch.device, repeats: int, keep_freed: bool
) -> tuple[int, int, float | None]:
    context = mp.get_context("spawn")
    queue = context.Queue()
    child = context.Process(
        target=_measure_child, args=(build, args, str(device), queue, repeats, keep_freed)
    )
    child.start()
    status, value = queue.get()
    child.join()
    if status != "ok":
        raise RuntimeError(f"measuring {build.__name__}{args}: {value}")
    return int(value[0]), int(value[1]), value[2]


def step_peak_memory(build: Callable, args: tuple, device: torch.device) -> tuple[int, int]:
    """Peak bytes of one call of ``build(*args, device=device)()`` in a fresh process: above
    what the model and its batch already hold, and in all. CUDA: peak allocation; CPU: peak
    resident set (so the total includes the Python process and torch itself). ``build`` must
    be a module-level function (the child process imports it)."""
    extra, total, _ = _in_fresh_process(build, args, device, repeats=0, keep_freed=False)
    return extra, total


def step_in_fresh_process(
    build: Callable,
    args: tuple,
    device: torch.device,
    *,
    repeats: int,
    keep_freed: bool = False,
) -> tuple[float, int, int]:
    """Median seconds of ``build(*args, device=device)()`` over ``repeats`` calls (after two
    warm-up calls) in a fresh process, the peak bytes of its first call above what the model
    and batch hold, and the process's peak over all of them (CPU: resident set; CUDA:
    allocation). ``keep_freed`` first applies circuitlab.device.keep_freed_memory there; the
    child inherits this process's environment (THP_MEM_ALLOC_ENABLE, for one)."""
    extra, total, seconds = _in_fresh_process(build, args, device, repeats, keep_freed)
    return float(seconds), extra, total


def pipe_table(frame: pd.DataFrame, index: bool = False) -> str:
    """A Markdown pipe table, floats to 3 decimals (pandas' to_markdown needs tabulate)."""
    if index:
        frame = frame.reset_index()
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row] for row in frame.values]
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])


def save_figure(fig: Any, path: Path, dpi: int = 120) -> None:
    """Lay out ``fig`` (a matplotlib Figure), write it to ``path`` (its folder made) and close
    it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def write_table(rows: list[dict], name: str, header: str) -> pd.DataFrame:
    """Print ``rows`` as a table under ``header`` and write them to bench/results/NAME.csv."""
    frame = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.csv"
    partial = path.with_name(f".{path.name}.partial")
    frame.to_csv(partial, index=False)
    partial.replace(path)  # a reader never sees half a table
    print(header)
    print(frame.to_string(index=False))
    print(f"written: {path}")
    return frame


def write_seed_summary(
    frame: pd.DataFrame, by: list[str], columns: list[str], name: str, header: str
) -> pd.DataFrame:
    """One row per group of ``frame`` by ``by``: ``seeds`` (rows in the group, one per seed) and
    ``mean_C``, ``sd_C`` (sample sd, NaN for one seed) of each column C; written as NAME.csv."""
    grouped = frame.groupby(by, sort=False)[columns]
    summary = pd.concat(
        [
            grouped.size().rename("seeds"),
            grouped.mean().add_prefix("mean_"),
            grouped.std(ddof=1).add_prefix("sd_"),
        ],
        axis=1,
    )
    return write_table(summary.reset_index().to_dict("records"), name, header)


def merge_rows(old: pd.DataFrame, new: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``old``'s rows but those with the same ``keys`` values as a row of ``new`` (a rerun
    replaces them), then ``new``'s."""
    if old.empty:
        return new.reset_index(drop=True)
    replaced = old.set_index(keys).index.isin(new.set_index(keys).index)
    return pd.concat([old[~replaced], new], ignore_index=True)


def merge_into_csv(path: Path, new: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Merge ``new`` into the CSV at ``path`` as it stands now (``merge_rows``: a row with the
    same ``keys`` values replaced) and write it back; returns the merged rows. The file is read
    just before the write and replaced whole (never seen half-written), so processes writing
    one file keep each other's rows (unless two write in the same few milliseconds)."""
    old = pd.read_csv(path) if path.is_file() else pd.DataFrame()
    frame = merge_rows(old, new, keys)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    frame.to_csv(partial, index=False)
    os.replace(partial, path)
    return frame


def merge_table(rows: list[dict], name: str, header: str, keys: list[str]) -> pd.DataFrame:
    """``write_table`` for results gathered over several sessions: the rows already in
    bench/results/NAME.csv stay, except those with the same ``keys`` values as a new row (a
    rerun replaces them); the merged table is printed and written, sorted by ``keys``."""
    path = RESULTS / f"{name}.csv"
    new = pd.DataFrame(rows)
    # two benches (or two seeds of one, on two cores) adding rows at once: one reads, merges
    # and writes while the other waits, so neither writes over the other's rows
    with writer_lock(path):
        if path.is_file():
            new = merge_rows(pd.read_csv(path), new, keys)
        merged = new.sort_values(keys, kind="stable").reset_index(drop=True)
        return write_table(merged.to_dict("records"), name, header)


def prior_overrides(prior: str | None, weight: float | None = None) -> dict[str, Any]:
    """NACConfig fields of a learned graph with ``prior`` (BLOCKS blocks where the family has
    them) and the regulariser's ``weight`` (NACConfig's default if None)."""
    params = {"n_blocks": BLOCKS[prior]} if prior in BLOCKS else {}
    fields = {"prior": prior, "prior_params": params}
    return fields if weight is None else {**fields, "prior_weight": weight}


def trained_run(
    run: Path, config: TrainConfig, progress: bool = True
) -> tuple[NAC, TrainConfig, dict]:
    """(model, its TrainConfig, its summary) of the run kept in ``run``, training it first
    (or finishing an interrupted one) unless its summary says it ran ``config.steps``."""
    summary_path = run / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    if summary.get("steps") != config.steps:
        summary = train(config, run, resume=(run / CHECKPOINT).is_file(), progress=progress)
    model, config = load_model(run)
    return model, config, summary


@dataclass(frozen=True)
class RunSet:
    """A bench's kept training runs: ``models`` maps a model name to its recipe (a path under
    configs/), and model M with seed S trains into ``runs``/M-seedS (resumed if interrupted;
    a finished run is only loaded)."""

    runs: Path
    models: dict[str, str]
    # the command that trains missing runs, said when a bench skips one
    how_to_train: str = "pass --train"

    def config(self, model: str, seed: int) -> TrainConfig:
        """The TrainConfig of ``model`` with ``seed``."""
        if model not in self.models:
            raise ValueError(f"unknown model {model!r}; choose one of {sorted(self.models)}")
        options = read_options(CONFIGS / self.models[model])
        return TrainConfig.from_dict({**options, "seed": seed})

    def run_dir(self, model: str, seed: int) -> Path:
        return self.runs / f"{model}-seed{seed}"

    def is_trained(self, model: str, seed: int) -> bool:
        return (self.run_dir(model, seed) / "summary.json").is_file()

    def trained(
        self, model: str, seed: int, progress: bool = True
    ) -> tuple[NAC, TrainConfig, dict]:
        """(model, its TrainConfig, its summary), trained first if needed."""
        return trained_run(self.run_dir(model, seed), self.config(model, seed), progress)

    def trained_runs(
        self, pairs: Iterable[tuple[str, int]], train: bool = False
    ) -> Iterator[tuple[str, int, NAC, TrainConfig, dict]]:
        """(name, seed, model, its TrainConfig, its summary) for each (name, seed) of ``pairs``
        that is trained (all of them, training what is missing, when ``train``); says which it
        skipped and how to train them."""
        for name, seed in pairs:
            if not train and not self.is_trained(name, seed):
                print(f"skipped {name} seed {seed}: not trained ({self.how_to_train})")
                continue
            yield name, seed, *self.trained(name, seed)

    def train_main(self, description: str, default_models: list[str]) -> None:
        """The command line of a run set's module: train --models for --seeds."""
        parser = argparse.ArgumentParser(description=description)
        parser.add_argument(
            "--models", nargs="+", default=default_models, choices=list(self.models)
        )
        parser.add_argument("--seeds", nargs="+", type=int, default=[0])
        args = parser.parse_args()
        for seed in args.seeds:
            for model in args.models:
                _, _, summary = self.trained(model, seed)
                print(f"{model} seed {seed}: val_acc {summary['val_acc']:.4f}")


def initial_model(config: TrainConfig) -> NAC:
    """The run's model before its first step (train() seeds torch with the run's seed, then
    builds the model)."""
    task = make_task(config.task, conditional=config.conditional, **config.task_options)
    torch.manual_seed(config.seed)
    return NAC(config.model_config(task))


def circuit_features(model: NAC, encode, texts: list[str], seed: int) -> dict:
    """Per sentence: the processors' off-diagonal P of ``model`` (``p``), of an untrained
    generator of the same architecture (``untrained``: random init, what the templates alone
    give) and the sentence embedding the generator reads (``sentence``); (N, d) each.
    ``encode(texts) -> (tokens, mask)`` is the task's text encoder."""
    from circuitlab.analysis.embedding import sentence_embeddings
    from circuitlab.interventions import off_diagonal, sentence_link_probabilities

    return {
        "p": off_diagonal(sentence_link_probabilities(model, encode, texts)),
        "untrained": untrained_features(model, encode, texts, seed),
        "sentence": sentence_embeddings(texts),
    }


def untrained_features(model: NAC, encode, texts: list[str], seed: int):
    """(N, d): the off-diagonal P of an untrained generator of ``model``'s architecture,
    initialised from ``seed``."""
    from circuitlab.interventions import off_diagonal, sentence_link_probabilities

    torch.manual_seed(seed)
    untrained = NAC(model.config).eval()
    return off_diagonal(sentence_link_probabilities(untrained, encode, texts))


def separation(
    model: NAC, encode, texts: list[str], labels: list[str], seed: int, repeats: int = 1
) -> dict:
    """How well ``labels`` (one category per sentence) separate, by 5-NN accuracy (5-fold) and
    silhouette, in each of ``circuit_features``. Labels with fewer than 5 sentences are left
    out. With ``repeats`` > 1, also ``knn_NAME_mean`` and ``knn_NAME_sd``: the 5-NN accuracy
    over seeds ``seed .. seed + repeats - 1`` (folds reshuffled, the untrained control drawn
    again), for sets of sentences small enough that one seed's figure moves by points."""
    import numpy as np
    from sklearn.metrics import silhouette_score

    from circuitlab.analysis.embedding import knn_accuracy

    kept, y, counts = kept_categories(texts, labels)
    features = circuit_features(model, encode, kept, seed)
    row: dict = {}
    for name, x in features.items():
        row[f"knn_{name}"] = knn_accuracy(x, y, 5, seed)
        spread = float(np.ptp(x)) > 0
        row[f"silhouette_{name}"] = float(silhouette_score(x, y)) if spread else float("nan")
    if repeats > 1:
        scores = {name: [row[f"knn_{name}"]] for name in features}
        for s in range(seed + 1, seed + repeats):
            features["untrained"] = untrained_features(model, encode, kept, s)
            for name, x in features.items():
                scores[name].append(knn_accuracy(x, y, 5, s))
        for name, values in scores.items():
            row[f"knn_{name}_mean"] = float(np.mean(values))
            row[f"knn_{name}_sd"] = float(np.std(values, ddof=1))
    row.update(knn_sentences=len(y), knn_classes=len(counts), knn_chance=counts.max() / len(y))
    return row


def kept_categories(texts: list[str], labels: list[str]) -> tuple[list[str], np.ndarray, pd.Series]:
    """(texts, labels (N,) array, sentences per label) of the labels with at least 5 sentences:
    what ``separation`` measures on."""
    series = pd.Series(labels)
    counts = series.value_counts()
    keep = series.isin(counts[counts >= 5].index).to_numpy()
    kept = [t for t, k in zip(texts, keep, strict=True) if k]
    return kept, series[keep].to_numpy(), counts[counts >= 5]


def category_membership(
    model: NAC, encode, texts: list[str], categories: list[list[str]], seed: int
) -> dict:
    """For sentences with any number of categories: for each category with at least 10
    sentences in and 10 out, the balanced accuracy of 5-NN (5-fold) telling whether a sentence
    has it, averaged over those categories (chance 0.5), in each of ``circuit_features``."""
    import numpy as np
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.neighbors import KNeighborsClassifier

    names = sorted({c for cats in categories for c in cats})
    members = {c: np.array([c in cats for cats in categories]) for c in names}
    scored = [c for c, y in members.items() if 10 <= y.sum() <= len(y) - 10]
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    row: dict = {"membership_categories": len(scored)}
    for name, x in circuit_features(model, encode, texts, seed).items():
        scores = [
            balanced_accuracy_score(
                members[c], cross_val_predict(KNeighborsClassifier(5), x, members[c], cv=folds)
            )
            for c in scored
        ]
        row[f"membership_{name}"] = float(np.mean(scores))
    return row


def finished_runs(runs: list[Path], names: list[str] | None) -> list[str]:
    """The row names of ``runs`` (``names``, or the run directories'), after checking that each
    run finished (its summary.json exists); exits with a message otherwise."""
    names = names or [run.name for run in runs]
    if len(names) != len(runs):
        raise SystemExit(f"{len(names)} names for {len(runs)} runs")
    missing = [str(r) for r in runs if not (r / "summary.json").is_file()]
    if missing:
        raise SystemExit(f"not finished (no summary.json): {', '.join(missing)}")
    return names


def with_other_runs(name: str, rows: list[dict]) -> list[dict]:
    """The rows of bench/results/NAME.csv with ``rows`` merged in: a run measured again takes
    its old row's place (the table's order stays), new runs come last."""
    path = RESULTS / f"{name}.csv"
    if not path.is_file():
        return rows
    fresh = {row["run"]: row for row in rows}
    merged = [fresh.pop(row["run"], row) for row in pd.read_csv(path).to_dict("records")]
    return merged + list(fresh.values())
