"""bench/nfm_clevr.py's intervals and gain table against hand computations, and its models'
configs (the parameter-matched baseline really is matched)."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from nfm_clevr import (  # noqa: E402
    ablations_table,
    gain_interval,
    gains_table,
    interval,
    results_table,
    run_config,
)

from circuitlab.nfm import NFMConfig, NFMNetwork  # noqa: E402


def test_interval_is_the_t_interval_of_the_mean():
    values = np.array([0.70, 0.72, 0.74, 0.76, 0.78])  # sd 0.0316, t(0.975, 4) = 2.776
    assert interval(values) == pytest.approx(2.7764 * 0.031623 / np.sqrt(5), rel=1e-3)
    assert np.isnan(interval(np.array([0.7])))


def test_gain_interval_is_welch():
    a, b = np.array([0.80, 0.82, 0.84]), np.array([0.70, 0.70, 0.73, 0.71])
    gain, half = gain_interval(a, b)
    assert gain == pytest.approx(0.82 - 0.71)
    va, vb = 0.0004 / 3, b.var(ddof=1) / 4
    dof = (va + vb) ** 2 / (va**2 / 2 + vb**2 / 3)  # Welch-Satterthwaite
    from scipy import stats

    assert half == pytest.approx(stats.t.ppf(0.975, dof) * np.sqrt(va + vb))


def test_gains_are_over_the_reference_in_points_per_split_and_kind():
    rows = []
    for model, offset in (("cnn-mlp-wide", 0.0), ("nfm", 0.03)):
        for seed, noise in enumerate((0.0, 0.01, -0.01)):
            for split in ("test", "heldout"):
                for kind in ("relational", "non-relational"):
                    accuracy = 0.7 + offset + noise + (0.05 if kind == "relational" else 0)
                    rows.append(
                        dict(model=model, seed=seed, split=split, kind=kind, accuracy=accuracy)
                    )
    table = gains_table(pd.DataFrame(rows)).set_index("model")
    assert list(table.index) == ["nfm"]  # the reference is not its own row
    assert table.loc["nfm", "test relational"].startswith("+3.0 +- ")
    assert table.loc["nfm", "seeds"] == "3 vs 3"


def test_ablations_are_against_the_full_nfm_model_and_leave_the_baselines_out():
    rows = []
    for model, offset in (("cnn-mlp-wide", 0.0), ("nfm", 0.03), ("nfm-top-1", 0.01)):
        for seed, noise in enumerate((0.0, 0.01, -0.01)):
            for split in ("test", "heldout"):
                for kind in ("relational", "non-relational"):
                    accuracy = 0.7 + offset + noise
                    rows.append(
                        dict(model=model, seed=seed, split=split, kind=kind, accuracy=accuracy)
                    )
    table = ablations_table(pd.DataFrame(rows)).set_index("model")
    assert list(table.index) == ["nfm-top-1"]
    assert table.loc["nfm-top-1", "heldout non-relational"].startswith("-2.0 +- ")


def test_the_wide_baseline_matches_nfm_in_parameters():
    def parameters(model: str) -> int:
        return NFMNetwork(NFMConfig.from_dict(run_config(model, 0).model)).n_parameters()

    assert abs(parameters("cnn-mlp-wide") - parameters("nfm")) / parameters("nfm") < 0.01
    assert parameters("cnn-mlp") < 0.5 * parameters("nfm")
    assert run_config("nfm-no-top-down", 0).model["top_down"] is False
    assert run_config("cnn-mlp", 0).compile is False  # only the NFM runs compile


def _rows(offsets: dict[str, float], seeds: int = 3) -> pd.DataFrame:
    """One row per model, seed, split and kind: accuracy 0.7 + the model's offset + noise."""
    rows = []
    for model, offset in offsets.items():
        for seed, noise in enumerate((0.0, 0.01, -0.01, 0.02, -0.02)[:seeds]):
            for split in ("test", "heldout"):
                for kind in ("relational", "non-relational"):
                    accuracy = 0.7 + offset + noise
                    rows.append(
                        dict(model=model, seed=seed, split=split, kind=kind, accuracy=accuracy)
                    )
    return pd.DataFrame(rows)


def test_the_results_table_puts_the_gain_under_nfm_and_the_differences_beside_ablations():
    frame = _rows({"nfm-dense": 0.01, "cnn-mlp-wide": 0.0, "nfm": 0.03})
    table = results_table(frame)
    # TITLES' order whatever the rows' order, the gain row right under NFM's
    assert list(table.model) == [
        "CNN-MLP, hidden 414 (237,574: matched)",
        "CNN-MLP + NFM (237,662)",
        "NFM over the matched CNN-MLP, points",
        "NFM, dense reads (no top-k)",
    ]
    assert "held-out relational" in table.columns
    rows = table.set_index("model")
    half = interval(np.array([0.7, 0.71, 0.69]))
    assert rows.loc["CNN-MLP + NFM (237,662)", "test relational"] == f"0.730 +- {half:.3f}"
    assert rows.loc["NFM over the matched CNN-MLP, points", "seeds"] == "3 vs 3"
    assert rows.loc["NFM over the matched CNN-MLP, points", "test relational"].startswith("+3.0")
    assert rows.loc["NFM, dense reads (no top-k)", "held-out non-relational"].startswith(
        f"0.710 +- {half:.3f} (-2.0 +- "
    )


def test_the_results_table_of_models_without_their_references_has_no_comparison_rows():
    # no cnn-mlp-wide: no gain row; no nfm: no difference beside an ablation
    table = results_table(_rows({"cnn-mlp": 0.0, "nfm-top-1": 0.01}))
    assert list(table.model) == ["CNN-MLP (112,754 parameters)", "NFM, top-1 reads"]
    assert not table["test relational"].str.contains(r"\(").any()
    assert results_table(_rows({"nfm": 0.03})).model.tolist() == ["CNN-MLP + NFM (237,662)"]
