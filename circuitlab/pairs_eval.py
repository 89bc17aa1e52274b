"""Score a pair-world model (``--task pairs``) on its held-out examples: new sentences about the
training nouns (split ``val``) and sentences about the nouns no training example showed
(``held_out``), each on new pairs of images. Every pair-world table reads the same examples
(``PAIRS_HELDOUT_SEED``)."""

from __future__ import annotations

from circuitlab.model import NAC
from circuitlab.tasks import make_task
from circuitlab.tasks.pairs import PairWorldTask
from circuitlab.train import TrainConfig, predict_logits

PAIRS_HELDOUT_SEED = 12345
# the split of the pair world's task -> the name its accuracy goes by in tables and results.json
HELDOUT_SPLITS = {"val": "heldout_sentences", "held_out": "heldout_nouns"}


def pairs_task(config: TrainConfig) -> PairWorldTask:
    """The run's pair-world task with its own pools (so its held-out sentences and nouns are the
    ones the run never trained on)."""
    if config.task != "pairs":
        raise ValueError(
            f"this checkpoint was trained on task {config.task!r}; the pair world's held-out "
            "examples need a model trained with --task pairs"
        )
    return make_task("pairs", conditional=config.conditional, **config.task_options)


def heldout_accuracies(
    model: NAC, task: PairWorldTask, n: int = 4000, seed: int = PAIRS_HELDOUT_SEED
) -> dict[str, float]:
    """Accuracy on ``n`` held-out examples of each split: {"heldout_sentences": ...,
    "heldout_nouns": ...}."""
    out = {}
    for split, name in HELDOUT_SPLITS.items():
        batch = task.batch_for(task.validation_examples(n, seed, split=split))
        out[name] = float((predict_logits(model, batch).argmax(-1) == batch.labels).float().mean())
    return out
