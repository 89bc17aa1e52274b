"""Neural Interpreters (Rahaman et al., NeurIPS 2021): tokens routed to functions by type."""

from circuitlab.ni.config import NIConfig
from circuitlab.ni.model import NeuralInterpreter, Script

__all__ = ["NIConfig", "NeuralInterpreter", "Script"]
