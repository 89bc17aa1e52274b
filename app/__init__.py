"""circuitlab.app: the top-level app/ folder, mapped by pyproject's package-dir."""
