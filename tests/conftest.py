from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory) -> Path:
    """A folder laid out like a clone after ``make demo``, made once for the whole session:
    ``checkpoints/`` (the shipped ones) and small real stores in ``stores/nlvr/`` (the shipped
    model's circuits of the first 150 NLVR2 sentences and NLVR examples of each split)."""
    from circuitlab.export import export_nlvr

    folder = tmp_path_factory.mktemp("demo")
    (folder / "checkpoints").symlink_to(ROOT / "checkpoints")
    export_nlvr(ROOT / "checkpoints" / "nlvr", folder / "stores" / "nlvr", limit=150)
    return folder
