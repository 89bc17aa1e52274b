"""The tasks: seeded sources of training batches and of conditioning inputs for circuit export,
one per world or dataset, by name (``TASKS``, ``make_task``); each follows
``circuitlab.task.Task``."""

from __future__ import annotations

from typing import Any

from circuitlab.task import Task
from circuitlab.worlds.tasks.boolean import FuzzyBoolean
from circuitlab.worlds.tasks.digit_renditions import DigitRenditions
from circuitlab.worlds.tasks.digits import Digits
from circuitlab.worlds.tasks.listops import ListOps
from circuitlab.worlds.tasks.mixture import MixtureRegression
from circuitlab.worlds.tasks.nlvr import NLVRWorld
from circuitlab.worlds.tasks.nlvr2 import NLVR2Features
from circuitlab.worlds.tasks.object_images import ObjectImages
from circuitlab.worlds.tasks.pairs import PairWorldTask
from circuitlab.worlds.tasks.sort_of_clevr import SortOfClevrTask
from circuitlab.worlds.tasks.toy_sets import ToySets

TASKS = {
    "toy-sets": ToySets,
    "nlvr": NLVRWorld,
    "nlvr2": NLVR2Features,
    "pairs": PairWorldTask,
    "fuzzy-boolean": FuzzyBoolean,
    "mixture-regression": MixtureRegression,
    "digits": Digits,
    "digit-renditions": DigitRenditions,
    "sort-of-clevr": SortOfClevrTask,
    "object-images": ObjectImages,
    "listops": ListOps,
}


def make_task(name: str, *, conditional: bool = False, **options: Any) -> Task:
    """The task called ``name`` (one of ``TASKS``), with task-specific ``options``.

    Parameters
    ----------
    name
        The task's name.
    conditional
        Give each example its conditioning (a sentence), for a conditional model.
    **options
        The task class's keyword arguments (``TrainConfig.task_options``).

    Raises
    ------
    ValueError
        No task is called ``name`` (the message lists those there are), or ``options`` the
        task does not take.
    """
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; available: {sorted(TASKS)}")
    try:
        return TASKS[name](conditional=conditional, **options)
    except TypeError as err:
        raise ValueError(f"bad task_options for {name!r}: {err}") from err


__all__ = [
    "TASKS",
    "DigitRenditions",
    "Digits",
    "FuzzyBoolean",
    "ListOps",
    "MixtureRegression",
    "NLVR2Features",
    "NLVRWorld",
    "ObjectImages",
    "PairWorldTask",
    "SortOfClevrTask",
    "ToySets",
    "make_task",
]
