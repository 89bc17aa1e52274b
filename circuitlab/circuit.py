"""Circuit: the signatures, codes and roles of one generated set of modules.

Numpy only, so that analysis tools can use circuits without importing the model code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from circuitlab.checks import check_probability
from circuitlab.errors import InputError

__all__ = [
    "Circuit",
    "circuit_links",
    "first_non_finite",
    "first_zero_vector",
    "link_probabilities",
    "links_graph",
    "present_links",
    "zero_signature_error",
]

PROCESSOR, READOUT = "processor", "readout"


def link_probabilities(
    signatures: np.ndarray, eps: float = 1.0, truncation: float | None = None
) -> np.ndarray:
    """P_ij = exp(-(1 - cos(s_i, s_j)) / eps), 0 beyond the truncation.

    ``signatures`` (..., U, d_sig) -> (..., U, U) float32; any leading batch dimensions are kept.
    The same maths as ``circuitlab.nn.kernel.link_probability`` (a test pins them together).

    Parameters
    ----------
    signatures
        As above.
    eps, truncation
        The kernel's width and cut-off (None: no cut).
    """
    _check_eps(eps)
    s = np.asarray(signatures, dtype=np.float32)
    norms = np.linalg.norm(s, axis=-1, keepdims=True)
    unit = s / np.maximum(norms, 1e-12)
    # cos can round a little past 1 in float32; with a small eps that put P past 1 (1 + 2e-6 at
    # eps 0.125), which analysis refuses as not a probability
    distance = np.maximum(1.0 - unit @ np.swapaxes(unit, -1, -2), 0.0)
    p = np.exp(-distance / eps)
    if truncation is not None:
        p = np.where(distance > truncation, 0.0, p)
    return p.astype(np.float32)


def circuit_links(n_processors: int, n_readouts: int) -> np.ndarray:
    """The undirected links a NAC has, (L, 2) int with i < j: every processor pair (row-major),
    then every (processor, read-out) pair, read-out by read-out (read-outs never talk to each
    other). L = u (u - 1) / 2 + u R, with u processors and R read-outs.

    Parameters
    ----------
    n_processors, n_readouts
        The NAC's processors u and read-outs R.
    """
    u = n_processors
    among = np.argwhere(np.triu(np.ones((u, u), dtype=bool), k=1))
    into_readouts = [(i, r) for r in range(u, u + n_readouts) for i in range(u)]
    return np.concatenate([among, np.array(into_readouts, dtype=int).reshape(-1, 2)]).astype(int)


def present_links(p: np.ndarray, links: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Which of ``links`` (L, 2) a circuit has: P > ``threshold``. ``p`` (..., U, U) ->
    bool (..., L).

    Parameters
    ----------
    p, links, threshold
        As above.
    """
    links = np.asarray(links, dtype=int)
    return np.asarray(p)[..., links[:, 0], links[:, 1]] > threshold


def links_graph(p: np.ndarray, keep: np.ndarray, roles: Sequence[str]) -> nx.Graph:
    """Undirected graph of the module pairs where ``keep`` (U, U) is true, upper triangle read.

    Nodes 0..U-1 carry ``role``, ``signature`` (index into the signatures) and ``degree``;
    edges carry ``p`` from the (U, U) matrix ``p``.

    Parameters
    ----------
    p, keep
        (U, U) link probabilities and which links to draw.
    roles
        U module roles.
    """
    graph = nx.Graph()
    graph.add_nodes_from((i, {"role": str(role), "signature": i}) for i, role in enumerate(roles))
    rows, cols = np.nonzero(np.triu(keep, k=1))
    graph.add_weighted_edges_from(
        ((int(i), int(j), float(p[i, j])) for i, j in zip(rows, cols, strict=True)), weight="p"
    )
    nx.set_node_attributes(graph, dict(graph.degree()), "degree")
    return graph


def _is_real(value: object) -> bool:
    """A real number: an int, float or numpy number, not a bool or text."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


@dataclass
class Circuit:
    """One circuit: ``signatures`` (U, d_sig), ``codes`` (U, d_code) or None, ``roles`` (U,)
    of "processor" / "readout", and the kernel's ``eps`` and ``truncation``.

    Parameters
    ----------
    signatures
        (U, d_sig) each module's signature; distances between them set the link probabilities.
    roles
        (U,) "processor" or "readout" per module.
    codes
        (U, d_code) each module's code (what it computes), or None where the store keeps none.
    eps, truncation
        The kernel's width and cut-off (``KernelConfig``): P = exp(-d / eps), links with P below
        ``truncation`` cut (None: none are).
    """

    signatures: np.ndarray
    roles: np.ndarray
    codes: np.ndarray | None = None
    eps: float = 1.0
    truncation: float | None = None

    def __post_init__(self) -> None:
        self.signatures = np.asarray(self.signatures, dtype=np.float32)
        self.roles = np.asarray(self.roles, dtype=str)
        if self.signatures.ndim != 2:
            raise InputError("signatures", f"must be (U, d_sig), got shape {self.signatures.shape}")
        n_modules = self.signatures.shape[0]
        if self.roles.shape != (n_modules,):
            raise InputError("roles", f"has shape {self.roles.shape}; expected ({n_modules},)")
        _check_finite("signatures", self.signatures)
        zero = first_zero_vector(self.signatures)
        if zero is not None:
            raise zero_signature_error(f"module {zero[0]}")
        if self.codes is not None:
            self.codes = np.asarray(self.codes, dtype=np.float32)
            if self.codes.ndim != 2 or self.codes.shape[0] != n_modules:
                raise InputError(
                    "codes",
                    f"must be (U, d_code) with U = {n_modules} modules, "
                    f"got shape {self.codes.shape}",
                )
            _check_finite("codes", self.codes)
        _check_eps(self.eps)
        if self.truncation is not None and not (
            _is_real(self.truncation) and 0 < self.truncation <= 2
        ):
            raise InputError(
                "truncation", f"is a cosine distance in (0, 2] or None, got {self.truncation!r}"
            )

    @property
    def n_modules(self) -> int:
        return self.signatures.shape[0]

    @property
    def processors(self) -> np.ndarray:
        """Indices of processor modules."""
        return np.flatnonzero(self.roles == PROCESSOR)

    def link_probability(self) -> np.ndarray:
        """(U, U) link-probability matrix P, recomputed from the signatures."""
        return link_probabilities(self.signatures, self.eps, self.truncation)

    def to_networkx(self, threshold: float = 0.5) -> nx.Graph:
        """Undirected graph of links with P > ``threshold`` (no self-loops).

        Nodes carry ``role``, ``signature`` (index into ``signatures``) and ``degree``; edges
        carry ``p``. P is symmetric, so the graph is undirected.
        """
        threshold = check_probability("threshold", threshold)
        p = self.link_probability()
        return links_graph(p, p > threshold, self.roles)


def first_non_finite(array: np.ndarray) -> tuple[int, ...] | None:
    """The index of the first NaN or inf entry of ``array``, None if every entry is finite.

    Parameters
    ----------
    array
        Any array.
    """
    bad = np.argwhere(~np.isfinite(array))
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def first_zero_vector(signatures: np.ndarray) -> tuple[int, ...] | None:
    """The index (all but the last axis) of the first all-zero vector of ``signatures`` (...,
    d_sig), None if there is none.

    Parameters
    ----------
    signatures
        (..., d_sig) signature vectors.
    """
    bad = np.argwhere(~np.asarray(signatures).any(axis=-1))
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def zero_signature_error(where: str) -> InputError:
    """The error for an all-zero signature vector at ``where`` (a module, a circuit).

    Parameters
    ----------
    where
        What the message names.
    """
    return InputError(
        "signatures",
        f"{where} has an all-zero signature vector: a zero vector has no direction, so its "
        "cosine with another signature, and P, are undefined",
        "give every module a non-zero signature (the model never generates a zero one)",
    )


def _check_eps(eps: object) -> None:
    """Refuse a kernel temperature that is not a positive finite number."""
    if not (_is_real(eps) and np.isfinite(eps) and eps > 0):
        raise InputError("eps", f"must be a positive number, got {eps!r:.40}")


def _check_finite(name: str, array: np.ndarray) -> None:
    """Refuse NaN or inf entries, naming the first module that has one."""
    bad = first_non_finite(array)
    if bad is not None:
        raise InputError(name, f"has NaN or inf entries (the first in module {bad[0]})")
