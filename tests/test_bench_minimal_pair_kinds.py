"""bench/minimal_pair_kinds.py: per kind, the share of pairs whose logic change moves P more
than the noun swap, and the median shifts of P beside it, each equal to its reference."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from test_interventions import U, _model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import minimal_pair_kinds  # noqa: E402

from circuitlab.interventions import sentence_link_probabilities  # noqa: E402
from circuitlab.model import NAC  # noqa: E402

WORDS = "a b c d e f".split()


def _pairs(n: int, kind: str, rng: np.random.Generator) -> pd.DataFrame:
    def sentence() -> str:
        return " ".join(rng.choice(WORDS, 3))

    return pd.DataFrame(
        [
            {"kind": kind, "text": sentence(), "wording": sentence(), "logic": sentence()}
            for _ in range(n)
        ]
    )


def test_each_kinds_shares_and_median_shifts_equal_their_reference(monkeypatch):
    g = torch.Generator().manual_seed(0)
    vectors = {w: torch.randn(7, generator=g) for w in WORDS}

    def encode(texts):
        tokens = torch.stack([torch.stack([vectors[w] for w in t.split()]) for t in texts])
        return tokens, torch.ones(tokens.shape[:2], dtype=torch.bool)

    # the sentence embedding is MiniLM's: not what this test is about
    monkeypatch.setattr(minimal_pair_kinds, "embedding_moves_more", lambda p: np.ones(len(p)))
    monkeypatch.setattr(minimal_pair_kinds, "MIN_PAIRS", 5)
    rng = np.random.default_rng(0)
    pairs = pd.concat([_pairs(6, "one", rng), _pairs(5, "two", rng), _pairs(3, "few", rng)])
    pairs = pairs.reset_index(drop=True)
    model = _model()
    table = minimal_pair_kinds.kind_table(model, encode, pairs, seed=3).set_index("kind")

    torch.manual_seed(3)  # the bench's untrained generator: NAC(config) after manual_seed(seed)
    generators = {"model": model, "untrained": NAC(model.config).eval()}
    for who, generator in generators.items():
        n = len(pairs)
        p = sentence_link_probabilities(
            generator, encode, [*pairs["text"], *pairs["wording"], *pairs["logic"]]
        )
        logic = np.linalg.norm((p[2 * n :] - p[:n]).reshape(n, -1), axis=1) / U
        noun = np.linalg.norm((p[n : 2 * n] - p[:n]).reshape(n, -1), axis=1) / U
        for kind in ("one", "two", "few"):
            rows = (pairs["kind"] == kind).to_numpy()
            assert table.loc[kind, "pairs"] == rows.sum()
            assert table.loc[kind, who] == pytest.approx((logic[rows] > noun[rows]).mean())
            assert table.loc[kind, f"{who}_logic_rms"] == pytest.approx(np.median(logic[rows]))
            assert table.loc[kind, f"{who}_noun_rms"] == pytest.approx(np.median(noun[rows]))
        # the mean row: the kinds with >= MIN_PAIRS pairs ("few" has 3), each counted once
        counted = table.loc[["one", "two"]]
        assert table.loc["mean over kinds", "pairs"] == 11
        for column in (who, f"{who}_logic_rms", f"{who}_noun_rms"):
            assert table.loc["mean over kinds", column] == pytest.approx(counted[column].mean())
    # the trained and the untrained generators differ: the untrained one is not the model
    assert table.loc["one", "model_logic_rms"] != table.loc["one", "untrained_logic_rms"]
