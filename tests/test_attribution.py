"""Attribution pinned to reference cuts: each exact effect is the same link cut (or module
knocked out) run through ``run_with_circuit``; the first-order estimate is checked against a
finite difference of the kernel; minimal circuits are run again and keep the answer."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_interventions import R, U, _batch, _model

from circuitlab.attribution import (
    category_links,
    circuit_links,
    link_effect_estimates,
    link_effects,
    link_masks,
    minimal_circuits,
    module_effects,
)
from circuitlab.circuit import circuit_links as circuit_links_of
from circuitlab.circuit import present_links
from circuitlab.edits import CircuitEdit
from circuitlab.interventions import LinkEdit, generated_circuits, run_with_circuit


def _p_answer(logits: torch.Tensor, answer: np.ndarray) -> np.ndarray:
    return logits.softmax(-1)[torch.arange(len(answer)), torch.from_numpy(answer)].numpy()


def _margin(logits: torch.Tensor, answer: np.ndarray) -> np.ndarray:
    """The answer's logit minus the best other class's logit, (B,)."""
    rows, answer = torch.arange(len(answer)), torch.from_numpy(answer)
    others = logits.clone()
    others[rows, answer] = float("-inf")
    return (logits[rows, answer] - others.max(-1).values).numpy()


def test_circuit_links_are_every_processor_pair_and_every_processor_read_out_pair():
    model = _model()
    links = circuit_links(model.config)
    assert len(links) == U * (U - 1) // 2 + U * R
    assert (links[:, 0] < links[:, 1]).all()
    assert (links[:, 0] < U).all()  # read-outs never talk to each other
    assert len({tuple(x) for x in links}) == len(links)
    masks = link_masks(U + R, links[:2])
    assert masks[0, links[0, 0], links[0, 1]] and masks[0, links[0, 1], links[0, 0]]
    assert masks.sum() == 4
    keep = link_masks(U + R, links[:3], keep=True)
    assert keep[0].sum() == 4 and not keep[0, links[0, 0], links[0, 1]]


@pytest.mark.parametrize("measure", ["p_answer", "margin"])
def test_an_exact_link_effect_is_the_same_link_cut_by_hand(measure):
    model, batch = _model(), _batch()
    baseline, effects = link_effects(model, batch, measure=measure)
    links = circuit_links(model.config)
    own = run_with_circuit(model, batch)
    assert (baseline.answer == own.argmax(-1).numpy()).all()
    for k in (0, 7, len(links) - 1):  # a processor pair, another, a processor-read-out pair
        i, j = links[k]
        cut = run_with_circuit(model, batch, edit=CircuitEdit(cut=((int(i), int(j)),)))
        if measure == "p_answer":
            reference = _p_answer(own, baseline.answer) - _p_answer(cut, baseline.answer)
        else:
            reference = _margin(own, baseline.answer) - _margin(cut, baseline.answer)
        np.testing.assert_allclose(effects[:, k], reference, atol=1e-5)
    assert np.abs(effects).max() > 1e-3  # the links matter in this model: the test can fail


def test_exact_effects_on_given_circuits_use_those_circuits():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    other = signatures.flip(0)  # each example runs another's signatures
    _, effects = link_effects(model, batch, signatures=other, codes=codes)
    _, own_effects = link_effects(model, batch)
    assert not np.allclose(effects, own_effects)
    i, j = circuit_links(model.config)[3]
    plain = run_with_circuit(model, batch, signatures=other, codes=codes)
    answer = plain.argmax(-1).numpy()
    cut = run_with_circuit(
        model, batch, signatures=other, codes=codes, edit=CircuitEdit(cut=((int(i), int(j)),))
    )
    np.testing.assert_allclose(
        effects[:, 3], _p_answer(plain, answer) - _p_answer(cut, answer), atol=1e-5
    )


def test_module_effects_are_the_modules_knocked_out_by_hand():
    model, batch = _model(), _batch()
    baseline, effects = module_effects(model, batch)
    assert effects.shape == (len(batch), U + R)
    own = run_with_circuit(model, batch)
    for m in (0, U - 1, U, U + R - 1):
        out = run_with_circuit(model, batch, edit=LinkEdit(knocked_out=(m,)))
        reference = _p_answer(own, baseline.answer) - _p_answer(out, baseline.answer)
        np.testing.assert_allclose(effects[:, m], reference, atol=1e-5)


def test_the_estimate_is_the_kernel_derivative_of_the_measure():
    """d(measure)/d(log K) on one link, by central differences of a log-gate on both its
    directions, equals the estimate; and across links the estimate ranks like the exact cut."""
    model, batch = _model(), _batch()
    baseline, estimates = link_effect_estimates(model, batch)
    links = circuit_links(model.config)
    signatures, codes = generated_circuits(model, batch)
    answer = torch.from_numpy(baseline.answer)
    rows = torch.arange(len(batch))

    def p_with_gate(k: int, h: float) -> torch.Tensor:
        gate = h * link_masks(U + R, links[k : k + 1]).float()
        with torch.no_grad():
            logits = model.execute(
                batch.inputs, signatures, codes, input_mask=batch.input_mask, log_gate=gate
            )
        return logits.softmax(-1)[rows, answer]

    for k in (1, 5, len(links) - 2):
        h = 1e-3
        derivative = (p_with_gate(k, h) - p_with_gate(k, -h)) / (2 * h)
        np.testing.assert_allclose(estimates[:, k], derivative.numpy(), atol=2e-4)
    _, exact = link_effects(model, batch)
    top = np.abs(exact).argmax(axis=1)
    agree = np.sign(estimates[np.arange(len(batch)), top]) == np.sign(exact[rows, top])
    assert agree.mean() >= 0.7


def test_a_minimal_circuit_keeps_the_answer_and_one_link_fewer_does_not():
    model, batch = _model(), _batch()
    _, effects = link_effects(model, batch)
    found = minimal_circuits(model, batch, effects)
    links = circuit_links(model.config)
    assert found.size.shape == (len(batch),) and found.keeps.all()
    own = run_with_circuit(model, batch).argmax(-1)
    for e in range(len(batch)):
        members = found.members[e]
        assert len(members) == found.size[e]
        rest = np.setdiff1d(np.arange(len(links)), members)
        edit = CircuitEdit(cut=tuple((int(i), int(j)) for i, j in links[rest]))
        kept = run_with_circuit(model, batch.rows(slice(e, e + 1)), edit=edit).argmax(-1)
        assert kept.item() == own[e].item()
        if found.size[e] > 0:  # one link fewer (the least attributed kept) lost it when run
            fewer = np.setdiff1d(np.arange(len(links)), members[:-1])
            edit = CircuitEdit(cut=tuple((int(i), int(j)) for i, j in links[fewer]))
            lost = run_with_circuit(model, batch.rows(slice(e, e + 1)), edit=edit).argmax(-1)
            assert lost.item() != own[e].item()


def test_category_links_average_the_effects_of_each_category():
    effects = np.array([[0.1, 0.5, 0.0], [0.3, 0.1, 0.0], [0.0, 0.0, 0.9]])
    links = np.array([[0, 1], [0, 2], [1, 2]])
    table = category_links(effects, [["a"], ["a", "b"], ["b"]], links, top=2)
    a = table[table.category == "a"]
    assert a[["i", "j"]].values.tolist() == [[0, 2], [0, 1]]
    np.testing.assert_allclose(a.mean_effect, [0.3, 0.2])
    b = table[table.category == "b"]
    assert b.iloc[0][["i", "j"]].tolist() == [1, 2] and b.iloc[0].examples == 2
    with pytest.raises(ValueError, match="2 category lists for 3 examples"):
        category_links(effects, [["a"], ["b"]], links)


def test_a_bad_measure_or_attribution_shape_is_refused():
    model, batch = _model(), _batch()
    with pytest.raises(ValueError, match="measure must be one of"):
        link_effects(model, batch, measure="accuracy")
    with pytest.raises(ValueError, match=r"attribution must be \(B, L\)"):
        minimal_circuits(model, batch, np.zeros((3, 4)))


def test_effects_of_chosen_links_only_are_the_same_numbers_and_nan_elsewhere():
    model, batch = _model(), _batch()
    _, every = link_effects(model, batch)
    signatures, _ = generated_circuits(model, batch)
    links = circuit_links(model.config)
    p = model.link_probabilities(signatures).numpy()
    which = present_links(p, links, threshold=0.3)
    assert 0 < which.sum() < which.size  # some links present, some not: the test can fail
    _, chosen = link_effects(model, batch, which=which)
    np.testing.assert_allclose(chosen[which], every[which], atol=1e-6)
    assert np.isnan(chosen[~which]).all()
    with pytest.raises(ValueError, match=r"which must be bool \(B, L\)"):
        link_effects(model, batch, which=which[:2])


def test_links_that_are_not_candidates_are_left_alone_or_with_cut_others_always_cut():
    model, batch = _model(), _batch()
    _, effects = link_effects(model, batch)
    links = circuit_links(model.config)
    own = run_with_circuit(model, batch).argmax(-1)
    no_candidate = np.full_like(effects, np.nan)
    left = minimal_circuits(model, batch, no_candidate)
    assert left.keeps.all() and (left.size == 0).all()  # nothing cut: the model itself
    every = CircuitEdit(cut=tuple((int(i), int(j)) for i, j in links))
    isolated = (run_with_circuit(model, batch, edit=every).argmax(-1) == own).numpy()
    assert 0 < isolated.sum() < len(batch)  # some answers survive every cut, some do not
    cut = minimal_circuits(model, batch, no_candidate, cut_others=True)
    assert (cut.keeps == isolated).all() and (cut.size == 0).all()
    # one candidate per example, its most attributed link
    best = np.nanargmax(effects, axis=1)
    one = np.full_like(effects, np.nan)
    one[np.arange(len(batch)), best] = 1.0
    alone = minimal_circuits(model, batch, one)
    only = minimal_circuits(model, batch, one, cut_others=True)
    for e in range(len(batch)):
        row = batch.rows(slice(e, e + 1))
        pair = (int(links[best[e], 0]), int(links[best[e], 1]))
        without = run_with_circuit(model, row, edit=CircuitEdit(cut=(pair,))).argmax(-1)
        assert alone.keeps[e] and alone.size[e] == int(without.item() != own[e].item())
        rest = tuple((int(i), int(j)) for i, j in links if (int(i), int(j)) != pair)
        kept_alone = run_with_circuit(model, row, edit=CircuitEdit(cut=rest)).argmax(-1)
        assert only.keeps[e] == (isolated[e] or kept_alone.item() == own[e].item())
        assert only.size[e] == (0 if isolated[e] else 1)


def test_present_links_read_p_above_the_threshold_on_each_link():
    p = np.array([[[1.0, 0.6, 0.2], [0.6, 1.0, 0.9], [0.2, 0.9, 1.0]]])
    links = circuit_links_of(2, 1)
    assert links.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert present_links(p, links).tolist() == [[True, False, True]]


def test_recording_the_link_attention_changes_nothing_and_holds_each_call():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    record: dict[str, list] = {}
    with torch.no_grad():
        plain = model.execute(batch.inputs, signatures, codes, input_mask=batch.input_mask)
        recorded = model.execute(
            batch.inputs, signatures, codes, input_mask=batch.input_mask, link_record=record
        )
    torch.testing.assert_close(recorded, plain)
    heads, n = model.config.heads, len(batch)
    assert [tuple(w.shape) for _, w in record["among"]] == [(n, heads, U, U)] * model.config.depth
    assert [tuple(w.shape) for _, w in record["into_readouts"]] == [(n, heads, R, U)]
    assert all(float(gate.abs().sum()) == 0 for gate, _ in record["among"])
    torch.testing.assert_close(record["among"][0][1].sum(-1), torch.ones(n, heads, U))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_softmax_estimate_is_closer_to_the_exact_cuts(seed):
    """Taking each attention row's renormalisation exactly brings the first-order estimate
    nearer the exact effect of each cut (mean absolute error over every link and example)."""
    model, batch = _model(), _batch(seed=seed)
    _, exact = link_effects(model, batch)
    _, plain = link_effect_estimates(model, batch)
    baseline, softmax = link_effect_estimates(model, batch, softmax=True)
    assert softmax.shape == plain.shape == exact.shape
    np.testing.assert_array_equal(baseline.answer, link_effects(model, batch)[0].answer)
    assert np.abs(softmax - exact).mean() < 0.9 * np.abs(plain - exact).mean()
