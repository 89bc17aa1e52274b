"""Where do NLVR models fail on the held-out world? Accuracy by reasoning category, by the
number of categories a sentence combines, and by scene kind (scattered or towers).

For each trained ``nlvr`` run, the same held-out world examples (new sentences on new scenes,
``circuitlab.nlvr_eval.WORLD_HELDOUT_SEED``) are scored with the run's own circuits; a sentence
counts in every category it has.

    python bench/world_categories.py RUN [RUN ...] [--examples 3000] [--append]
        [--scenes nlvr-test]

Rows go to bench/results/world_categories.csv, a column per run (its directory's name); with
--append the columns of runs already there are kept (a run measured again replaces its own).
The Markdown table is printed too.

With ``--scenes FILE`` (an NLVR-format file: nlvr-test, nlvr-dev) the held-out sentences are
put on that file's real scenes instead of the world's, labelled by their logical forms and
balanced per sentence (``NLVRWorld.validation_on_scenes``); rows go to
world_categories_FILE_scenes.csv. Set beside NLVR accuracy on the same scenes, it tells what a
model loses to real scenes from what it loses to real wording.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
from common import RESULTS, pipe_table, write_table

from circuitlab.data.nlvr import read_nlvr
from circuitlab.nlvr_eval import WORLD_HELDOUT_SEED, full_task
from circuitlab.train import load_model, predict_logits
from circuitlab.worlds.world import Scene

NAME = "world_categories"


def group_accuracies(
    run: Path, n_examples: int, scenes_from: str | None = None
) -> dict[str, tuple[int, float]]:
    """group -> (examples, accuracy) for one run; held-out sentences on the world's scenes, or
    on those of the NLVR-format file ``scenes_from``."""
    model, config = load_model(run)
    task = full_task(config)
    if scenes_from is None:
        examples = task.validation_examples(n_examples, seed=WORLD_HELDOUT_SEED)
    else:
        scenes = [Scene(e.boxes) for e in read_nlvr(scenes_from)]
        examples = task.validation_on_scenes(scenes, n_examples, seed=WORLD_HELDOUT_SEED)
    towers = {s.text: s.towers for s in task.val_pool}
    batch = task.batch_for([e.to_nlvr(f"w{i}-0") for i, e in enumerate(examples)])
    correct = (predict_logits(model, batch).argmax(-1) == batch.labels).numpy()
    groups: dict[str, list[bool]] = defaultdict(list)
    for example, right in zip(examples, correct, strict=True):
        n = len(example.categories)
        keys = ["overall", "towers" if towers[example.sentence] else "scattered"]
        keys += [f"{n if n < 4 else '4+'} categories", *example.categories]
        for key in keys:
            groups[key].append(bool(right))
    return {key: (len(v), float(np.mean(v))) for key, v in groups.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--append", action="store_true", help="keep other runs' columns")
    parser.add_argument(
        "--scenes", help="an NLVR-format file whose real scenes replace the world's (nlvr-test)"
    )
    args = parser.parse_args()
    name = NAME if args.scenes is None else f"{NAME}_{Path(args.scenes).stem}_scenes"
    per_run = {run.name: group_accuracies(run, args.examples, args.scenes) for run in args.runs}
    groups = sorted(next(iter(per_run.values())))
    rows = [
        {
            "group": group,
            "examples": next(iter(per_run.values()))[group][0],
            **{name: accuracies[group][1] for name, accuracies in per_run.items()},
        }
        for group in groups
    ]
    frame = pd.DataFrame(rows)
    if args.append and (RESULTS / f"{name}.csv").is_file():
        frame = with_earlier_columns(frame, pd.read_csv(RESULTS / f"{name}.csv"))
    where = "world scenes" if args.scenes is None else f"{args.scenes}'s scenes"
    write_table(
        frame.to_dict("records"),
        name,
        f"held-out world sentences on {where}, accuracy by group ({args.examples} draws)",
    )
    print()
    print(pipe_table(frame))


def with_earlier_columns(new: pd.DataFrame, earlier: pd.DataFrame) -> pd.DataFrame:
    """``new``'s columns after ``earlier``'s runs that ``new`` does not measure again, joined
    on the group. Raises ValueError when the groups' example counts differ (another
    --examples)."""
    joined = earlier.merge(new[["group", "examples"]], on="group", suffixes=("", "_new"))
    if len(joined) != len(new) or (joined["examples"] != joined["examples_new"]).any():
        raise ValueError(
            "the earlier table counts other examples per group: measure with its --examples"
        )
    kept = [c for c in earlier.columns if c not in new.columns]
    return new.merge(earlier[["group", *kept]], on="group")[
        ["group", "examples", *kept, *[c for c in new.columns if c not in ("group", "examples")]]
    ]


if __name__ == "__main__":
    main()
