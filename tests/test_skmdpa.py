import math

import pytest
import torch

from circuitlab.nn import SKMDPA, SignatureKernel, link_probability
from circuitlab.nn.kernel import LOG_ZERO, relaxed_bernoulli_log_sample


def _inputs(b=2, u=6, dim=16, code=8, sig=4):
    return torch.randn(b, u, dim), torch.randn(b, u, code), torch.randn(b, u, sig)


def test_all_ones_kernel_in_eval_equals_softmax_attention():
    attn = SKMDPA(
        16, 8, heads=2, head_dim=8, kernel=SignatureKernel(dense=True), self_attention=True
    ).eval()
    x, c, s = _inputs()
    out = attn(x, c, s, x, c, s)
    h = attn.norm_receivers(x)
    q = attn.to_q(h, c).view(2, 6, 2, 8).transpose(1, 2)
    k = attn.to_k(h, c).view(2, 6, 2, 8).transpose(1, 2)
    v = attn.to_v(h, c).view(2, 6, 2, 8).transpose(1, 2)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    ref = attn.to_out(ref.transpose(1, 2).reshape(2, 6, 16), c)
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_identical_signatures_give_dense_attention():
    """P = 1 everywhere when all signatures agree, so SKMDPA (eval, none) is plain attention."""
    dense = SKMDPA(16, 8, heads=2, head_dim=8, kernel=SignatureKernel(dense=True)).eval()
    sparse = SKMDPA(16, 8, heads=2, head_dim=8).eval()
    sparse.load_state_dict(dense.state_dict())
    x, c, _ = _inputs()
    same = torch.ones(2, 6, 4)
    torch.testing.assert_close(sparse(x, c, same, x, c, same), dense(x, c, same, x, c, same))


@pytest.mark.parametrize("mode", ["threshold", "none"])
def test_unlinked_sender_carries_no_information(mode):
    kernel = SignatureKernel(eval_mode=mode, truncation=1.0 if mode == "none" else None)
    attn = SKMDPA(16, 8, heads=2, head_dim=8, kernel=kernel).eval()
    x, c, _ = _inputs(b=1, u=3)
    # modules 0 and 1 share a direction; module 2 is opposite: P_02 = exp(-2) < 0.5 and its
    # cosine distance 2 exceeds the truncation 1.0
    s = torch.tensor([[[1.0, 0.0], [0.9, 0.1], [-1.0, 0.0]]])
    before = attn(x, c, s, x, c, s)
    x2 = x.clone()
    x2[0, 2] += 10 * torch.randn(16)
    after = attn(x2, c, s, x2, c, s)
    torch.testing.assert_close(after[0, :2], before[0, :2], rtol=0, atol=1e-6)
    assert not torch.allclose(after[0, 2], before[0, 2])


def test_kernel_samples_differ_across_batch_in_training():
    kernel = SignatureKernel(tau=0.5).train()
    s = torch.randn(1, 8, 4)
    log_k = kernel(s, s, batch_size=4)
    assert log_k.shape == (4, 8, 8)
    assert not torch.allclose(log_k[0], log_k[1])
    kernel.eval()
    torch.testing.assert_close(kernel(s, s, 4), link_probability(s, s).log(), atol=1e-5, rtol=0)


def test_relaxed_bernoulli_sample_mean_tracks_probability():
    log_p = torch.full((200_000,), math.log(0.3))
    sample = relaxed_bernoulli_log_sample(log_p, temperature=0.05).exp()
    assert abs(sample.mean().item() - 0.3) < 0.01
    assert (sample.min() >= 0) and (sample.max() <= 1)


def test_relaxed_bernoulli_broadcast_over_batch_links_with_probability_p():
    # P(sigmoid((logit p + L) / tau) > 1/2) = P(L > -logit p) = p at any temperature, so the
    # fraction of a batch's samples above 1/2 recovers each element's p
    p = torch.tensor([[[0.1, 0.5], [0.8, 0.95]]])
    sample = relaxed_bernoulli_log_sample(p.log(), temperature=0.5, batch_size=40_000).exp()
    assert sample.shape == (40_000, 2, 2)
    torch.testing.assert_close((sample > 0.5).float().mean(0), p[0], atol=0.01, rtol=0)


def test_eval_modes_threshold_and_sample_are_binary():
    s = torch.randn(1, 10, 4)
    for mode in ("threshold", "sample"):
        log_k = SignatureKernel(eval_mode=mode).eval()(s, s, batch_size=3)
        assert set(log_k.unique().tolist()) <= {0.0, LOG_ZERO}
    p = link_probability(s, s)
    threshold = SignatureKernel(eval_mode="threshold").eval()(s, s, 1)
    torch.testing.assert_close((threshold == 0).float(), (p > 0.5).float())


def test_gradients_reach_the_signatures():
    attn = SKMDPA(16, 8, heads=2, head_dim=8).train()
    x, c, s = _inputs()
    s.requires_grad_(True)
    attn(x, c, s, x, c, s).pow(2).sum().backward()
    assert s.grad is not None and s.grad.abs().sum() > 0


def test_truncation_zeroes_far_links():
    s = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]])
    p = link_probability(s, s, eps=1.0, truncation=1.5)
    assert p[0, 0, 2] == 0 and p[0, 0, 1] == pytest.approx(math.exp(-1.0))
    assert torch.all(torch.diagonal(p[0]) == 1)
