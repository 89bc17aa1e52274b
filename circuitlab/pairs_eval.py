"""Score a pair-world model (``--task pairs``) on its held-out examples: new sentences about the
training nouns (split ``val``) and sentences about the nouns no training example showed
(``held_out``), each on new pairs of images. Every pair-world table reads the same examples
(``PAIRS_HELDOUT_SEED``). ``input_probes`` asks which object features the model reads: the
accuracy left when each kind (image, colour, noun) is scrambled."""

from __future__ import annotations

import dataclasses

import torch

from circuitlab.interventions import accuracy
from circuitlab.model import NAC
from circuitlab.predict import predict_logits
from circuitlab.run_config import TrainConfig
from circuitlab.task import Batch
from circuitlab.worlds.pair_tokens import ATTRIBUTES, IMAGE_COLUMNS, N_ATTRIBUTES
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.pairs import PairWorldTask

__all__ = [
    "HELDOUT_SPLITS",
    "PAIRS_HELDOUT_SEED",
    "SCRAMBLES",
    "heldout_accuracies",
    "input_probes",
    "pairs_task",
    "scramble_objects",
]

PAIRS_HELDOUT_SEED = 12345
# the split of the pair world's task -> the name its accuracy goes by in tables and results.json
HELDOUT_SPLITS = {"val": "heldout_sentences", "held_out": "heldout_nouns"}


def pairs_task(config: TrainConfig) -> PairWorldTask:
    """The run's pair-world task with its own pools (so its held-out sentences and nouns are the
    ones the run never trained on).

    Parameters
    ----------
    config
        The run's TrainConfig.
    """
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
    "heldout_nouns": ...}.

    Parameters
    ----------
    model
        A conditional pair-world model.
    task
        Its full task (``pairs_task``).
    n
        Examples of each split.
    seed
        Seed of the examples.
    """
    out = {}
    for split, name in HELDOUT_SPLITS.items():
        batch = task.batch_for(task.validation_examples(n, seed, split=split))
        out[name] = accuracy(predict_logits(model, batch), batch.labels)
    return out


# object features scrambled by ``input_probes``: each probe -> what it does to the object tokens
SCRAMBLES = {
    "images_swapped": "every object moved to the other image (its image one-hot flipped)",
    "colours_zeroed": "every object's colour one-hot set to 0",
    "nouns_shuffled": "the noun vectors permuted among all objects of the batch",
}


def scramble_objects(
    tokens: torch.Tensor, mask: torch.Tensor, probe: str, generator: torch.Generator
) -> torch.Tensor:
    """A copy of pair-world object tokens (B, N, N_ATTRIBUTES + dim), mask (B, N), with one kind
    of feature scrambled (``SCRAMBLES``); padding tokens stay as they are.

    Parameters
    ----------
    tokens, mask
        As above.
    probe
        The feature scrambled (``SCRAMBLES``).
    generator
        The random generator of the scramble.
    """
    if probe not in SCRAMBLES:
        raise ValueError(f"probe must be one of {sorted(SCRAMBLES)}, got {probe!r}")
    if tokens.shape[-1] <= N_ATTRIBUTES:
        raise ValueError(
            f"pair-world object tokens have {N_ATTRIBUTES} attributes and a noun vector; got "
            f"width {tokens.shape[-1]} (a batch of inputs='scene' for a conditional model?)"
        )
    out = tokens.clone()
    real = mask.bool()
    if probe == "images_swapped":
        out[..., IMAGE_COLUMNS] = tokens[..., IMAGE_COLUMNS[::-1]]
    elif probe == "colours_zeroed":
        colours = [i for i, name in enumerate(ATTRIBUTES) if name.startswith("colour_")]
        out[..., colours] = 0.0
    else:
        nouns = tokens[..., N_ATTRIBUTES:][real]  # (n_real, dim)
        order = torch.randperm(len(nouns), generator=generator)
        out[..., N_ATTRIBUTES:][real] = nouns[order]
    out[~real] = tokens[~real]
    return out


def input_probes(model: NAC, batch: Batch, seed: int = 0) -> dict[str, float]:
    """What the executor reads of each object: accuracy on a conditional pair-world ``batch`` as
    given ("as_given") and with each of ``SCRAMBLES`` applied to its object tokens. A feature the
    model reads costs accuracy when scrambled; one it ignores costs none.

    Parameters
    ----------
    model
        A conditional pair-world model.
    batch
        Its examples.
    seed
        Seed of the scrambles.
    """
    if batch.input_mask is None or batch.conditioning is None:
        raise ValueError("input_probes needs a conditional pair-world batch (objects as inputs)")
    generator = torch.Generator().manual_seed(seed)

    out = {"as_given": accuracy(predict_logits(model, batch), batch.labels)}
    for probe in SCRAMBLES:
        tokens = scramble_objects(batch.inputs, batch.input_mask, probe, generator)
        scrambled = dataclasses.replace(batch, inputs=tokens)
        out[probe] = accuracy(predict_logits(model, scrambled), scrambled.labels)
    return out
