"""The object-images models the graph-claims benches share (object_priors, object_dropping,
object_ladder, ...).

Each model is a recipe in configs/object-images/ (the ladder's middle rungs in
configs/experiments/object-images/) trained with a seed into runs/objects/MODEL-seedS (resumed if
interrupted; a finished run is only loaded), so each bench trains only what another has not
already trained. Train them ahead, two at a time on 2 cores:

    OMP_NUM_THREADS=1 python bench/object_runs.py --models none planted_partition --seeds 0 1 2

(about 50 minutes a NAC run of 4,000 steps with two in parallel on the 2-core reference
machine.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from common import RunSet, initial_model

from circuitlab.model import NAC
from circuitlab.train import TrainConfig

# model name -> recipe under configs/; "none" is the NAC with no prior (the Fig. 3 control);
# modfc and frozen_graph are the middle rungs of the ablation ladder (Table 1); processors_U the
# no-prior NAC with U processors instead of 128 (object_scaling); ring_of_cliques_w10, _w30 and
# _w100 the ring's prior at weight 10 (its first recipe), 30 (its second) and 100, from random
# signatures; ring_of_cliques_seeded the second recipe with its signatures seeded from the prior
# before training (the recipe, ring_of_cliques, then moves them at the base learning rate)
OBJECTS = RunSet(
    Path("runs/objects"),
    {
        "none": "object-images/nac.yaml",
        "scale_free": "object-images/scale-free.yaml",
        "planted_partition": "object-images/planted-partition.yaml",
        "ring_of_cliques": "object-images/ring-of-cliques.yaml",
        "erdos_renyi": "object-images/erdos-renyi.yaml",
        "perceiver_io": "object-images/perceiver-io.yaml",
        "modfc": "experiments/object-images/modfc.yaml",
        "frozen_graph": "experiments/object-images/frozen-graph.yaml",
        "processors_32": "experiments/object-images/processors-32.yaml",
        "processors_64": "experiments/object-images/processors-64.yaml",
        "processors_256": "experiments/object-images/processors-256.yaml",
        "ring_of_cliques_w10": "experiments/object-images/ring-of-cliques-w10.yaml",
        "ring_of_cliques_w30": "experiments/object-images/ring-of-cliques-w30.yaml",
        "ring_of_cliques_w100": "experiments/object-images/ring-of-cliques-w100.yaml",
        "ring_of_cliques_seeded": "experiments/object-images/ring-of-cliques-seeded.yaml",
    },
    how_to_train="python bench/object_runs.py --models NAME --seeds SEED",
)
PRIOR_MODELS = ("none", "scale_free", "planted_partition", "ring_of_cliques", "erdos_renyi")
# the ablation ladder, bottom rung first: Perceiver IO, + ModFC, + a sparse frozen graph, NAC,
# NAC + each prior
LADDER = ("perceiver_io", "modfc", "frozen_graph", *PRIOR_MODELS)


# the seed-0 models shipped weights-only (make demo exports them to stores/priors)
SHIPPED = Path("checkpoints/priors")


def shipped_seed0(name: str) -> tuple[NAC, TrainConfig, dict] | None:
    """(model, its TrainConfig, its summary) of the shipped seed-0 run of ``name``, or None
    when ``name`` is not shipped."""
    from circuitlab.train import load_model

    if not (SHIPPED / name).is_dir():
        return None
    model, config = load_model(SHIPPED / name)
    return model, config, json.loads((SHIPPED / name / "summary.json").read_text())


def processor_p(model: NAC) -> np.ndarray:
    """The (U, U) link probabilities among ``model``'s processors."""
    u = model.config.n_processors
    return model.circuit().link_probability()[:u, :u]


def initial_processor_p(config: TrainConfig) -> np.ndarray:
    """The same for the run's model before its first step."""
    return processor_p(initial_model(config))


if __name__ == "__main__":
    OBJECTS.train_main(__doc__.splitlines()[0], list(PRIOR_MODELS))
