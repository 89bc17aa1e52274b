"""What a Modular Network's paths add up to over a set of inputs (numpy only): each module's
usage per layer and the transitions between consecutive layers. A path (L, K) names the K
modules the controller picks in each of the L layers (a module picked twice counts once).
``circuitlab.analysis.paths`` turns them into graphs."""

from __future__ import annotations

import numpy as np

__all__ = ["check_paths", "layer_transitions", "module_usage"]


def check_paths(paths: np.ndarray) -> np.ndarray:
    """``paths`` as an int64 (N, layers, picks) array; any other shape is refused.

    Parameters
    ----------
    paths
        (N, L, K) paths.
    """
    paths = np.asarray(paths)
    if paths.ndim != 3:
        raise ValueError(f"paths must be (N, layers, picks), got shape {paths.shape}")
    return paths.astype(np.int64)


def module_usage(paths: np.ndarray, n_modules: int) -> np.ndarray:
    """The share of inputs whose path picks each module, per layer: (N, L, K) -> (L, M).

    Parameters
    ----------
    paths
        (N, L, K) paths.
    n_modules
        Modules M per layer.
    """
    paths = check_paths(paths)
    picked = np.zeros((paths.shape[0], paths.shape[1], n_modules), dtype=bool)
    for k in range(paths.shape[2]):
        np.put_along_axis(picked, paths[:, :, k : k + 1], True, axis=2)
    return picked.mean(0)


def layer_transitions(paths: np.ndarray, n_modules: int) -> np.ndarray:
    """(N, L, K) paths -> (L - 1, M, M) counts of inputs picking module i in layer l and
    module j in layer l + 1 (each pair of their picks once).

    Parameters
    ----------
    paths, n_modules
        As above.
    """
    paths = check_paths(paths)
    n, n_layers, _ = paths.shape
    counts = np.zeros((max(n_layers - 1, 0), n_modules, n_modules), dtype=np.float32)
    eye = np.eye(n_modules, dtype=np.float32)
    for layer in range(n_layers - 1):
        source = eye[paths[:, layer]].max(1)  # (N, M) 0/1: picked in layer l
        target = eye[paths[:, layer + 1]].max(1)
        counts[layer] = source.T @ target
    return counts
