"""The lab: the generated worlds (the shapes world, the pair world, ListOps, Sort-of-CLEVR,
procedural object images) and the tasks that train models on them and on the shipped datasets
(``circuitlab.worlds.tasks``). Training, evaluation and export read them; the NAC, the store,
the analysis layer and the app never import them (tests/test_layers.py): a store's scenes are
read through ``circuitlab.data``, and the app gets a model's task from ``circuitlab.loading``."""
