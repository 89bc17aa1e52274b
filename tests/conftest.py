import os
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]

# pytest-xdist runs the tests in several processes: each gets its share of the cores (torch
# threads beyond the cores crawl), and so do the CLIs the tests start (OMP_NUM_THREADS).
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    _THREADS = max(1, (os.cpu_count() or 1) // _WORKERS)
    os.environ["OMP_NUM_THREADS"] = str(_THREADS)
    torch.set_num_threads(_THREADS)


# seconds a browser test (dash_duo: a Chromium, a page load and its first draw) takes on a quiet
# 2-core machine, about; what the longest-first order below gives it
BROWSER_TEST_SECONDS = 20


def _expected_seconds(item: pytest.Item) -> float:
    marker = item.get_closest_marker("slow")
    if marker is not None:
        return float(marker.args[0])
    return BROWSER_TEST_SECONDS if "dash_duo" in getattr(item, "fixturenames", ()) else 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest tests first (``@pytest.mark.slow(SECONDS)``, then browser tests, then the rest in
    file order): the xdist workers take one test at a time (pyproject's --maxschedchunk 1), so
    the long ones spread over both and the run ends on short ones, not one worker's long tail."""
    items.sort(key=_expected_seconds, reverse=True)  # stable: equal costs keep file order


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory) -> Path:
    """A folder laid out like a clone after ``make demo``, made once for the whole session:
    ``checkpoints/`` (the shipped ones) and small real stores in ``stores/nlvr/`` (the shipped
    model's circuits of the first 150 NLVR2 sentences and NLVR examples of each split)."""
    from circuitlab.export import export_checkpoint

    folder = tmp_path_factory.mktemp("demo")
    (folder / "checkpoints").symlink_to(ROOT / "checkpoints")
    export_checkpoint(ROOT / "checkpoints" / "nlvr", folder / "stores" / "nlvr", limit=150)
    return folder


@pytest.fixture(scope="session")
def tiny_pairs_export(tmp_path_factory) -> tuple[Path, Path]:
    """A small conditional pair-world NAC trained 6 steps (``tests.test_train.TINY_MODEL``) and
    its two stores (12 NLVR2 sentences; 8 held-out pair-world examples of each split, the first
    12 kept): (checkpoint path, stores folder with ``nlvr2/`` and ``pairs/``)."""
    from circuitlab.checkpoint import checkpoint_file
    from circuitlab.export import _write_pair_stores  # 8 examples a split: a knob of its own
    from circuitlab.train import load_model, train
    from tests.test_train import tiny_conditional_config

    options = dict(pool_size=40, val_pool_size=10, held_out_pool_size=10)
    config = tiny_conditional_config("pairs", options, steps=6, batch_size=8, every=3, eval_size=16)
    folder = tmp_path_factory.mktemp("tiny-pairs")
    train(config, folder / "run", progress=False)
    checkpoint = checkpoint_file(folder / "run")
    model, config = load_model(checkpoint)
    out = folder / "stores"
    _write_pair_stores(model, config, checkpoint, out, overwrite=False, limit=12, n_examples=8)
    return checkpoint, out


@pytest.fixture(scope="session")
def tiny_ni_run(tmp_path_factory) -> Path:
    """A run directory of a small Neural Interpreter trained 2 steps on fuzzy-boolean
    (2 scripts x 2 iterations, 3 functions, 20 CLS tokens + 5 variable tokens)."""
    from circuitlab.train import TrainConfig, train

    config = TrainConfig(
        task="fuzzy-boolean",
        model_kind="ni",
        steps=2,
        eval_every=2,
        eval_size=32,
        checkpoint_every=2,
        batch_size=8,
        device="cpu",
        model=dict(dim=16, n_functions=3, iterations=2, heads=2, head_dim=4, code_dim=8),
    )
    run = tmp_path_factory.mktemp("tiny-ni") / "run"
    train(config, run, progress=False)
    return run


@pytest.fixture(scope="session")
def tiny_mn_run(tmp_path_factory) -> Path:
    """A run directory of a small Modular Network trained 30 steps on digits by Viterbi EM
    (2 layers of 3 convolution modules of 4 channels, one picked per layer)."""
    from circuitlab.train import TrainConfig, train

    config = TrainConfig(
        task="digits",
        model_kind="mn",
        steps=30,
        eval_every=30,
        eval_size=64,
        checkpoint_every=30,
        batch_size=32,
        device="cpu",
        model=dict(n_layers=2, n_modules=3, width=4, head=True),
    )
    run = tmp_path_factory.mktemp("tiny-mn") / "run"
    train(config, run, progress=False)
    return run


@pytest.fixture(scope="session")
def tiny_nfm_run(tmp_path_factory) -> Path:
    """A run directory of a small NFM network trained 3 steps on sort-of-clevr (two layers of
    8 channels on 32 x 32 images; 60 training scenes, 20 test and 20 held-out)."""
    from circuitlab.train import TrainConfig, train

    config = TrainConfig(
        task="sort-of-clevr",
        model_kind="nfm",
        task_options=dict(n_train=60, n_test=20),
        steps=3,
        eval_every=3,
        eval_size=64,
        checkpoint_every=3,
        batch_size=16,
        device="cpu",
        model=dict(channels=[8, 8], hidden=32),
    )
    run = tmp_path_factory.mktemp("tiny-nfm") / "run"
    train(config, run, progress=False)
    return run
