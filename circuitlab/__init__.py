"""circuitlab: train Neural Attentive Circuits and look inside the circuits they learn.

The public names below are imported on first use: ``circuitlab.CircuitStore`` and
``circuitlab.Circuit`` need numpy only; ``circuitlab.NAC`` loads torch.
"""

from circuitlab._lazy import lazy_exports

_EXPORTS = {
    "NAC": "circuitlab.model",
    "NACConfig": "circuitlab.config",
    "ReadInConfig": "circuitlab.config_groups",
    "KernelConfig": "circuitlab.config_groups",
    "PenaltyConfig": "circuitlab.config_groups",
    "GeneratorConfig": "circuitlab.config_groups",
    "PriorFitConfig": "circuitlab.config_groups",
    "Circuit": "circuitlab.circuit",
    "CircuitStore": "circuitlab.store",
    "CircuitEdit": "circuitlab.edits",
    "CircuitStoreError": "circuitlab.store",
    "CircuitlabError": "circuitlab.errors",
    "InputError": "circuitlab.errors",
    "prior_targets": "circuitlab.prior_targets",
    "untrained_link_probabilities": "circuitlab.untrained",
}
__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
