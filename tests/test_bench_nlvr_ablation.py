"""bench/nlvr_ablation.py's summary over seeds (the NLVR ablation table of docs/results.md)."""

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from nlvr_ablation import summary  # noqa: E402


def test_summary_gives_each_rung_its_mean_std_and_values_in_seed_order():
    per_seed = pd.DataFrame(
        [  # seeds out of order, as concatenated CSVs can be
            {"rung": "B", "seed": 1, "world val": 0.7, "iid": 0.60, "ood": 0.50},
            {"rung": "A", "seed": 1, "world val": 0.7, "iid": 0.80, "ood": 0.60},
            {"rung": "A", "seed": 0, "world val": 0.7, "iid": 0.70, "ood": 0.65},
            {"rung": "A", "seed": 2, "world val": 0.7, "iid": 0.90, "ood": 0.70},
        ]
    )
    table = summary(per_seed).set_index("rung")
    assert list(table.index) == ["B", "A"]  # first seen, not sorted
    a = table.loc["A"]
    assert a["seeds"] == 3
    assert a["iid_mean"] == pytest.approx(0.80)
    assert a["iid_std"] == pytest.approx(0.10)  # sample std over seeds
    assert a["ood_mean"] == pytest.approx(0.65)
    assert a["gap_mean"] == pytest.approx(-0.15)
    assert a["gap_std"] == pytest.approx(pd.Series([-0.05, -0.20, -0.20]).std())
    assert a["ood_per_seed"] == "0.650 0.600 0.700"  # seeds 0, 1, 2
    b = table.loc["B"]
    assert b["seeds"] == 1 and pd.isna(b["iid_std"])
    assert b["gap_per_seed"] == "-0.100"
