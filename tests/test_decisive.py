"""The decisive circuit pinned to cuts made by hand: its measure is the circuit kept alone, it
reaches the share asked for and one element fewer along the ranking does not."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_interventions import _batch, _model

from circuitlab.attribution import circuit_links, link_effects
from circuitlab.decisive import decisive_circuit
from circuitlab.errors import InputError
from circuitlab.interventions import generated_circuits
from circuitlab.read_attribution import read_effects


def _one(seed: int = 0):
    batch = _batch(b=1, seed=seed)
    batch.input_mask = torch.ones(1, batch.inputs.shape[1], dtype=torch.bool)
    batch.input_mask[0, -2:] = False  # two padding tokens: no reads of them
    return batch


def _kept_alone(model, batch, links, kept_links, kept_reads, answer) -> float:
    """p(answer) with only these links and reads, every other one cut, by hand."""
    u_all = model.config.n_modules
    cut_links = torch.zeros(1, u_all, u_all, dtype=torch.bool)
    for i, j in links[~kept_links]:
        cut_links[0, i, j] = cut_links[0, j, i] = True
    cut_reads = torch.from_numpy(~kept_reads)[None]
    signatures, codes = generated_circuits(model, batch)
    with torch.no_grad():
        logits = model.execute(
            batch.inputs, signatures, codes, input_mask=batch.input_mask,
            cut=cut_links, read_cut=cut_reads,
        )  # fmt: skip
    return float(logits.softmax(-1)[0, answer])


def _ranked(circuit) -> np.ndarray:
    """The circuit's elements (links, then existing reads) best first, as decisive_circuit
    ranks them."""
    scores = np.concatenate([circuit.link_scores, circuit.read_scores[circuit.reads]])
    return np.argsort(-scores, kind="stable")


def _top(circuit, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The kept links (L,) and reads (processors, tokens) of the top ``k`` elements."""
    chosen = np.zeros(len(circuit.link_scores) + circuit.reads.sum(), dtype=bool)
    chosen[_ranked(circuit)[:k]] = True
    n_links = len(circuit.link_scores)
    reads = np.zeros_like(circuit.reads)
    reads[circuit.reads] = chosen[n_links:]
    return chosen[:n_links], reads


@pytest.mark.parametrize("share", [0.5, 0.8, 1.0])
def test_the_circuit_alone_keeps_the_share_and_one_element_fewer_does_not(share):
    model, batch = _model(), _one()
    model.eval()
    circuit = decisive_circuit(model, batch, share=share)
    links = circuit_links(model.config)
    np.testing.assert_array_equal(circuit.links, links)
    assert not circuit.answers_without_circuit
    assert circuit.empty < 0.5  # with every element cut, the answer falls
    kept = _kept_alone(model, batch, links, circuit.kept_links, circuit.kept_reads, circuit.answer)
    assert circuit.kept == pytest.approx(kept, abs=1e-5)
    assert circuit.f >= share - 1e-9
    k = int(circuit.kept_links.sum() + circuit.kept_reads.sum())
    assert 1 <= k
    top_links, top_reads = _top(circuit, k)
    np.testing.assert_array_equal(circuit.kept_links, top_links)
    np.testing.assert_array_equal(circuit.kept_reads, top_reads)
    fewer = _kept_alone(model, batch, links, *_top(circuit, k - 1), circuit.answer)
    assert (fewer - circuit.empty) / (circuit.full - circuit.empty) < share
    assert not (circuit.kept_reads & ~circuit.reads).any()  # padding is never read
    assert circuit.hidden_links == len(links) - circuit.kept_links.sum()
    assert circuit.hidden_reads == circuit.reads.sum() - circuit.kept_reads.sum()
    touched = set(links[circuit.kept_links].ravel()) | set(
        np.flatnonzero(circuit.kept_reads.any(1))
    )
    assert circuit.modules().tolist() == sorted(touched)


def test_exact_effects_rank_when_given():
    model, batch = _model(), _one(seed=3)
    model.eval()
    _, link_scores = link_effects(model, batch)
    _, read_scores = read_effects(model, batch)
    circuit = decisive_circuit(model, batch, link_scores=link_scores, read_scores=read_scores)
    np.testing.assert_allclose(circuit.link_scores, link_scores[0])
    np.testing.assert_allclose(circuit.read_scores, read_scores[0])  # NaN where no read
    assert circuit.f >= 0.8 - 1e-9


def test_links_scored_nan_come_last_and_padding_is_never_kept():
    """Exact effects of some links only (NaN for the others, as ``which`` gives them): the
    scored links rank first, and a circuit that reaches the NaN ones keeps no padding read."""
    model, batch = _model(), _one(seed=3)
    model.eval()
    n_links = len(circuit_links(model.config))
    which = np.zeros((1, n_links), dtype=bool)
    which[0, ::7] = True
    _, link_scores = link_effects(model, batch, which=which)
    _, read_scores = read_effects(model, batch)
    circuit = decisive_circuit(model, batch, link_scores=link_scores, read_scores=read_scores)
    ranked = _ranked(circuit)[: int(circuit.kept_links.sum() + circuit.kept_reads.sum())]
    scored = np.concatenate(
        [np.isfinite(link_scores[0]), np.isfinite(read_scores[0])[circuit.reads]]
    )
    assert scored[ranked].all() or scored[ranked].argmin() == scored[ranked].sum()  # NaN last
    assert not (circuit.kept_reads & ~circuit.reads).any()
    full = decisive_circuit(
        model, batch, link_scores=link_scores, read_scores=read_scores, share=1.0
    )
    assert not (full.kept_reads & ~full.reads).any()


def test_an_answer_that_stands_with_everything_cut_has_an_empty_circuit():
    model, batch = _model(), _one()
    model.eval()
    for seed in range(40):  # an example whose answer is no weaker with every element cut
        batch = _one(seed)
        circuit = decisive_circuit(model, batch)
        if circuit.answers_without_circuit:
            break
    else:
        pytest.fail("no example of the test model answers without its circuit")
    assert circuit.answers_without_circuit
    assert not circuit.kept_links.any() and not circuit.kept_reads.any()
    links = circuit_links(model.config)
    nothing = np.zeros(len(links), dtype=bool), np.zeros_like(circuit.reads)
    everything_cut = _kept_alone(model, batch, links, *nothing, circuit.answer)
    assert everything_cut == pytest.approx(circuit.empty, abs=1e-5)
    assert everything_cut > 0.5  # two answers: the answer keeps first place
    assert circuit.f == 1.0 and circuit.modules().size == 0


@pytest.mark.parametrize(
    "options, argument",
    [
        (dict(share=0.0), "share"),
        (dict(share=1.5), "share"),
        (dict(link_scores=np.zeros((1, 3))), "link_scores"),
    ],
)
def test_bad_input_names_its_argument(options, argument):
    model = _model()
    with pytest.raises(InputError, match=argument):
        decisive_circuit(model, _one(), **options)
    with pytest.raises(InputError, match="batch"):
        decisive_circuit(model, _batch(b=2))
