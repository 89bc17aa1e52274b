"""Interventions pinned to reference computations: each edit of a circuit is checked against
what it must mean for the executor."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
import torch

from circuitlab.config import NACConfig
from circuitlab.interventions import (
    LinkEdit,
    causality_report,
    circuit_tensors,
    eval_mode,
    generated_circuits,
    graph_shape,
    read_in_weights,
    run_with_circuit,
    swap_partners,
)
from circuitlab.model import NAC
from circuitlab.task import Batch

U, R = 6, 2


def _model(**overrides) -> NAC:
    """A small conditional NAC; ``overrides`` are NACConfig options (flat names allowed)."""
    config = NACConfig.from_dict(dict(
        input_dim=5,
        n_processors=U,
        n_readouts=R,
        dim=16,
        depth=2,
        heads=2,
        head_dim=8,
        code_dim=8,
        sig_dim=4,
        conditional=True,
        generator=dict(cond_dim=7, dim=16, heads=2),
        **overrides,
    ))  # fmt: skip
    model = NAC(config).eval()
    with torch.no_grad():
        # the generator's signatures are near-equal at init; spread them so the kernel matters
        model.generator.base.signatures.mul_(4.0)
        # biases start at 0, which would hide a layer that emits its bias where it must be silent
        for name, parameter in model.named_parameters():
            if name.endswith("bias"):
                parameter.normal_(0.0, 0.1)
    return model


def _batch(b: int = 10, seed: int = 0) -> Batch:
    g = torch.Generator().manual_seed(seed)
    mask = torch.ones(b, 4, dtype=torch.bool)
    mask[::3, -1] = False
    return Batch(
        torch.randn(b, 9, 5, generator=g),
        torch.randint(0, 2, (b,), generator=g),
        torch.randn(b, 4, 7, generator=g),
        mask,
    )


def _logits(model: NAC, batch: Batch) -> torch.Tensor:
    with torch.no_grad():
        return model(
            batch.inputs, batch.conditioning, conditioning_mask=batch.conditioning_mask
        ).float()


def test_the_generated_circuit_given_back_changes_nothing():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    reference = _logits(model, batch)
    assert torch.allclose(run_with_circuit(model, batch), reference, atol=1e-6)
    given = run_with_circuit(model, batch, signatures=signatures, codes=codes)
    assert torch.allclose(given, reference, atol=1e-6)
    # swapping every circuit with itself (the identity permutation) changes nothing either
    same = torch.arange(len(batch))
    swapped = run_with_circuit(model, batch, signatures=signatures[same], codes=codes[same])
    assert torch.allclose(swapped, reference, atol=1e-6)


def test_another_inputs_circuit_is_that_inputs_circuit():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    flipped = torch.arange(len(batch)).flip(0)
    # example i run with example j's circuit equals the model run on i's inputs and j's sentence
    reference = _batch()
    reference.conditioning = batch.conditioning[flipped]
    reference.conditioning_mask = batch.conditioning_mask[flipped]
    swapped = run_with_circuit(model, batch, signatures=signatures[flipped], codes=codes[flipped])
    assert torch.allclose(swapped, _logits(model, reference), atol=1e-5)
    assert not torch.allclose(swapped, _logits(model, batch), atol=1e-3)


def test_one_circuit_for_all_is_broadcast():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    mean_sigs, mean_codes = signatures.mean(0, keepdim=True), codes.mean(0, keepdim=True)
    broadcast = run_with_circuit(model, batch, signatures=mean_sigs, codes=mean_codes)
    expanded = run_with_circuit(
        model,
        batch,
        signatures=mean_sigs.expand(len(batch), -1, -1),
        codes=mean_codes.expand(len(batch), -1, -1),
    )
    assert torch.allclose(broadcast, expanded, atol=1e-6)


def test_stored_circuits_run_as_generated():
    model, batch = _model(), _batch()
    circuits = model.circuits(batch.conditioning, batch.conditioning_mask)
    signatures, codes = circuit_tensors(circuits)
    given = run_with_circuit(model, batch, signatures=signatures, codes=codes)
    assert torch.allclose(given, _logits(model, batch), atol=1e-5)


def _attention_updates(model: NAC, batch: Batch, edit: LinkEdit) -> list[torch.Tensor]:
    """The output of every propagation round's SKMDPA, then the read-out's."""
    captured = []
    layers = [p.attn for p in model.propagators] + [model.read_out]
    hooks = [m.register_forward_hook(lambda _m, _i, out: captured.append(out)) for m in layers]
    try:
        run_with_circuit(model, batch, edit=edit)
    finally:
        for h in hooks:
            h.remove()
    return captured


def test_cutting_every_link_into_a_module_means_it_receives_nothing():
    model, batch = _model(), _batch()
    for receiver in (2, U):  # a processor, then a read-out
        cut = torch.zeros(U + R, U + R, dtype=torch.bool)
        cut[receiver, :U] = True
        updates = _attention_updates(model, batch, LinkEdit(cut=cut))
        layers = updates[:-1] if receiver < U else updates[-1:]
        row = receiver if receiver < U else receiver - U
        for update in layers:
            assert torch.equal(update[:, row], torch.zeros_like(update[:, row]))
            others = torch.cat([update[:, :row], update[:, row + 1 :]], dim=1)
            assert others.abs().amin(-1).gt(0).all()


def test_a_cut_link_gets_no_attention_and_the_rest_renormalise():
    model = _model()
    attn = model.propagators[0].attn
    x = torch.randn(3, U, 16)
    codes = torch.randn(1, U, 8)
    sigs = torch.randn(1, U, 4)
    cut = torch.zeros(1, U, U, dtype=torch.bool)
    cut[0, 1, 4] = True
    with torch.no_grad():
        edited = attn(x, codes, sigs, x, codes, sigs, cut=cut)
        # reference: the same attention under a kernel whose log K for that link is -inf
        log_k = attn.kernel(sigs, sigs, 3)
        log_k = log_k.masked_fill(cut, float("-inf"))
        plain = copy.deepcopy(attn)
        plain.kernel = _FixedKernel(log_k)
        reference = plain(x, codes, sigs, x, codes, sigs)
    assert torch.allclose(edited, reference, atol=1e-6)


class _FixedKernel(torch.nn.Module):
    def __init__(self, log_k: torch.Tensor) -> None:
        super().__init__()
        self.log_k = log_k

    def forward(self, receivers, senders, batch_size):
        return self.log_k


def test_all_ones_kernel_equals_the_dense_kernel():
    model, batch = _model(), _batch()
    dense = copy.deepcopy(model)
    dense.kernel.dense = True
    edited = run_with_circuit(model, batch, edit=LinkEdit.all_ones(U + R))
    assert torch.allclose(edited, _logits(dense, batch), atol=1e-5)
    assert not torch.allclose(edited, _logits(model, batch), atol=1e-4)


def test_forcing_a_link_that_is_already_certain_changes_nothing():
    model, batch = _model(), _batch()
    # P_ii = 1 for every signature: forcing the self-links is no change
    diagonal = [(i, i) for i in range(U)]
    edited = run_with_circuit(model, batch, edit=LinkEdit.force_links(U + R, diagonal))
    assert torch.allclose(edited, _logits(model, batch), atol=1e-6)


def test_a_cut_wins_over_a_force():
    model, batch = _model(), _batch()
    links = [(0, 3), (U, 1)]
    both = LinkEdit(
        cut=LinkEdit.cut_links(U + R, links).cut, force=torch.ones(U + R, U + R, dtype=torch.bool)
    )
    forced_except = torch.ones(U + R, U + R, dtype=torch.bool)
    for link in links:
        forced_except[link] = False
    reference = LinkEdit(cut=LinkEdit.cut_links(U + R, links).cut, force=forced_except)
    assert torch.allclose(
        run_with_circuit(model, batch, edit=both),
        run_with_circuit(model, batch, edit=reference),
        atol=1e-6,
    )


def test_a_knocked_out_processor_no_longer_matters():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    knocked = LinkEdit(knocked_out=(3,))
    column = torch.zeros(U + R, U + R, dtype=torch.bool)
    column[:, 3] = True
    assert torch.allclose(
        run_with_circuit(model, batch, edit=knocked),
        run_with_circuit(model, batch, edit=LinkEdit(cut=column)),
        atol=1e-6,
    )
    # nobody reads module 3: the output no longer depends on its code or signature
    other = codes.clone()
    other[:, 3] = torch.randn_like(other[:, 3]) * 5
    other_sigs = signatures.clone()
    other_sigs[:, 3] = torch.randn_like(other_sigs[:, 3])
    base = run_with_circuit(model, batch, signatures=signatures, codes=codes, edit=knocked)
    moved = run_with_circuit(model, batch, signatures=other_sigs, codes=other, edit=knocked)
    assert torch.allclose(base, moved, atol=1e-5)
    # without the knock-out the same change moves the output
    free = run_with_circuit(model, batch, signatures=other_sigs, codes=other)
    assert not torch.allclose(free, run_with_circuit(model, batch), atol=1e-4)


def test_a_knocked_out_readout_leaves_the_vote():
    model, batch = _model(), _batch()
    signatures, codes = generated_circuits(model, batch)
    knocked = LinkEdit(knocked_out=(U,))
    # with two read-outs, knocking out the first leaves the second's logits alone: they no longer
    # depend on the first read-out's code
    other = codes.clone()
    other[:, U] = torch.randn_like(other[:, U]) * 5
    base = run_with_circuit(model, batch, signatures=signatures, codes=codes, edit=knocked)
    moved = run_with_circuit(model, batch, signatures=signatures, codes=other, edit=knocked)
    assert torch.allclose(base, moved, atol=1e-5)
    with pytest.raises(ValueError, match="every read-out"):
        run_with_circuit(model, batch, edit=LinkEdit(knocked_out=(U, U + 1)))


def test_bad_interventions_are_refused_with_the_shape():
    model, batch = _model(), _batch()
    with pytest.raises(ValueError, match=r"signatures: must be \(B or 1, 8, "):
        run_with_circuit(model, batch, signatures=torch.zeros(len(batch), 5, 4))
    with pytest.raises(ValueError, match=r"LinkEdit.cut must be \(8, 8\)"):
        run_with_circuit(model, batch, edit=LinkEdit(cut=torch.zeros(5, 5, dtype=torch.bool)))
    with pytest.raises(ValueError, match="not in"):
        run_with_circuit(model, batch, edit=LinkEdit(knocked_out=(99,)))
    with pytest.raises(ValueError, match="not among"):
        LinkEdit.cut_links(U + R, [(0, 8)])


def test_swap_partners_always_pick_another_sentence():
    groups = ["a"] * 5 + ["b"] * 3 + ["c"] * 2 + ["d"]
    for seed in range(20):
        partner = swap_partners(groups, seed)
        assert sorted(partner) == list(range(len(groups)))
        assert all(groups[p] != groups[i] for i, p in enumerate(partner))
    assert not np.array_equal(swap_partners(groups, 0), swap_partners(groups, 1))
    with pytest.raises(ValueError, match="more than half"):
        swap_partners(["a", "a", "a", "b"])


def test_graph_shape_on_known_stacks():
    u = 4
    full = np.ones((5, u, u))
    same = graph_shape(full)
    assert same["density"] == 1.0 and same["density_std"] == 0.0
    assert same["participation_ratio"] == 0.0  # no variation at all
    rng = np.random.default_rng(0)
    # graphs varying along k orthogonal directions with equal variance: participation ratio ~ k
    k, n = 3, 4000
    directions = np.linalg.qr(rng.normal(size=(u * (u - 1), k)))[0].T  # (k, u (u - 1))
    flat = 0.5 + 0.05 * rng.normal(size=(n, k)) @ directions
    p = np.zeros((n, u, u))
    p[:, ~np.eye(u, dtype=bool)] = flat
    shape = graph_shape(p)
    assert shape["participation_ratio"] == pytest.approx(k, rel=0.05)
    assert shape["pc1_share"] == pytest.approx(1 / k, rel=0.1)
    half = np.zeros((2, u, u))
    half[0][~np.eye(u, dtype=bool)] = 0.9  # every link of the first graph, none of the second
    assert graph_shape(half)["density"] == 0.5
    assert graph_shape(half)["density_std"] == 0.5


def test_graph_shape_tells_whether_the_first_component_is_density():
    u, n = 5, 2000
    rng = np.random.default_rng(1)
    links = u * (u - 1)
    contrast = np.where(np.arange(links) % 2 == 0, 1.0, -1.0)  # half the links up, half down
    noise = 0.005 * rng.normal(size=(n, links))

    def stack(flat: np.ndarray) -> np.ndarray:
        p = np.zeros((n, u, u))
        p[:, ~np.eye(u, dtype=bool)] = flat
        return p

    # graphs that differ mainly in how full they are
    fuller = 0.3 + 0.1 * rng.normal(size=(n, 1)) * np.ones(links) + noise
    assert graph_shape(stack(fuller))["pc1_mean_p_corr"] > 0.99
    # graphs that differ mainly in which links they keep, their fullness a weaker, separate axis
    rewired = (
        0.3
        + 0.1 * rng.normal(size=(n, 1)) * contrast
        + 0.02 * rng.normal(size=(n, 1)) * np.ones(links)
        + noise
    )
    assert graph_shape(stack(rewired))["pc1_mean_p_corr"] < 0.1
    assert graph_shape(stack(np.full((n, links), 0.3)))["pc1_mean_p_corr"] == 0.0


def test_causality_report_of_a_model_that_reads_codes_only():
    # sentence codes with an all-ones kernel: signatures cannot matter, codes do
    model, batch = _model(graph="dense"), _batch(40)
    batch.labels = _logits(model, batch).argmax(-1)  # the model is right on every example
    sentences = [f"s{i}" for i in range(len(batch))]
    report = causality_report(model, batch, sentences)
    assert report["accuracy"] == 1.0
    assert report["signature_swap_drop"] == 0.0 and report["all_ones_drop"] == 0.0
    assert report["code_swap_drop"] > 0.1
    assert report["sentences"] == len(batch)


def test_wiring_only_codes_do_not_depend_on_the_sentence():
    model, batch = _model(sentence_codes=False), _batch()
    signatures, codes = generated_circuits(model, batch)
    assert torch.equal(codes, codes[:1].expand_as(codes))
    assert not torch.allclose(signatures, signatures[:1].expand_as(signatures))
    batch.labels = _logits(model, batch).argmax(-1)
    report = causality_report(model, batch, [f"s{i}" for i in range(len(batch))])
    assert report["code_swap_drop"] == 0.0


def test_minimal_pair_shifts_measure_how_far_p_moves():
    import pandas as pd

    from circuitlab.interventions import minimal_pair_shifts, sentence_link_probabilities

    model = _model()
    vectors = {w: torch.randn(7) for w in "a b c d e".split()}

    def encode(texts):
        tokens = torch.stack([torch.stack([vectors[w] for w in t.split()]) for t in texts])
        return tokens, torch.ones(tokens.shape[:2], dtype=torch.bool)

    pairs = pd.DataFrame(
        {"text": ["a b", "c d"], "wording": ["a b", "c e"], "logic": ["b a", "a a"]}
    )
    shifts = minimal_pair_shifts(model, encode, pairs)
    p = sentence_link_probabilities(model, encode, ["a b", "c d", "c e", "a a"])
    assert p.shape == (4, U, U)
    assert shifts["wording_shift"][0] == 0.0  # the same sentence
    assert shifts["wording_shift"][1] == pytest.approx(np.linalg.norm(p[2] - p[1]), rel=1e-5)
    assert shifts["logic_shift"][1] == pytest.approx(np.linalg.norm(p[3] - p[1]), rel=1e-5)
    assert shifts["logic_moves_more"].tolist() == [
        bool(shifts["logic_shift"][i] > shifts["wording_shift"][i]) for i in range(2)
    ]


def test_knn_accuracy_reads_separated_and_mixed_labels():
    from circuitlab.analysis.embedding import knn_accuracy

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    separated = rng.normal(size=(60, 3)) * 0.1 + np.eye(3)[y] * 5
    assert knn_accuracy(separated, y) == 1.0
    assert knn_accuracy(rng.normal(size=(60, 3)), y) < 0.6


def test_knockout_accuracies_knock_out_one_module_at_a_time():
    from circuitlab.interventions import accuracy, knockout_accuracies

    model, batch = _model(), _batch(30)
    batch.labels = _logits(model, batch).argmax(-1)
    scores = knockout_accuracies(model, batch)
    assert scores.shape == (U + R,)
    for m in (0, U + 1):
        edit = LinkEdit(knocked_out=(m,))
        assert scores[m] == accuracy(run_with_circuit(model, batch, edit=edit), batch.labels)
    assert (scores < 1.0).any()  # some module matters to a model right on every example


@pytest.mark.parametrize(
    ("overrides", "n_read_ins", "extra"),
    [({}, 1, 0), ({"null_token": True, "read_in_every_round": True}, 3, 1)],
)
def test_read_in_weights_say_what_each_processor_reads(overrides, n_read_ins, extra):
    model, batch = _model(**overrides), _batch()
    mask = torch.ones(len(batch), 9, dtype=torch.bool)
    mask[::2, -2:] = False
    batch = dataclasses.replace(batch, input_mask=mask)
    weights = read_in_weights(model, batch)
    assert weights.shape == (n_read_ins, len(batch), U, 9 + extra)
    assert torch.allclose(weights.sum(-1), torch.ones(n_read_ins, len(batch), U), atol=1e-5)
    assert (
        weights[..., :9].transpose(1, 2)[:, :, ~mask] == 0
    ).all()  # padding; the null token is never masked
    # reading is equivariant: the first read-in's weights follow the tokens when they move
    order = torch.tensor([4, 0, 8, 1, 3, 2, 6, 5, 7])
    moved = dataclasses.replace(batch, inputs=batch.inputs[:, order], input_mask=mask[:, order])
    again = read_in_weights(model, moved)
    assert torch.allclose(again[0, :, :, :9], weights[0, :, :, order], atol=1e-5)
    # the recording is the call's own: nothing is left on the model's modules
    assert not any(hasattr(m, "attention_log") for m in model.modules())
    assert all(not m._forward_hooks for m in model.modules())


def test_read_in_weights_follow_the_circuit_given():
    model, batch = _model(read_in_every_round=True), _batch()
    own_sigs, own_codes = generated_circuits(model, batch)
    given = read_in_weights(model, batch, signatures=own_sigs, codes=own_codes)
    assert torch.allclose(given, read_in_weights(model, batch), atol=1e-6)
    other = read_in_weights(
        model, batch, signatures=own_sigs.roll(1, 0), codes=own_codes.roll(1, 0)
    )
    assert not torch.allclose(other[0], given[0])


def test_a_circuit_edit_is_its_link_edit_in_both_directions():
    from circuitlab.edits import CircuitEdit

    model, batch = _model(), _batch()
    u = model.config.n_modules
    edit = CircuitEdit(cut=((0, 3),), knocked_out=(2,), forced=((1, 4),))
    masks = LinkEdit.of(edit, u)
    assert masks.cut[0, 3] and masks.cut[3, 0] and masks.cut.sum() == 2
    assert masks.force[1, 4] and masks.force[4, 1] and masks.force.sum() == 2
    assert masks.knocked_out == (2,)
    torch.testing.assert_close(
        run_with_circuit(model, batch, edit=edit), run_with_circuit(model, batch, edit=masks)
    )
    assert (
        not CircuitEdit() and edit and hash(edit) == hash(CircuitEdit(((0, 3),), (2,), ((1, 4),)))
    )


def test_eval_mode_switches_a_training_model_and_leaves_an_evaluating_one_alone():
    model = torch.nn.Sequential(torch.nn.Dropout(0.5), torch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="inside"):
        with eval_mode(model):
            assert not any(m.training for m in model.modules())
            raise RuntimeError("inside")
    assert all(m.training for m in model.modules())  # restored, even after an error
    model.eval()
    walks = []
    model.train = lambda mode=True: walks.append(mode)  # any switch would be recorded
    with eval_mode(model):
        assert not model.training
    assert walks == [] and not model[0].training
