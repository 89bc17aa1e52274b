"""The public API's edges: a researcher's own tensors, ids, files and numbers that cannot be used
are refused with the project's own error (``CircuitlabError``) naming the argument, never a bare
torch / pandas error and never a silent NaN or wrong row. Hypothesis draws the bad inputs."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from circuitlab import Circuit, CircuitStore, CircuitStoreError
from circuitlab.analysis import LinkMatrixError
from circuitlab.app.scene_kinds import SceneFormatError
from circuitlab.app.store_view import StoreView
from circuitlab.config import NACConfig
from circuitlab.config_groups import GeneratorConfig
from circuitlab.data.nlvr import NLVRFormatError, read_nlvr
from circuitlab.errors import CircuitlabError, InputError
from circuitlab.interventions import run_with_circuit
from circuitlab.model import NAC
from circuitlab.task import Batch

U, R, SIG, CODE, VOCAB = 5, 2, 4, 6, 11


def _model(**conditioning) -> NAC:
    config = NACConfig(
        input_dim=3,
        n_processors=U,
        n_readouts=R,
        dim=8,
        depth=1,
        heads=2,
        head_dim=4,
        code_dim=CODE,
        sig_dim=SIG,
        conditional=True,
        generator=GeneratorConfig(dim=8, heads=2, **conditioning or {"cond_dim": 7}),
    )
    return NAC(config).eval()


MODEL, TOKEN_MODEL = _model(), _model(cond_vocab=VOCAB, cond_dim=8)


def _batch(b: int = 3) -> Batch:
    g = torch.Generator().manual_seed(0)
    return Batch(
        torch.randn(b, 4, 3, generator=g),
        torch.zeros(b, dtype=torch.long),
        torch.randn(b, 2, 7, generator=g),
        torch.ones(b, 2, dtype=torch.bool),
    )


def test_every_error_for_outside_input_is_the_projects_own():
    for error in (
        InputError,
        CircuitStoreError,
        NLVRFormatError,
        SceneFormatError,
        LinkMatrixError,
    ):
        assert issubclass(error, CircuitlabError) and issubclass(error, ValueError)


@settings(max_examples=30, deadline=None)
@given(
    which=st.sampled_from(["signatures", "codes"]),
    width=st.integers(1, 9),
    rows=st.sampled_from([1, 3]),
    bad=st.sampled_from([None, float("nan"), float("inf")]),
    where=st.tuples(st.integers(0, 2), st.integers(0, U + R - 1), st.integers(0, 8)),
)
def test_a_circuit_of_the_wrong_width_or_with_nan_is_refused_naming_it(
    which, width, rows, bad, where
):
    right = SIG if which == "signatures" else CODE
    value = torch.ones(rows, U + R, width)
    if bad is not None:
        value[where[0] % rows, where[1], where[2] % width] = bad
    if width == right and bad is None:
        logits = run_with_circuit(MODEL, _batch(), **{which: value})
        assert logits.shape == (3, MODEL.config.n_classes) and torch.isfinite(logits).all()
        return
    with pytest.raises(InputError) as caught:
        run_with_circuit(MODEL, _batch(), **{which: value})
    assert caught.value.argument == which
    assert ("NaN or inf" if width == right else f"width {right}") in str(caught.value)


def test_integer_or_zero_signatures_are_refused():
    with pytest.raises(InputError, match="must hold floats"):
        run_with_circuit(MODEL, _batch(), signatures=torch.ones(1, U + R, SIG, dtype=torch.long))
    zero = torch.ones(1, U + R, SIG)
    zero[0, 2] = 0.0
    with pytest.raises(InputError, match="module 2 has an all-zero signature"):
        run_with_circuit(MODEL, _batch(), signatures=zero)
    inputs = _batch()
    inputs.inputs[1, 2, 0] = float("nan")
    with pytest.raises(InputError, match=r"batch.inputs: has NaN or inf entries .*\(1, 2, 0\)"):
        run_with_circuit(MODEL, inputs)


@settings(max_examples=30, deadline=None)
@given(
    token=st.one_of(st.integers(-50, -1), st.integers(VOCAB, VOCAB + 100)),
    place=st.tuples(st.integers(0, 1), st.integers(0, 3)),
)
def test_a_token_id_outside_the_vocabulary_is_refused_with_its_place(token, place):
    ids = torch.randint(0, VOCAB, (2, 4))
    ids[place] = token
    with pytest.raises(InputError) as caught:
        TOKEN_MODEL.generate(ids)
    assert caught.value.argument == "conditioning"
    assert f"token id {token} at {place}" in str(caught.value)
    ids[place] = VOCAB - 1  # the last id of the vocabulary is fine
    signatures, _ = TOKEN_MODEL.generate(ids)
    assert signatures.shape == (2, U + R, SIG)


def test_conditioning_of_the_wrong_kind_is_refused():
    with pytest.raises(InputError, match=r"must be \(B, T, 7\) vectors"):
        MODEL.generate(torch.ones(2, 3, 5))
    with pytest.raises(InputError, match="integer token ids"):
        TOKEN_MODEL.generate(torch.ones(2, 3))
    nan = torch.ones(2, 3, 7)
    nan[1, 0, 4] = float("nan")
    with pytest.raises(InputError, match=r"conditioning: has NaN .*\(1, 0, 4\)"):
        MODEL.generate(nan)


def test_value_checks_stand_aside_only_inside_a_compiled_or_accelerated_training_step(
    monkeypatch,
):
    from circuitlab.tensor_checks import worth_checking

    ids = torch.zeros(2, 3, dtype=torch.long)
    assert worth_checking(ids, training=False) and worth_checking(ids, training=True)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    assert worth_checking(ids, training=False) and not worth_checking(ids, training=True)
    # a training step under compile skips the check (torch then raises its own error) ...
    bad = torch.full((2, 4), VOCAB)
    with pytest.raises(IndexError):
        TOKEN_MODEL.train().generate(bad)
    # ... and the same call outside training names the bad id
    with pytest.raises(InputError, match=f"token id {VOCAB}"):
        TOKEN_MODEL.eval().generate(bad)
    TOKEN_MODEL.train()


def _store(tmp_path, ids: list) -> CircuitStore:
    rng = np.random.default_rng(0)
    circuits = [
        Circuit(rng.normal(size=(4, 3)) + 0.1, ["processor"] * 3 + ["readout"]) for _ in ids
    ]
    return CircuitStore.write(tmp_path / "s", circuits, pd.DataFrame({"id": ids}))


@given(index=st.one_of(st.text(max_size=5), st.floats(), st.booleans(), st.none()))
def test_a_store_is_indexed_by_position_and_anything_else_is_refused(tmp_path_factory, index):
    store = _store(tmp_path_factory.mktemp("s"), [10, 11, 12])
    with pytest.raises(InputError) as caught:
        store[index]
    assert caught.value.argument == "index" and "row_of" in str(caught.value)


def test_an_id_as_it_comes_from_a_url_finds_its_row(tmp_path):
    store = _store(tmp_path, [10, 11, 12])
    assert [store.row_of(i) for i in (12, "12", " 10", np.int64(11))] == [2, 2, 0, 1]
    for missing in ("13", "x", 1.5, True):
        with pytest.raises(KeyError):
            store.row_of(missing)
    np.testing.assert_array_equal(store[store.row_of("11")].signatures, store[1].signatures)


def test_a_store_of_string_ids_finds_them_in_the_library_and_the_app(tmp_path):
    store = _store(tmp_path, ["a7", "b", "3"])
    assert [store.row_of(i) for i in ("b", "3", 3)] == [1, 2, 2]
    view = StoreView(CircuitStore.open(store.path))
    assert [view.index_of(i) for i in ("a7", "3", "nope")] == [0, 2, None]


@pytest.mark.parametrize("ids", [[0.5, 1.5], [1, "a"], [None, None]])
def test_ids_a_store_cannot_hold_are_refused_at_write(tmp_path, ids):
    with pytest.raises(InputError, match=r"frame\['id'\]"):
        _store(tmp_path, ids)
    assert not (tmp_path / "s").exists()


def test_an_all_zero_signature_is_refused_in_a_circuit_a_write_and_a_read(tmp_path):
    with pytest.raises(InputError, match="module 1 has an all-zero signature"):
        Circuit(np.array([[1.0, 0.0], [0.0, 0.0]]), ["processor", "readout"])
    arrays = {"signatures": (np.ones((2, 3, 2), np.float32), ["sample", "module", "sig"])}
    arrays["signatures"][0][1, 2] = 0.0
    meta = {
        "n_modules": 3,
        "d_sig": 2,
        "d_code": None,
        "eps": 1.0,
        "truncation": None,
        "roles": ["processor", "processor", "readout"],
    }
    frame = pd.DataFrame({"id": [0, 1]})
    with pytest.raises(InputError, match="circuit 1, module 2"):
        CircuitStore.write_arrays(tmp_path / "z", "nac", arrays, frame, extra_meta=meta)
    store = _store(tmp_path, [0, 1, 2])
    signatures = np.load(store.path / "signatures.npy")
    signatures[2, 0] = 0.0
    np.save(store.path / "signatures.npy", signatures)
    with pytest.raises(CircuitStoreError, match="circuit 2, module 0 has an all-zero"):
        CircuitStore.open(store.path)


def _nlvr_file(tmp_path, x):
    scene = [[{"x_loc": x, "y_loc": 5, "size": 10, "type": "circle", "color": "Black"}]] * 3
    line = {
        "sentence": "There is a circle.",
        "label": "true",
        "identifier": "1-0",
        "structured_rep": scene,
    }
    path = tmp_path / "nlvr.json.gz"
    path.write_bytes(gzip.compress((json.dumps(line) + "\n").encode()))
    return path


@pytest.mark.parametrize(("x", "read"), [(12, 12), (12.0, 12), ("12", 12)])
def test_a_whole_scene_coordinate_is_read(tmp_path, x, read):
    assert read_nlvr(_nlvr_file(tmp_path, x))[0].boxes[0][0].x == read


@pytest.mark.parametrize("x", [12.7, "12.5", True, None])
def test_a_fractional_scene_coordinate_is_refused_not_cut(tmp_path, x):
    with pytest.raises(NLVRFormatError, match="whole numbers"):
        read_nlvr(_nlvr_file(tmp_path, x))


def test_numbers_that_would_be_cut_or_compare_false_are_refused(tmp_path):
    from circuitlab.circuit import link_probabilities
    from circuitlab.interventions import LinkEdit

    store = _store(tmp_path, [0, 1, 2])
    for bad in (float("nan"), 1.5, -0.1, "0.5"):
        with pytest.raises(InputError, match="threshold"):
            store[0].to_networkx(threshold=bad)
    with pytest.raises(InputError, match="eps"):
        link_probabilities(np.ones((2, 3)), eps=0.0)
    for bad in (1.5, "1", True):
        with pytest.raises(InputError, match="LinkEdit.knocked_out"):
            LinkEdit(knocked_out=(bad,))
    assert LinkEdit(knocked_out=np.array([1, 2])).knocked_out == (1, 2)
    for bad, said in (([1.5], "row positions"), ([3], "row 3 is out of range"), ([-4], "row -4")):
        with pytest.raises(InputError, match=said):
            store.link_probabilities(bad)
        with pytest.raises(InputError, match=said):
            store.mean_link_probability(bad)
    mask = np.array([True, False, True])
    np.testing.assert_array_equal(store.link_probabilities(mask), store.link_probabilities([0, 2]))
    np.testing.assert_array_equal(
        store.link_probabilities(slice(1, None)), store.link_probabilities([1, 2])
    )


def test_one_row_position_gives_one_matrix(tmp_path):
    store = _store(tmp_path, [0, 1, 2])
    np.testing.assert_array_equal(
        store.link_probabilities(np.int64(1)), store[1].link_probability()
    )
    with pytest.raises(InputError, match="row 5 is out of range"):
        store.link_probabilities(5)
