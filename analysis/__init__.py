"""circuitlab.analysis: the top-level analysis/ folder, mapped by pyproject's package-dir."""
