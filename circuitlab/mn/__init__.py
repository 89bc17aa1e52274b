"""Modular Networks (Kirsch, Kunze and Barber, NeurIPS 2018): a controller picks K of M modules
in every layer per input, trained by generalised Viterbi EM (or the REINFORCE and noisy top-k
baselines)."""

from circuitlab.mn.config import MNConfig
from circuitlab.mn.model import ModularCircuit, ModularNetwork

__all__ = ["MNConfig", "ModularCircuit", "ModularNetwork"]
