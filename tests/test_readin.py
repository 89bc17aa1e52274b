import json
import math
import subprocess
import sys

import pytest
import torch

from circuitlab import NACConfig
from circuitlab.config_groups import ReadInConfig
from circuitlab.nn import ReadIn


def naive_read_in(layer: ReadIn, states, codes, inputs, mask=None):
    """Reference: materialise every module's keys and values, k_uj = ModFC(x_j; c_u)."""
    b, u, _ = states.shape
    x = layer.norm_inputs(inputs)
    n, h, dh = x.shape[1], layer.heads, layer.head_dim
    x = x[:, None].expand(b, u, n, -1)  # (B, U, N, d_in)
    c = codes[:, :, None]  # (B, U, 1, code)
    q = layer.to_q(layer.norm_modules(states), codes).view(b, u, h, dh)
    k = layer.to_k(x, c).view(b, u, n, h, dh)
    v = layer.to_v(x, c).view(b, u, n, h, dh)
    scores = torch.einsum("buhe,bunhe->buhn", q, k) / math.sqrt(dh)
    if mask is not None:
        scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
    if layer.offset is None:
        weights = scores.softmax(-1)
    else:  # each token on its own: sigmoid(score + the head's offset)
        weights = (scores + layer.offset.view(1, 1, h, 1)).sigmoid()
    out = torch.einsum("buhn,bunhe->buhe", weights, v).reshape(b, u, h * dh)
    return layer.to_out(out, codes)


def assert_equals_naive_on_padded_inputs(layer: ReadIn) -> None:
    """layer(...) against naive_read_in on a batch of 2 whose second input has 3 padded tokens."""
    states, codes, inputs = torch.randn(2, 5, 32), torch.randn(2, 5, 16), torch.randn(2, 7, 24)
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[1, 4:] = False
    torch.testing.assert_close(
        layer(states, codes, inputs, mask),
        naive_read_in(layer, states, codes, inputs, mask),
        rtol=1e-5,
        atol=1e-5,
    )


def test_factorised_read_in_equals_naive():
    layer = ReadIn(32, 24, 16, heads=4, head_dim=8)
    with torch.no_grad():
        for fc in (layer.to_q, layer.to_k, layer.to_v, layer.to_out):
            fc.alpha.fill_(0.8)  # strong conditioning, so a mistake in the factorisation shows
    assert_equals_naive_on_padded_inputs(layer)


@pytest.mark.parametrize("conditioned", [True, False])
def test_sigmoid_read_in_equals_naive(conditioned):
    layer = ReadIn(32, 24, 16, heads=4, head_dim=8, weights="sigmoid", conditioned=conditioned)
    with torch.no_grad():
        layer.offset.copy_(torch.tensor([-2.0, -1.0, 0.0, 1.0]))
        layer.to_v.linear.bias.normal_()  # the bias must enter once per unit of weight
        if conditioned:
            for fc in (layer.to_q, layer.to_k, layer.to_v, layer.to_out):
                fc.alpha.fill_(0.8)
    assert_equals_naive_on_padded_inputs(layer)


def test_sigmoid_weights_make_what_a_module_reads_grow_linearly_with_the_count():
    layer = ReadIn(32, 24, 16, heads=2, head_dim=8, weights="sigmoid")
    states, codes, token = torch.randn(1, 3, 32), torch.randn(1, 3, 16), torch.randn(1, 1, 24)
    record: list[torch.Tensor] = []
    pooled = []
    for k in (1, 2, 3):
        layer(states, codes, token.expand(1, k, -1), record=record)
        pooled.append(record[-1].sum(-1))  # total weight per module, (1, U)
    torch.testing.assert_close(pooled[1], 2 * pooled[0])
    torch.testing.assert_close(pooled[2], 3 * pooled[0])
    with pytest.raises(ValueError, match="read-in weights"):
        ReadIn(32, 24, 16, weights="relu")
    with pytest.raises(ValueError, match=r"ReadInConfig\.weights"):
        NACConfig(read_in=ReadInConfig(weights="relu"))


def test_unconditioned_read_in_equals_naive():
    layer = ReadIn(32, 24, 16, heads=2, head_dim=8, conditioned=False)
    states, codes, inputs = torch.randn(3, 4, 32), torch.randn(1, 4, 16), torch.randn(3, 9, 24)
    expected = naive_read_in(layer, states, codes.expand(3, -1, -1), inputs)
    torch.testing.assert_close(layer(states, codes, inputs), expected, rtol=1e-5, atol=1e-5)


def test_null_token_is_one_more_unmasked_token_after_the_layer_norm():
    layer = ReadIn(32, 24, 16, heads=4, head_dim=8, null_token=True)
    with torch.no_grad():
        layer.null.normal_()
        for fc in (layer.to_q, layer.to_k, layer.to_v, layer.to_out):
            fc.alpha.fill_(0.8)
    states, codes, inputs = torch.randn(2, 5, 32), torch.randn(2, 5, 16), torch.randn(2, 7, 24)
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[1, 4:] = False
    # reference: the naive read-in over the normalised tokens plus the null token, unmasked
    plain = ReadIn(32, 24, 16, heads=4, head_dim=8)
    plain.load_state_dict({k: v for k, v in layer.state_dict().items() if k != "null"})
    plain.norm_inputs = _AppendNull(layer.norm_inputs, layer.null)
    expected = naive_read_in(plain, states, codes, inputs, torch.cat([mask, mask[:, :1]], 1))
    torch.testing.assert_close(layer(states, codes, inputs, mask), expected, rtol=1e-5, atol=1e-5)


class _AppendNull(torch.nn.Module):
    def __init__(self, norm, null):
        super().__init__()
        self.norm, self.null = norm, null

    def forward(self, x):
        x = self.norm(x)
        return torch.cat([x, self.null.expand(x.shape[0], 1, -1)], dim=1)


def test_null_token_makes_the_number_of_matching_tokens_visible():
    states, codes = torch.randn(1, 3, 32), torch.randn(1, 3, 16)
    token = torch.randn(1, 1, 24)
    for null_token in (False, True):
        layer = ReadIn(32, 24, 16, heads=2, head_dim=8, null_token=null_token)
        if null_token:
            with torch.no_grad():
                layer.null.normal_()
        # one, two and three copies of the same token
        outs = [layer(states, codes, token.expand(1, k, -1)) for k in (1, 2, 3)]
        same = all(torch.allclose(outs[0], o, atol=1e-6) for o in outs[1:])
        assert same is not null_token  # an average forgets the count; the null token keeps it


_MEMORY_PROBE = """
import json, resource, torch
from circuitlab.nn import ReadIn
torch.set_num_threads(1)
U, N, D, H, DH = {u}, {n}, {d}, 4, 16
layer = ReadIn(64, D, 16, heads=H, head_dim=DH)
states, codes, inputs = torch.randn(1, U, 64), torch.randn(1, U, 16), torch.randn(1, N, D)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with torch.no_grad():
    out = layer(states, codes, inputs)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"grew_kib": after - before, "shape": list(out.shape)}}))
"""


def test_read_in_memory_does_not_scale_with_d_u_n():
    u, n, d = 512, 8192, 64
    naive_bytes = 2 * u * n * 4 * 16 * 4  # keys and values, (U, N, H*dh) float32 each
    assert naive_bytes > 1 << 30
    probe = _MEMORY_PROBE.format(u=u, n=n, d=d)
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout)
    assert report["shape"] == [1, u, 64]
    # scores and weights are (H, U, N) float32 = 64 MiB each; allow those, never the naive GiB
    assert report["grew_kib"] * 1024 < 300 * (1 << 20), report


def test_code_queries_add_a_linear_term_of_the_query_codes():
    layer = ReadIn(32, 24, 16, heads=2, head_dim=8, code_queries=True)
    states, codes, inputs = torch.randn(2, 5, 32), torch.randn(2, 5, 16), torch.randn(2, 7, 24)
    query_codes = torch.randn(2, 5, 16)
    with torch.no_grad():
        layer.code_to_query.weight.zero_()
        plain = ReadIn(32, 24, 16, heads=2, head_dim=8)
        plain.load_state_dict(
            {k: v for k, v in layer.state_dict().items() if not k.startswith("code_to_query")}
        )
        # a zero term changes nothing; a non-zero one moves the output
        torch.testing.assert_close(
            layer(states, codes, inputs, query_codes=query_codes),
            plain(states, codes, inputs, query_codes=query_codes),
        )
        layer.code_to_query.weight.normal_()
        moved = layer(states, codes, inputs, query_codes=query_codes)
    assert not torch.allclose(moved, plain(states, codes, inputs, query_codes=query_codes))
