"""``python -m circuitlab`` (also what ``torchrun -m circuitlab`` runs)."""

from circuitlab.cli import app

app()
