"""Module collapse diagnostics: selection entropies and module usage.

H_a, the mean entropy of the controller's choice for one input, goes to 0 as each input gets a
definite module; H_b, the entropy of the batch-mean choice, stays near log M while the modules
share the inputs and falls when a few modules take them all (collapse). Both are averaged over
layers and over a layer's K categoricals, as in the authors' code.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from circuitlab.mn.paths import module_usage

__all__ = [
    "batch_entropy_per_layer",
    "batch_selection_entropy",
    "collapsed",
    "modules_used",
    "selection_entropy",
    "specialisation",
]

# a module counts as used when it is picked for at least this share of the inputs
USED_SHARE = 0.01


def _entropy(probabilities: torch.Tensor) -> torch.Tensor:
    return -(probabilities * probabilities.clamp_min(1e-30).log()).sum(-1)


def selection_entropy(probabilities: torch.Tensor) -> torch.Tensor:
    """H_a: the mean over inputs, layers and categoricals of H[p(a | x)]; ``probabilities``
    (B, L, C, M) -> scalar.

    Parameters
    ----------
    probabilities
        (B, L, C, M) the controllers' probabilities.
    """
    return _entropy(probabilities).mean()


def batch_selection_entropy(probabilities: torch.Tensor) -> torch.Tensor:
    """H_b: the mean over layers and categoricals of H[mean over inputs of p(a | x)];
    (B, L, C, M) -> scalar. Differentiable: the balancing term uses it.

    Parameters
    ----------
    probabilities
        (B, L, C, M) the controllers' probabilities.
    """
    return _entropy(probabilities.mean(0)).mean()


def modules_used(paths: np.ndarray | torch.Tensor, n_modules: int) -> np.ndarray:
    """Per layer, how many modules are picked for at least USED_SHARE of the inputs: (L,).

    Parameters
    ----------
    paths
        (N, L, K) paths.
    n_modules
        Modules M per layer.
    """
    return (module_usage(paths, n_modules) >= USED_SHARE).sum(1)


def collapsed(used: np.ndarray, h_b_per_layer: np.ndarray, n_modules: int) -> bool:
    """Module collapse: some layer uses fewer than its M modules, or its batch selection's
    perplexity exp(H_b) is below M / 2 (H_b more than log 2 below log M).

    Parameters
    ----------
    used
        Modules used per layer (``modules_used``).
    h_b_per_layer
        The batch's selection entropy per layer.
    n_modules
        Modules M per layer.
    """
    return bool((np.asarray(used) < n_modules).any()) or bool(
        (np.asarray(h_b_per_layer) < math.log(n_modules) - math.log(2)).any()
    )


def batch_entropy_per_layer(probabilities: torch.Tensor) -> np.ndarray:
    """H_b of each layer (mean over its categoricals): (B, L, C, M) -> (L,).

    Parameters
    ----------
    probabilities
        (B, L, C, M) the controllers' probabilities.
    """
    return _entropy(probabilities.mean(0)).mean(-1).detach().cpu().numpy()


def specialisation(paths: np.ndarray | torch.Tensor, groups: np.ndarray | torch.Tensor) -> dict:
    """How well the first layer's first pick follows known groups (the toy's components):
    ``purity``, the share of inputs whose module is their group's most frequent one, and
    ``distinct``, whether every group's most frequent module differs from the others'.

    Parameters
    ----------
    paths
        (N, L, K) paths.
    groups
        (N,) each input's class or mixture component.
    """
    picks = np.asarray(paths)[:, 0, 0]
    groups = np.asarray(groups)
    majority, agree = [], 0
    for group in np.unique(groups):
        modules, counts = np.unique(picks[groups == group], return_counts=True)
        majority.append(modules[counts.argmax()])
        agree += counts.max()
    return {"purity": agree / len(picks), "distinct": len(set(majority)) == len(majority)}
