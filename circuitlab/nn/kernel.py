"""The signature kernel: link probabilities between modules and their stochastic samples.

P_ij = exp(-(1 - cos(s_i, s_j)) / eps), set to 0 where the cosine distance exceeds ``truncation``.
With ``truncation_gradient`` a cut link is 0 in the forward pass but passes the gradient of its
untruncated log P (straight through, as the authors' released code does), so a signature pair
beyond the truncation can still be pulled back within it.

SKMDPA only ever needs log K (it enters attention as an additive bias), so everything here works
in log space: log P is exactly -(1 - cos) / eps, and the relaxed-Bernoulli sample's log is a
logsigmoid, which stays finite and has useful gradients where K itself would underflow.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from circuitlab.config_groups import EVAL_KERNELS

__all__ = [
    "LOG_ZERO",
    "SignatureKernel",
    "cosine_distance",
    "link_log_probability",
    "link_probability",
    "relaxed_bernoulli_log_sample",
]

# A finite stand-in for log 0: exp(-1e4) is 0 in float32, and a row whose links are all cut
# stays finite (it falls back to plain attention) instead of producing NaN.
LOG_ZERO = -1e4
_PROB_CLAMP = 1e-6


def cosine_distance(receivers: torch.Tensor, senders: torch.Tensor) -> torch.Tensor:
    """1 - cos(s_i, s_j): (..., Ur, d_sig) x (..., Us, d_sig) -> (..., Ur, Us).

    Parameters
    ----------
    receivers, senders
        Signatures, as above.
    """
    a = F.normalize(receivers, dim=-1)
    b = F.normalize(senders, dim=-1)
    return 1.0 - a @ b.transpose(-1, -2)


def link_log_probability(
    receivers: torch.Tensor,
    senders: torch.Tensor,
    eps: float | torch.Tensor = 1.0,
    truncation: float | None = None,
    truncation_gradient: bool = False,
) -> torch.Tensor:
    """log P_ij = -(1 - cos(s_i, s_j)) / eps, LOG_ZERO beyond the truncation: (..., Ur, Us).
    With ``truncation_gradient`` cut links keep the gradient of their untruncated log P.

    Parameters
    ----------
    receivers, senders
        (..., Ur, d_sig) and (..., Us, d_sig) signatures.
    eps
        The kernel's width (a number or a tensor broadcast against the result).
    truncation
        P below which a link is cut (None: none are).
    truncation_gradient
        As above.
    """
    distance = cosine_distance(receivers, senders)
    log_p = -distance / eps
    if truncation is None:
        return log_p
    cut = log_p.masked_fill(distance > truncation, LOG_ZERO)
    if truncation_gradient:
        return log_p + (cut - log_p).detach()
    return cut


def link_probability(
    receivers: torch.Tensor,
    senders: torch.Tensor,
    eps: float | torch.Tensor = 1.0,
    truncation: float | None = None,
) -> torch.Tensor:
    """P_ij in [0, 1]: (..., Ur, d_sig) x (..., Us, d_sig) -> (..., Ur, Us).

    Parameters
    ----------
    receivers, senders
        (..., Ur, d_sig) and (..., Us, d_sig) signatures.
    eps
        The kernel's width.
    truncation
        P below which a link is cut to 0 (None: none are).
    """
    return link_log_probability(receivers, senders, eps, truncation).exp()


def relaxed_bernoulli_log_sample(
    log_p: torch.Tensor, temperature: float, batch_size: int | None = None
) -> torch.Tensor:
    """log of a RelaxedBernoulli(probs=exp(log_p), temperature) sample, reparameterised.

    The sample is sigmoid((logit(p) + logistic noise) / temperature); its log is computed with
    logsigmoid. ``log_p`` (1 or B, Ur, Us); every element of the result gets its own noise, and
    with ``batch_size`` a (1, Ur, Us) ``log_p`` gives (batch_size, Ur, Us) independent samples.
    logit(p) is taken before broadcasting over the batch: the per-sample work (and the backward
    pass through it) is four element-wise ops, which matters at B x U x U per propagation round.

    Parameters
    ----------
    log_p, batch_size
        As above.
    temperature
        The relaxation's temperature.
    """
    p = log_p.exp().clamp(_PROB_CLAMP, 1.0 - _PROB_CLAMP)
    scaled_logits = (torch.log(p) - torch.log1p(-p)) / temperature
    shape = scaled_logits.shape if batch_size is None else (batch_size, *log_p.shape[-2:])
    uniform = torch.rand(shape, dtype=log_p.dtype, device=log_p.device)
    noise = torch.special.logit(uniform, eps=_PROB_CLAMP)  # logistic(0, 1)
    return F.logsigmoid(torch.add(scaled_logits, noise, alpha=1.0 / temperature))


class SignatureKernel(nn.Module):
    """Turns signatures into the log-kernel that SKMDPA adds to its attention logits.

    Training: a relaxed-Bernoulli sample per batch element (temperature ``tau``), or P itself
    with ``sample=False``.
    Evaluation (``eval_mode``): ``none`` uses P itself, ``threshold`` keeps links with P > 0.5,
    ``sample`` draws hard Bernoulli links. ``dense=True`` is the all-ones kernel of Perceiver IO.

    Parameters
    ----------
    eps, learn_eps, truncation, truncation_gradient, tau, sample
        As ``KernelConfig`` has them.
    eval_mode
        How links are used at evaluation, as above (``KernelConfig.evaluation``).
    dense
        As above.
    """

    def __init__(
        self,
        *,
        eps: float = 1.0,
        learn_eps: bool = False,
        truncation: float | None = None,
        truncation_gradient: bool = False,
        tau: float = 0.5,
        eval_mode: str = "none",
        dense: bool = False,
        sample: bool = True,
    ) -> None:
        super().__init__()
        if eval_mode not in EVAL_KERNELS:
            raise ValueError(f"eval_mode must be one of {EVAL_KERNELS}, got {eval_mode!r}")
        if eps <= 0:
            raise ValueError(f"eps must be positive, got {eps}")
        self.truncation = truncation
        self.truncation_gradient = truncation_gradient
        self.tau = tau
        self.eval_mode = eval_mode
        self.dense = dense
        self.sample = sample
        log_eps = torch.tensor(math.log(eps))
        if learn_eps:
            self.log_eps = nn.Parameter(log_eps)
        else:
            self.register_buffer("log_eps", log_eps)

    @property
    def eps(self) -> torch.Tensor:
        return self.log_eps.exp()

    def log_probability(self, receivers: torch.Tensor, senders: torch.Tensor) -> torch.Tensor:
        """log P for signatures (B or 1, Ur, d_sig), (B or 1, Us, d_sig) -> (B or 1, Ur, Us)."""
        return link_log_probability(
            receivers, senders, self.eps, self.truncation, self.truncation_gradient
        )

    def forward(
        self, receivers: torch.Tensor, senders: torch.Tensor, batch_size: int
    ) -> torch.Tensor | None:
        """log K of shape (batch_size or 1, Ur, Us), or None for the dense all-ones kernel."""
        if self.dense:
            return None
        log_p = self.log_probability(receivers, senders)
        if self.training and self.sample:
            return relaxed_bernoulli_log_sample(log_p, self.tau, batch_size)
        if self.training or self.eval_mode == "none":
            return log_p
        if self.eval_mode == "threshold":
            links = log_p > math.log(0.5)
        else:
            expanded = log_p.expand(batch_size, *log_p.shape[-2:])
            links = torch.rand_like(expanded) < expanded.exp()
        return torch.where(links, 0.0, LOG_ZERO).to(log_p.dtype)
