"""The structure regulariser: pulls a NAC's processor link probabilities towards a graph prior.

The priors' expected adjacencies G are ``circuitlab.prior_targets`` (numpy); this module holds
the two losses that compare P with G and the ``nn.Module`` the model adds to its loss.
"""

from __future__ import annotations

import torch

from circuitlab.config_groups import PRIOR_LOSSES
from circuitlab.prior_targets import closest_permutation, target

__all__ = ["GraphPriorRegularizer", "matched_mse", "spectral_loss"]


def matched_mse(p: torch.Tensor, g: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    """MSE(P[perm][:, perm], G) for P (..., U, U), G (U, U); mean over any batch dimension.

    Parameters
    ----------
    p, g
        As above.
    perm
        (U,) the matching: P's module placed at each of G's nodes.
    """
    return ((p[..., perm, :][..., :, perm] - g) ** 2).mean()


def spectral_loss(p: torch.Tensor, g: torch.Tensor, beta: float | None = None) -> torch.Tensor:
    """||eigvalsh(P) - eigvalsh(G)||^2 / U + beta ||sort(deg P) - sort(deg G)||^2.

    Exactly invariant to relabelling P's modules. ``beta`` defaults to 1 / U. P (..., U, U).

    Parameters
    ----------
    p, g, beta
        As above.
    """
    n = g.shape[-1]
    beta = 1.0 / n if beta is None else beta
    spectrum = ((torch.linalg.eigvalsh(p) - torch.linalg.eigvalsh(g)) ** 2).sum(-1) / n
    degrees = ((p.sum(-1).sort(-1).values - g.sum(-1).sort(-1).values) ** 2).sum(-1)
    return (spectrum + beta * degrees).mean()


class GraphPriorRegularizer(torch.nn.Module):
    """weight * loss(P, G): pulls the link probabilities P of processor modules towards a prior.

    ``loss="matched_mse"`` compares P, relabelled by the closest permutation, with G; the
    matching (no gradient through it) is recomputed every ``rematch_every`` calls, on the batch
    mean of P for a conditional NAC. ``loss="spectral"`` is the exactly permutation-invariant
    loss. The cached permutation is a buffer, so a checkpoint resumes with the same matching.

    Parameters
    ----------
    prior
        The prior's name.
    n_modules
        The processors U.
    weight
        The loss's weight.
    loss, rematch_every
        As above.
    beta
        ``spectral_loss``'s degree weight (None: 1 / U).
    **params
        The prior's parameters (``prior_params``).
    """

    def __init__(
        self,
        prior: str,
        n_modules: int,
        *,
        weight: float = 0.1,
        loss: str = "matched_mse",
        rematch_every: int = 50,
        beta: float | None = None,
        **params: float,
    ) -> None:
        super().__init__()
        if loss not in PRIOR_LOSSES:
            raise ValueError(f"loss must be one of {PRIOR_LOSSES}, got {loss!r}")
        if rematch_every < 1:
            raise ValueError(f"rematch_every must be >= 1, got {rematch_every}")
        self.prior, self.weight, self.loss, self.beta = prior, weight, loss, beta
        self.rematch_every = rematch_every
        self.register_buffer("target", torch.tensor(target(prior, n_modules, **params)).float())
        self.register_buffer("perm", torch.arange(n_modules))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, p: torch.Tensor) -> torch.Tensor:
        """P (U, U) or (B, U, U) -> weighted scalar loss."""
        if p.shape[-1] != self.target.shape[0]:
            raise ValueError(
                f"P has {p.shape[-1]} modules but the prior was built for {self.target.shape[0]}"
            )
        g = self.target.to(p.dtype)
        if self.loss == "spectral":
            return self.weight * spectral_loss(p, g, self.beta)
        # Evaluation always matches afresh; training reuses the matching between rematches.
        if not self.training or int(self.calls) % self.rematch_every == 0:
            mean_p = p.detach().reshape(-1, *p.shape[-2:]).mean(0).cpu().double().numpy()
            perm = closest_permutation(mean_p, self.target.cpu().double().numpy())
            self.perm.copy_(torch.from_numpy(perm))
        if self.training:
            self.calls += 1
        return self.weight * matched_mse(p, g, self.perm)
