import subprocess
import sys
from pathlib import Path

import pytest

from circuitlab import CircuitStore

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.slow(19)
@pytest.mark.parametrize("prior", ["planted_partition", "scale_free"])
def test_quickstart_runs_end_to_end(tmp_path, prior):
    result = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "quickstart.py"),
            "--out",
            str(tmp_path),
            "--steps",
            "5",
            "--prior",
            prior,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "processors: 16 -> 8" in result.stdout
    store = CircuitStore.open(tmp_path / "store")
    assert len(store) == 1 and store.config["prior"] == prior


def test_nlvr_circuit_example_on_the_shipped_checkpoint():
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "nlvr_circuit.py"), "There is a yellow block on top."],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "best-connected processors:" in result.stdout
    assert result.stdout.count("  +") + result.stdout.count("  -") >= 6  # one line per reference
