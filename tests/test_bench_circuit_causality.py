"""bench/circuit_causality.py's results table (docs/results.md)."""

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from circuit_causality import markdown  # noqa: E402


def test_markdown_keeps_the_acceptance_columns_in_order_and_marks_missing_values():
    frame = pd.DataFrame(
        [
            {"run": "NAC", "seed": 0, "world_heldout": 0.71234, "signature_swap_drop": 0.1},
            {"run": "Perceiver IO", "seed": 0, "world_heldout": 0.7, "signature_swap_drop": None},
        ]
    )
    lines = markdown(frame).splitlines()
    assert lines[0] == "| design | world held-out | signature swap drop |"
    assert lines[1] == "|---|---|---|"
    assert lines[2] == "| NAC | 0.712 | 0.100 |"
    assert lines[3] == "| Perceiver IO | 0.700 | - |"
