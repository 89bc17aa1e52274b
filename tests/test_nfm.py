"""Neural Function Modules: top-k sparsification and the null slot against hand computations,
written maps brought to the reader's size, gamma = 0 makes the model its baseline."""

import math

import pytest
import torch

from circuitlab.nfm import NFMConfig, NFMNetwork
from circuitlab.nfm.attention import SPARSE_EPS, LayerReader, sparse_top_k, to_reader_size


def test_top_k_subtracts_the_next_weight_and_renormalises():
    weights = torch.tensor([[0.4, 0.1, 0.3, 0.15, 0.05]])
    # the 4th largest is 0.1: the top 3 keep their excess over it, the rest are cut
    kept = torch.tensor([0.3, 0.0, 0.2, 0.05, 0.0]) - torch.tensor([1, 0, 1, 1, 0]) * SPARSE_EPS
    expected = kept / kept.sum()
    torch.testing.assert_close(sparse_top_k(weights, 3), expected.unsqueeze(0))
    assert (sparse_top_k(weights, 1)[0] > 0).tolist() == [True, False, False, False, False]
    torch.testing.assert_close(sparse_top_k(weights, 5), weights)  # nothing to cut
    torch.testing.assert_close(sparse_top_k(weights, None), weights)
    tied = torch.tensor([[0.2, 0.2, 0.2, 0.2, 0.2]])  # nothing stands out: left dense
    torch.testing.assert_close(sparse_top_k(tied, 3), tied)


def test_space_to_depth_makes_each_window_position_a_key():
    written = torch.arange(2 * 1 * 4 * 4, dtype=torch.float32).view(2, 1, 4, 4)
    keys = to_reader_size(written, (2, 2))  # (B, 4 window positions, D, 2, 2)
    assert keys.shape == (2, 4, 1, 2, 2)
    for i in range(2):
        for j in range(2):
            window = written[:, 0, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2].reshape(2, 4)
            torch.testing.assert_close(keys[:, :, 0, i, j], window)
    up = to_reader_size(written, (8, 8))  # a smaller map: nearest upsampling, one key
    assert up.shape == (2, 1, 1, 8, 8) and up[0, 0, 0, 7, 7] == written[0, 0, 3, 3]


def _reader(top_k=3) -> LayerReader:
    torch.manual_seed(0)
    return LayerReader(channels=2, heads=1, key_dim=2, value_dim=2, top_k=top_k).eval()


def test_read_against_a_hand_computation_with_the_null_slot():
    reader = _reader(top_k=None)
    with torch.no_grad():
        reader.query.weight.zero_()
        reader.query.bias.copy_(torch.tensor([1.0, 0.0]))  # every query is (1, 0)
    x = torch.zeros(1, 2, 1, 1)
    keys = [torch.tensor([2.0, 0.0]), torch.tensor([-1.0, 5.0])]  # logits 2/sqrt2, -1/sqrt2
    values = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])]
    written = [(k.view(1, 2, 1, 1), v.view(1, 2, 1, 1)) for k, v in zip(keys, values, strict=True)]
    _, attention = reader.read(x, written)
    logits = torch.tensor([2 / math.sqrt(2), -1 / math.sqrt(2), 0.0])  # null: zero key
    torch.testing.assert_close(attention[0], logits.softmax(0))
    # a layer whose keys all point away from the query puts its weight on the null slot
    away = [(torch.tensor([-9.0, 0.0]).view(1, 2, 1, 1), values[0].view(1, 2, 1, 1))]
    assert reader.read(x, away)[1][0, -1] > 0.99


def test_read_sums_a_window_of_keys_per_layer():
    reader = _reader(top_k=3)
    x = torch.randn(2, 2, 2, 2)
    big = (torch.randn(2, 2, 4, 4), torch.randn(2, 2, 4, 4))  # 4 keys per reader position
    small = (torch.randn(2, 2, 1, 1), torch.randn(2, 2, 1, 1))
    out, attention = reader.read(x, [big, small])
    assert out.shape == x.shape and attention.shape == (2, 3)
    torch.testing.assert_close(attention.sum(-1), torch.ones(2), atol=1e-4, rtol=0)
    torch.testing.assert_close(out, x)  # gamma starts at 0


def test_gamma_zero_makes_the_model_its_baseline():
    torch.manual_seed(1)
    config = NFMConfig(image_size=16, channels=[8, 8], hidden=32)
    model = NFMNetwork(config).eval()
    baseline = NFMNetwork(NFMConfig(image_size=16, channels=[8, 8], hidden=32, nfm=False))
    shared = {k: v for k, v in model.state_dict().items() if k in baseline.state_dict()}
    assert set(shared) == set(baseline.state_dict())
    baseline.load_state_dict(shared)
    baseline.eval()
    images, questions = torch.rand(5, 3, 16, 16), torch.rand(5, 12)
    logits, attention, _ = model(images, questions, return_circuit=True)
    torch.testing.assert_close(logits, baseline(images, questions))
    assert attention.shape == (5, 2, 5)  # readers x (2 passes x 2 layers + null)
    assert (attention[:, 0, 3] == 0).all()  # layer 1 of pass 2 reads before layer 2 writes
    torch.testing.assert_close(attention.sum(-1), torch.ones(5, 2), atol=1e-4, rtol=0)
    with torch.no_grad():
        model.readers[0].gamma.fill_(1.0)
    assert not torch.allclose(model(images, questions), logits)


def test_config_checks():
    with pytest.raises(ValueError, match="divisible"):
        NFMConfig(image_size=30, channels=[8, 8])
    with pytest.raises(ValueError, match="top_k"):
        NFMConfig(top_k=0)


def _explicit_read(reader: LayerReader, x, written):
    """The read written out: every written layer's keys brought to x's size by
    to_reader_size, concatenated with the null slot, one softmax per query and head."""
    b, _, h, w = x.shape
    heads, dk, dv = reader.heads, reader.key_dim, reader.value_dim
    q = reader.query(x).view(b, heads, dk, h * w)
    keys = [to_reader_size(k, (h, w)).view(b, -1, heads, dk, h * w) for k, _ in written]
    values = [to_reader_size(v, (h, w)).view(b, -1, heads, dv, h * w) for _, v in written]
    key = torch.cat([*keys, torch.zeros_like(keys[0][:, :1])], 1)  # (B, n, heads, dk, hw)
    value = torch.cat([*values, torch.zeros_like(values[0][:, :1])], 1)
    logits = torch.einsum("bhdp,bnhdp->bhpn", q, key) / math.sqrt(dk)
    weights = sparse_top_k(logits.softmax(-1), reader.top_k)
    read = torch.einsum("bhpn,bnhdp->bhdp", weights, value).reshape(b, heads * dv, h, w)
    return x + reader.gamma * reader.out(read)


@pytest.mark.parametrize("size", [8, 4, 2])
def test_read_equals_the_explicit_attention(size):
    reader = _reader(top_k=3)
    with torch.no_grad():
        reader.gamma.fill_(0.7)
    x = torch.randn(3, 2, size, size)
    written = [(torch.randn(3, 2, s, s), torch.randn(3, 2, s, s)) for s in (8, 4, 2)]
    out, _ = reader.read(x, written)
    torch.testing.assert_close(out, _explicit_read(reader, x, written), atol=1e-5, rtol=1e-5)


def _ablated(**options) -> NFMNetwork:
    torch.manual_seed(2)
    model = NFMNetwork(NFMConfig(image_size=16, channels=[8, 8, 8], hidden=32, **options)).eval()
    with torch.no_grad():  # reads that change the answer, so that a wrong mask would show
        for reader in model.readers:
            if isinstance(reader, LayerReader):
                reader.gamma.fill_(1.0)
    return model


def _circuit(model: NFMNetwork) -> torch.Tensor:
    torch.manual_seed(3)
    images, questions = torch.rand(4, 3, 16, 16), torch.rand(4, 12)
    return model(images, questions, return_circuit=True)[1]


def test_without_top_down_reads_no_layer_reads_a_deeper_first_pass_layer():
    attention = _circuit(_ablated(top_down=False))  # (B, 3 readers, 7 slots)
    for reader in range(3):
        deeper_first_pass = attention[:, reader, reader + 1 : 3]
        assert (deeper_first_pass == 0).all()
        assert (attention[:, reader, : reader + 1] > 0).any()  # the shallower ones are read
    torch.testing.assert_close(attention.sum(-1), torch.ones(4, 3), atol=1e-4, rtol=0)
    # the paper's model does read deeper first-pass layers
    assert (_circuit(_ablated())[:, 0, 1:3] > 0).any()


def test_without_the_null_slot_every_read_sums_to_one_over_written_layers():
    attention = _circuit(_ablated(null_slot=False, top_k=None))
    assert (attention[..., -1] == 0).all()
    torch.testing.assert_close(attention[..., :-1].sum(-1), torch.ones(4, 3), atol=1e-5, rtol=0)


def test_only_the_attending_layers_read():
    model = _ablated(attending_layers=[2])
    assert [isinstance(r, LayerReader) for r in model.readers] == [False, True, False]
    attention = _circuit(model)
    assert (attention[:, [0, 2]] == 0).all()
    torch.testing.assert_close(attention[:, 1].sum(-1), torch.ones(4), atol=1e-4, rtol=0)
    # a layer that does not attend is its convolution alone: with layer 2's gamma at 0 the
    # network is the baseline with the same convolutions and head
    with torch.no_grad():
        model.readers[1].gamma.zero_()
    baseline = NFMNetwork(NFMConfig(image_size=16, channels=[8, 8, 8], hidden=32, nfm=False))
    baseline.load_state_dict(
        {k: v for k, v in model.state_dict().items() if k in baseline.state_dict()}
    )
    images, questions = torch.rand(2, 3, 16, 16), torch.rand(2, 12)
    torch.testing.assert_close(model(images, questions), baseline.eval()(images, questions))
    with pytest.raises(ValueError, match="attending_layers"):
        NFMConfig(channels=[8, 8], attending_layers=[3])
