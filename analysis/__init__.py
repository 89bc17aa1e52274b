"""circuitlab.analysis: lives in the top-level analysis/ folder (mapped by pyproject package-dir)."""
