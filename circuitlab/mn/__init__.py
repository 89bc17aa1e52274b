"""Modular Networks (Kirsch, Kunze and Barber, NeurIPS 2018): a controller picks K of M modules
in every layer per input, trained by generalised Viterbi EM (or the REINFORCE and noisy top-k
baselines).

The public names are imported on first use (``circuitlab/_lazy.py``), so that the numpy-only
``circuitlab.mn.paths``, which the analysis layer reads, loads no torch.
"""

from circuitlab._lazy import lazy_exports

_EXPORTS = {
    "MNConfig": "circuitlab.mn.config",
    "ModularCircuit": "circuitlab.mn.model",
    "ModularNetwork": "circuitlab.mn.model",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
