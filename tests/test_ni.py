"""Neural Interpreters: each equation against a naive reference computation."""

import math

import pytest
import torch
import torch.nn.functional as F

from circuitlab.ni import NeuralInterpreter, NIConfig
from circuitlab.ni.loc import LineOfCode, ModAttention, ModMLP
from circuitlab.ni.routing import RoutingKernel, compatibility, normalise_over_functions
from circuitlab.nn.modfc import ModFC

torch.manual_seed(0)
B, U, V, D, CODE, TYPE = 3, 4, 6, 16, 8, 5


def _naive_kernel(s, t, sigma, tau):
    """C~_ui by loops: exp(-(1 - cos) / sigma), 0 where 1 - cos > tau."""
    out = torch.zeros(t.shape[0], s.shape[0], t.shape[1])
    for b in range(t.shape[0]):
        for u in range(s.shape[0]):
            for i in range(t.shape[1]):
                d = 1 - F.cosine_similarity(s[u], t[b, i], dim=0)
                out[b, u, i] = 0.0 if tau is not None and d > tau else math.exp(-d / sigma)
    return out


def test_kernel_truncates_far_types_and_passes_the_untruncated_gradient():
    s = torch.randn(U, TYPE, requires_grad=True)
    t = torch.randn(B, V, TYPE, requires_grad=True)
    log_sigma = torch.tensor(math.log(0.7), requires_grad=True)
    tau = 1.0
    kernel = compatibility(s, t, log_sigma.exp(), tau)
    torch.testing.assert_close(kernel, _naive_kernel(s.detach(), t.detach(), 0.7, tau))
    distance = 1 - F.normalize(s, dim=-1) @ F.normalize(t, dim=-1).transpose(1, 2)
    cut = distance > tau
    assert cut.any() and (~cut).any()
    assert (kernel[cut] == 0).all()
    # straight through: the gradient is that of the untruncated kernel, finite in sigma too
    weights = torch.randn(B, U, V)
    (kernel * weights).sum().backward()
    grads = [s.grad.clone(), t.grad.clone(), log_sigma.grad.clone()]
    for p in (s, t, log_sigma):
        p.grad = None
    (torch.exp(-distance / log_sigma.exp()) * weights).sum().backward()
    for got, want in zip(grads, [s.grad, t.grad, log_sigma.grad], strict=True):
        assert torch.isfinite(got).all()
        torch.testing.assert_close(got, want)


def test_routing_normalises_over_functions_and_routes_padding_nowhere():
    kernel = torch.rand(B, U, V)
    kernel[0, :, 2] = 0.0  # a token no function accepts
    routing = normalise_over_functions(kernel, eps=1e-6)
    want = kernel / (1e-6 + kernel.sum(1, keepdim=True))
    torch.testing.assert_close(routing, want)
    assert (routing[0, :, 2] == 0).all()
    torch.testing.assert_close(routing[1].sum(0), torch.ones(V), atol=1e-5, rtol=0)
    mask = torch.ones(B, V, dtype=torch.bool)
    mask[:, -1] = False
    routed = RoutingKernel(truncation=None)(torch.randn(U, TYPE), torch.randn(B, V, TYPE), mask)
    assert (routed[:, :, -1] == 0).all()


def test_modlin_is_w_times_x_masked_by_the_normalised_code_and_folds_per_function():
    layer = ModFC(D, 7, CODE, residual=False)
    assert not hasattr(layer, "alpha")
    x, codes = torch.randn(B, V, D), torch.randn(U, CODE)
    mask = F.layer_norm(codes @ layer.code_proj.weight.T, (D,))  # (U, D)
    naive = torch.stack(
        [x * mask[u] @ layer.linear.weight.T + layer.linear.bias for u in range(U)], dim=1
    )
    torch.testing.assert_close(layer.per_module(x, codes), naive)
    per_function = torch.randn(B, U, V, D)
    naive = torch.stack([layer(per_function[:, u], codes[u]) for u in range(U)], dim=1)
    torch.testing.assert_close(layer.per_module(per_function, codes), naive)


def test_modattn_equals_the_explicit_product_form_on_routed_rows():
    attn = ModAttention(D, CODE, heads=2, head_dim=4)
    h, codes = torch.randn(B, U, V, D), torch.randn(U, CODE)
    routing = normalise_over_functions(torch.rand(B, U, V) * (torch.rand(B, U, V) > 0.3))
    got = attn(h, codes, routing)
    for b in range(B):
        for u in range(U):
            q = attn.to_q(h[b, u], codes[u]).view(V, 2, 4).transpose(0, 1)
            k = attn.to_k(h[b, u], codes[u]).view(V, 2, 4).transpose(0, 1)
            v = attn.to_v(h[b, u], codes[u]).view(V, 2, 4).transpose(0, 1)
            c = routing[b, u]
            weights = (q @ k.transpose(1, 2) / 2.0).softmax(-1) * c[:, None] * c[None, :]
            weights = weights / weights.sum(-1, keepdim=True)
            out = attn.to_out((weights @ v).transpose(0, 1).reshape(V, 8), codes[u])
            rows = c > 0
            torch.testing.assert_close(got[b, u][rows], out[rows], atol=1e-5, rtol=1e-4)


def test_a_loc_gates_attention_and_mlp_by_the_routing():
    loc = LineOfCode(D, CODE, heads=2, head_dim=4)
    x, codes = torch.randn(B, V, D), torch.randn(U, CODE)
    routing = normalise_over_functions(torch.rand(B, U, V))
    gate = routing.unsqueeze(-1)
    a = x.unsqueeze(1) + gate * loc.attention(loc.norm_attention(x), codes, routing)
    want = a + gate * loc.mlp(loc.norm_mlp(a), codes)
    torch.testing.assert_close(loc(x, codes, routing), want)
    # the shared input gives what the same tokens copied to every function give
    copied = loc(x.unsqueeze(1).expand(B, U, V, D).contiguous(), codes, routing)
    torch.testing.assert_close(loc(x, codes, routing), copied, atol=1e-5, rtol=1e-4)
    # a function a token is not routed to leaves it as it was
    routing[:, 0] = 0.0
    torch.testing.assert_close(loc(x, codes, routing)[:, 0], x)
    mlp = ModMLP(D, CODE)
    hidden = F.gelu(mlp.fc_in.per_module(a, codes))
    torch.testing.assert_close(mlp(a, codes), mlp.fc_out.per_module(hidden, codes))


def _tiny(**overrides) -> NIConfig:
    values = dict(
        input_dim=3, n_cls=2, n_outputs=1, dim=D, n_scripts=2, n_functions=U, iterations=2,
        heads=2, head_dim=4, code_dim=CODE, type_dim=TYPE, truncation=1.2,
    )  # fmt: skip
    return NIConfig(**{**values, **overrides})


def test_an_iteration_mixes_the_functions_outputs_by_the_routing():
    model = NeuralInterpreter(_tiny())
    script = model.scripts[0]
    x = torch.randn(B, V, D)
    new_x, routing = script.iterate(x)
    per_function = script.locs[0](x, script.codes, routing)
    want = x + sum(routing[:, u, :, None] * (per_function[:, u] - x) for u in range(U))
    torch.testing.assert_close(new_x, want, atol=1e-5, rtol=1e-4)
    # untruncated, every token is routed somewhere: the update is the authors' sum_u C_ui y_ui
    script = NeuralInterpreter(_tiny(truncation=None)).scripts[0]
    new_x, routing = script.iterate(x)
    per_function = script.locs[0](x, script.codes, routing)
    want = torch.einsum("buv,buvd->bvd", routing, per_function)
    torch.testing.assert_close(new_x, want, atol=1e-5, rtol=1e-4)


def test_model_shapes_masking_and_frozen_signatures():
    model = NeuralInterpreter(_tiny())
    inputs = torch.randn(B, 5, 3)
    outputs, routing, _ = model(inputs, return_circuit=True)
    assert outputs.shape == (B, 2) and routing.shape == (B, 4, U, 2 + 5)
    assert all(not p.requires_grad for p in model.signature_parameters())
    mask = torch.ones(B, 5, dtype=torch.bool)
    mask[:, -1] = False
    masked_out, masked_routing, _ = model(inputs, input_mask=mask, return_circuit=True)
    assert (masked_routing[..., -1] == 0).all()
    # a padded token changes nothing: the same as the input without it
    torch.testing.assert_close(masked_out, model(inputs[:, :4]), atol=1e-5, rtol=1e-4)


def test_functions_can_be_added_and_removed_after_training():
    model = NeuralInterpreter(_tiny())
    script = model.scripts[0]
    before = script.codes.detach().clone()
    script.add_functions(2)
    assert script.n_functions == U + 2 and not script.signatures.requires_grad
    torch.testing.assert_close(script.codes[:U], before)
    script.remove_functions([0, U + 1])
    torch.testing.assert_close(script.codes[: U - 1], before[1:])
    assert model(torch.randn(B, 5, 3)).shape == (B, 2)
    with pytest.raises(ValueError, match="no functions"):
        script.remove_functions([99])


def _snapshot(model: NeuralInterpreter) -> dict:
    return {k: v.detach().clone() for k, v in model.named_parameters()}


@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize("setting", ["cls", "cls+types", "all"])
def test_adaptation_trains_only_what_its_setting_names(setting, frozen):
    from circuitlab.ni.adapt import adapt
    from circuitlab.worlds.tasks import make_task

    task = make_task("fuzzy-boolean", functions="adapt")
    model = NeuralInterpreter(_tiny(input_dim=task.input_dim, n_cls=20, frozen_signatures=frozen))
    before = _snapshot(model)
    adapt(model, task, setting=setting, steps=3, batch_size=8, progress=False)
    after = _snapshot(model)
    assert model.cls_tokens.shape[0] == task.n_outputs == 10
    # the CLS tokens are new ones (10 for the 10 held-out functions); the rest may move
    moved = {k for k in before if k != "cls_tokens" and not torch.equal(before[k], after[k])}
    # the type-matching parameters: type inference, sigma, and the signatures when they learn
    matching = {
        k
        for k in before
        if ".type_inference." in k or k.endswith("log_sigma") or k.endswith("signatures")
    }
    signatures = {k for k in before if k.endswith("signatures")}
    assert (moved & signatures == set()) if frozen else (setting == "cls" or signatures <= moved)
    if setting == "cls":
        assert moved == set()
    elif setting == "cls+types":
        assert moved and moved <= matching
        assert {k for k in moved if k.endswith("log_sigma")}  # sigma learns with the types
    else:
        assert moved - matching  # the LOCs learn too
    # afterwards every parameter is trainable again but frozen signatures
    assert all(
        p.requires_grad != (frozen and "signatures" in k) for k, p in model.named_parameters()
    )


def test_added_functions_learn_while_the_old_ones_keep_their_codes():
    from circuitlab.ni.adapt import adapt
    from circuitlab.worlds.tasks import make_task

    task = make_task("fuzzy-boolean", functions="adapt")
    model = NeuralInterpreter(_tiny(input_dim=task.input_dim, n_cls=20))
    old_codes = model.scripts[0].codes.detach().clone()
    adapt(model, task, setting="cls", steps=3, batch_size=8, add_functions=2, progress=False)
    codes = model.scripts[0].codes.detach()
    assert codes.shape[0] == U + 2
    torch.testing.assert_close(codes[:U], old_codes)
    # the hook that held the old rows is gone: training the codes again moves them all
    model.scripts[0].codes.grad = None
    model(torch.randn(2, 5, task.input_dim)).sum().backward()
    assert model.scripts[0].codes.grad[:U].abs().sum() > 0
