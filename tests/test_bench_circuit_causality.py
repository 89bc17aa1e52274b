"""bench/circuit_causality.py's results table (docs/results.md)."""

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import pytest  # noqa: E402
from circuit_causality import markdown, rows_named, seed_summary  # noqa: E402


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


def test_seed_summary_is_the_mean_and_sample_spread_of_the_named_rows_only():
    frame = pd.DataFrame(
        [
            {"run": "s0", "world_heldout": 0.85, "nlvr_test": 0.70, "knn_p": None},
            {"run": "s100", "world_heldout": 0.87, "nlvr_test": 0.72, "knn_p": 0.9},
            {"run": "s200", "world_heldout": 0.89, "nlvr_test": 0.74, "knn_p": None},
            {"run": "other", "world_heldout": 0.10, "nlvr_test": 0.10, "knn_p": 0.1},
        ]
    )
    row = seed_summary(frame, ["s0", "s100", "s200"])
    # columns in table order; sd with ddof 1: 0.02 for both; one value gives no spread
    assert row == "| mean ± sd over 3 seeds | 0.870 ± 0.020 | 0.720 ± 0.020 | - |"
    with pytest.raises(ValueError, match="s300"):
        seed_summary(frame, ["s0", "s300"])
    with pytest.raises(ValueError, match="two seeds"):
        seed_summary(frame, ["s0"])


def test_rows_named_keeps_the_asked_order_and_names_what_is_missing():
    frame = pd.DataFrame([{"run": name, "world_heldout": 0.5} for name in ("a", "b", "c")])
    assert list(rows_named(frame, ["c", "a"])["run"]) == ["c", "a"]
    with pytest.raises(ValueError, match="'d'"):
        rows_named(frame, ["a", "d"])
