"""``CircuitEdit``: one edit of a circuit, as a person makes it (numpy-free, torch-free,
hashable): undirected links cut or forced on, modules knocked out. The library's interventions
take it (``circuitlab.interventions.run_with_circuit``, ``read_in_weights``), and the app builds
it from a visitor's clicks and keeps it in the page's URL; ``LinkEdit.of(edit, n_modules)`` is
its mask form, the one ``NAC.execute`` runs (and the form of per-example edits, a (B, U, U)
mask).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CircuitEdit"]

Link = tuple[int, int]


@dataclass(frozen=True)
class CircuitEdit:
    """Links cut and links forced on, each an undirected pair (i, j) of module indices (P is
    symmetric, so both directions are edited; a link both cut and forced is cut), and modules
    knocked out: a knocked-out processor sends nothing, a knocked-out read-out does not vote.
    An edit with nothing in it is false.

    Parameters
    ----------
    cut
        Links (i, j) cut: P set to 0 both ways.
    knocked_out
        Modules knocked out.
    forced
        Links (i, j) forced on: P set to 1 both ways.
    """

    cut: tuple[Link, ...] = ()
    knocked_out: tuple[int, ...] = ()
    forced: tuple[Link, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.cut or self.knocked_out or self.forced)
