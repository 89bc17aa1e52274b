"""Levers from the authors' released code: truncation whose cut links still pass gradients,
and a hinge repulsion between signatures."""

import pytest
import torch

from circuitlab.config import NACConfig
from circuitlab.config_groups import KernelConfig, PenaltyConfig
from circuitlab.model import NAC, signature_repulsion
from circuitlab.nn.kernel import LOG_ZERO, cosine_distance, link_log_probability


def _signatures() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(1, 6, 4, requires_grad=True)


def test_straight_through_truncation_cuts_forward_and_passes_gradients_back():
    sigs = _signatures()
    distance = cosine_distance(sigs, sigs).detach()
    cut = distance > 0.9
    assert cut.any() and (~cut).any()
    plain = link_log_probability(sigs, sigs, 0.5, 0.9)
    through = link_log_probability(sigs, sigs, 0.5, 0.9, truncation_gradient=True)
    torch.testing.assert_close(through, plain)
    assert (through[cut] == LOG_ZERO).all()
    weights = torch.randn(plain.shape)
    (grad_plain,) = torch.autograd.grad((plain * weights).sum(), sigs)
    (grad_through,) = torch.autograd.grad((through * weights).sum(), sigs)
    untruncated = link_log_probability(sigs, sigs, 0.5)
    (grad_reference,) = torch.autograd.grad((untruncated * weights).sum(), sigs)
    torch.testing.assert_close(grad_through, grad_reference)  # as if nothing were cut
    assert not torch.allclose(grad_plain, grad_reference)  # a plain cut has no gradient


def test_signature_repulsion_is_the_mean_hinge_over_distinct_pairs():
    sigs = _signatures()
    distance = cosine_distance(sigs, sigs)[0]
    expected = torch.stack(
        [(1.0 - distance[i, j]).clamp(min=0) for i in range(6) for j in range(i + 1, 6)]
    ).mean()
    loss = signature_repulsion(sigs, 1.0)
    torch.testing.assert_close(loss, expected)
    orthogonal = torch.eye(4).unsqueeze(0)  # every pair at distance 1
    assert signature_repulsion(orthogonal, 1.0) == 0
    loss.backward()
    with torch.no_grad():
        moved = sigs - 0.1 * sigs.grad
    assert signature_repulsion(moved, 1.0) < loss  # a step down the gradient spreads them


def test_a_nac_adds_the_repulsion_to_its_structure_loss():
    base = dict(input_dim=4, n_processors=6, n_readouts=2, dim=16, heads=2, head_dim=8)
    torch.manual_seed(0)
    with_repulsion = NAC(
        NACConfig(**base, penalties=PenaltyConfig(signature_repulsion=2.0, repulsion_hinge=1.5))
    )
    sigs = torch.randn(3, 8, with_repulsion.config.sig_dim)
    expected = 2.0 * signature_repulsion(sigs[:, :6], 1.5)
    torch.testing.assert_close(with_repulsion.structure_loss(sigs), expected)
    assert NAC(NACConfig(**base)).structure_loss(sigs) == 0


def test_the_new_options_are_checked():
    with pytest.raises(ValueError, match="truncation"):
        NACConfig(kernel=KernelConfig(truncation_gradient=True))
    with pytest.raises(ValueError, match="repulsion_hinge"):
        NACConfig(penalties=PenaltyConfig(signature_repulsion=1.0, repulsion_hinge=0.0))
    with pytest.raises(ValueError, match="signature_repulsion"):
        NACConfig(penalties=PenaltyConfig(signature_repulsion=-1.0))
