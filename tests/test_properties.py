"""Property-based tests (hypothesis): Circuit and CircuitStore round trips, and the checks every
link matrix goes through before analysis."""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from circuitlab import Circuit, CircuitStore
from circuitlab.analysis import LinkMatrixError, check_link_matrix

finite = st.floats(-1e3, 1e3, allow_nan=False, width=32)


@st.composite
def circuit_sets(draw):
    """1-5 circuits of one model: U modules, d_sig, codes or none, eps, truncation."""
    u, d_sig, n = draw(st.integers(2, 8)), draw(st.integers(1, 6)), draw(st.integers(1, 5))
    d_code = draw(st.one_of(st.none(), st.integers(1, 4)))
    eps = draw(st.floats(0.05, 5.0))
    truncation = draw(st.one_of(st.none(), st.floats(0.1, 2.0)))
    roles = ["processor"] * (u - 1) + ["readout"]
    circuits = []
    for _ in range(n):
        signatures = draw(arrays(np.float32, (u, d_sig), elements=finite))
        signatures[~signatures.any(axis=1), 0] = 1.0  # a zero vector has no cosine: refused
        codes = None if d_code is None else draw(arrays(np.float32, (u, d_code), elements=finite))
        circuits.append(Circuit(signatures, roles, codes, eps=eps, truncation=truncation))
    return circuits


@settings(max_examples=40, deadline=None)
@given(circuits=circuit_sets(), texts=st.lists(st.text(max_size=20), min_size=5, max_size=5))
def test_a_store_gives_back_exactly_what_was_written(circuits, texts):
    frame = pd.DataFrame({"text": texts[: len(circuits)]})
    with tempfile.TemporaryDirectory() as folder:
        CircuitStore.write(Path(folder) / "s", circuits, frame)
        store = CircuitStore.open(Path(folder) / "s")
        assert len(store) == len(circuits)
        assert list(store.frame["text"]) == list(frame["text"])
        for i, written in enumerate(circuits):
            read = store[i]
            np.testing.assert_array_equal(read.signatures, written.signatures)
            if written.codes is None:
                assert read.codes is None
            else:
                np.testing.assert_array_equal(read.codes, written.codes)
            assert (read.eps, read.truncation) == (written.eps, written.truncation)
            p = store.link_probabilities([i])[0]
            np.testing.assert_array_equal(p, written.link_probability())
            assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
            np.testing.assert_allclose(p, p.T, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    signatures=arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 4)), elements=finite),
    data=st.data(),
)
def test_a_circuit_with_any_non_finite_entry_is_refused_naming_its_module(signatures, data):
    u, d = signatures.shape
    module, column = data.draw(st.integers(0, u - 1)), data.draw(st.integers(0, d - 1))
    signatures[module, column] = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    first_bad = int(np.argwhere(~np.isfinite(signatures))[0][0])
    with pytest.raises(
        ValueError, match=f"NaN or inf entries \\(the first in module {first_bad}\\)"
    ):
        Circuit(signatures, ["processor"] * u)


@st.composite
def link_matrices(draw):
    u = draw(st.integers(1, 8))
    upper = draw(arrays(np.float64, (u, u), elements=st.floats(0.0, 1.0)))
    return np.triu(upper) + np.triu(upper, 1).T


@settings(max_examples=60, deadline=None)
@given(p=link_matrices())
def test_a_valid_link_matrix_comes_back_symmetric_with_zero_diagonal(p):
    checked = check_link_matrix(p)
    off = ~np.eye(len(p), dtype=bool)
    np.testing.assert_array_equal(checked[off], p[off])
    assert (np.diag(checked) == 0).all() and (checked == checked.T).all()


@settings(max_examples=60, deadline=None)
@given(p=link_matrices(), data=st.data())
def test_an_invalid_link_matrix_is_refused_saying_why(p, data):
    u = len(p)
    i, j = data.draw(st.integers(0, u - 1)), data.draw(st.integers(0, u - 1))
    fault = data.draw(st.sampled_from(["nan", "above one", "negative", "asymmetric"]))
    if fault == "asymmetric" and i == j:
        return  # a diagonal entry cannot break symmetry
    bad = p.copy()
    bad[i, j] = {"nan": np.nan, "above one": 1.5, "negative": -0.5}.get(fault, 0.5)
    if fault in ("above one", "negative") and i == j:
        # the diagonal is not read (a kernel's P_ii = exp(0) rounds past 1): it reads as 0
        assert (np.diag(check_link_matrix(bad)) == 0).all()
        return
    if fault == "asymmetric":
        bad[j, i] = 0.1  # 0.4 away from bad[i, j]
    messages = {
        "nan": "NaN or inf",
        "above one": "outside \\[0, 1\\]",
        "negative": "outside \\[0, 1\\]",
        "asymmetric": "not symmetric",
    }
    with pytest.raises(LinkMatrixError, match=messages[fault]):
        check_link_matrix(bad)
