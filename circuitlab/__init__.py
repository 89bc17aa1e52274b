"""circuitlab: train Neural Attentive Circuits and look inside the circuits they learn."""

from circuitlab import priors
from circuitlab.circuit import Circuit
from circuitlab.config import NACConfig
from circuitlab.model import NAC
from circuitlab.store import CircuitStore, CircuitStoreError

__all__ = ["NAC", "Circuit", "CircuitStore", "CircuitStoreError", "NACConfig", "priors"]
__version__ = "0.1.0"
