"""Building blocks of NACs: ModFC/ModFFN, the signature kernel, SKMDPA, read-in, generators."""

from circuitlab.nn.generators import ConditionalGenerator, UnconditionalGenerator
from circuitlab.nn.kernel import SignatureKernel, link_log_probability, link_probability
from circuitlab.nn.modfc import ModFC, ModFFN
from circuitlab.nn.readin import ReadIn
from circuitlab.nn.skmdpa import SKMDPA
from circuitlab.nn.tokenizers import ByteTokenizer, FeatureTokenizer, PatchTokenizer

__all__ = [
    "ByteTokenizer",
    "ConditionalGenerator",
    "FeatureTokenizer",
    "ModFC",
    "ModFFN",
    "PatchTokenizer",
    "ReadIn",
    "SKMDPA",
    "SignatureKernel",
    "UnconditionalGenerator",
    "link_log_probability",
    "link_probability",
]
