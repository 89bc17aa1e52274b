import torch
import torch.nn.functional as F

from circuitlab.nn import ModFC, ModFFN


def test_modfc_matches_formula_by_hand():
    layer = ModFC(6, 5, 4)
    with torch.no_grad():
        layer.alpha.fill_(0.37)
    x, c = torch.randn(3, 7, 6), torch.randn(3, 7, 4)
    w_c, w, b = layer.code_proj.weight, layer.linear.weight, layer.linear.bias
    projected = c @ w_c.T
    ln = (projected - projected.mean(-1, keepdim=True)) / torch.sqrt(
        projected.var(-1, unbiased=False, keepdim=True) + 1e-5
    )
    expected = (x * (1 + 0.37 * ln)) @ w.T + b
    torch.testing.assert_close(layer(x, c), expected, rtol=1e-5, atol=1e-5)


def test_alpha_starts_at_0_1_and_is_learnable():
    layer = ModFC(6, 5, 4)
    assert layer.alpha.item() == torch.tensor(0.1).item()
    layer(torch.randn(2, 6), torch.randn(2, 4)).sum().backward()
    assert layer.alpha.grad is not None and layer.alpha.grad.abs() > 0


def test_alpha_zero_is_a_plain_linear_layer():
    layer = ModFC(6, 5, 4)
    with torch.no_grad():
        layer.alpha.zero_()
    x = torch.randn(3, 6)
    expected = F.linear(x, layer.linear.weight, layer.linear.bias)
    torch.testing.assert_close(layer(x, torch.randn(3, 4)), expected)
    unconditioned = ModFC(6, 5, 4, conditioned=False)
    assert not hasattr(unconditioned, "alpha")
    torch.testing.assert_close(unconditioned(x, None), unconditioned.linear(x))


def test_codes_change_what_a_module_computes():
    layer = ModFC(6, 5, 4)
    x = torch.randn(1, 6).expand(2, 6)
    out = layer(x, torch.randn(2, 4))
    assert not torch.allclose(out[0], out[1])


def test_modffn_shapes_and_shared_code():
    for activation in ("gelu", "geglu"):
        ffn = ModFFN(8, 4, mult=3, activation=activation)
        x, c = torch.randn(2, 5, 8), torch.randn(1, 5, 4)
        assert ffn(x, c).shape == (2, 5, 8)
        assert ffn.fc_in.linear.out_features == (48 if activation == "geglu" else 24)


def test_modffn_geglu_equals_chunked_formula():
    # the forward splits fc_in's weight in halves instead of chunking its output
    ffn = ModFFN(8, 4, mult=3, activation="geglu")
    x, c = torch.randn(2, 5, 8), torch.randn(1, 5, 4)
    h, gate = ffn.fc_in(ffn.norm(x), c).chunk(2, dim=-1)
    expected = ffn.fc_out(h * F.gelu(gate), c)
    torch.testing.assert_close(ffn(x, c), expected, rtol=1e-5, atol=1e-6)
