"""circuitlab.data.files: the top-level data/ folder (shipped datasets), mapped by pyproject."""
