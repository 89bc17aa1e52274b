"""circuitlab.app: lives in the top-level app/ folder (mapped by pyproject package-dir)."""
