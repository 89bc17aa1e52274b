"""The ``circuitlab`` command line: train, export, inspect, analyse and serve.

The top layer of the package: it wires the core, ``circuitlab.analysis`` and ``circuitlab.app``
together, and nothing below it imports it. One module per command group; each registers its
commands on the shared Typer ``app`` (``circuitlab.cli.common``) when imported, in the order
``circuitlab --help`` lists them.
"""

# each registers its commands; the order of registration is the order of --help
from circuitlab.cli import training, export, interventions  # noqa: I001, F401
from circuitlab.cli import nlvr2, config, info, analysis, serve  # noqa: F401
from circuitlab.cli.common import app

__all__ = ["app"]
