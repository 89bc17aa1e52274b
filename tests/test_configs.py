"""Every config under configs/ builds the model it names, with each of its model options
reaching that model (a typo or an option the model refuses fails here, not an hour into a
run). Pools are shrunk: the configs' own sizes only change how many examples are drawn."""

from pathlib import Path

import pytest

from circuitlab.options_file import read_options

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").rglob("*.yaml"))
SMALL_POOLS = {
    "pool_size": 16,
    "val_pool_size": 4,
    "held_out_pool_size": 4,
    "extra_pool_size": 4,
    "disjunction_pool_size": 4,
    "contrast_pool_size": 40,
}


def test_configs_are_found():
    assert (
        len(CONFIGS) >= 17
        and ROOT / "configs" / "experiments" / "pairs" / "split-sentence.yaml" in CONFIGS
    )


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT / "configs")))
def test_a_config_builds_its_model_with_every_model_option(path: Path):
    from circuitlab.train import TrainConfig, build_model
    from circuitlab.worlds.tasks import make_task

    values = read_options(path)  # a file with 'base' builds on another
    options = {k: SMALL_POOLS.get(k, v) for k, v in values.get("task_options", {}).items()}
    if options.get("category_triples"):  # two categories of two one-category sentences each
        options.update(pool_size=200, contrast_pool_size=200)
    config = TrainConfig.from_dict({**values, "task_options": options})
    task = make_task(config.task, conditional=config.conditional, **config.task_options)
    model = build_model(config, task)
    built = model.config.to_dict()
    for name, value in values.get("model", {}).items():
        if isinstance(value, dict) and name != "prior_params":  # a group: each field it sets
            for field, setting in value.items():
                assert built[name][field] == setting, f"{path.name}: model.{name}.{field}"
        else:
            assert built[name] == value, f"{path.name}: model.{name}"
    assert sum(p.numel() for p in model.parameters()) > 0


# recipe -> (shipped checkpoint folder, which of its stages: -1 the shipped run itself)
SHIPPED = {
    "nlvr.yaml": ("nlvr", -1),
    "nlvr-small.yaml": ("nlvr-small", -1),
    "pairs/1-general-nouns.yaml": ("pairs", 0),
    "pairs/2-wider-kernel.yaml": ("pairs", 1),
    "pairs/3-logic-contrast.yaml": ("pairs", -1),
}


def _trained_with(folder: str, stage: int) -> dict:
    import json

    checkpoint = ROOT / "checkpoints" / folder
    if stage == -1:
        return json.loads((checkpoint / "config.json").read_text())
    return json.loads((checkpoint / "stages.json").read_text())[stage]["config"]


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_recipe_is_what_its_checkpoint_trained_with(name: str):
    """Every option of the recipe, defaults filled, equals the shipped run's config.json (a
    warm start names a run folder of the recipe's own, not the one the checkpoint came from;
    options that change no number, such as ``compile``, may differ)."""
    import dataclasses

    from circuitlab.run_config import SPEED_ONLY_FIELDS, TrainConfig

    path = ROOT / "configs" / name
    assert "base" not in path.read_text(), f"{name} must read on its own"
    recipe = dataclasses.asdict(TrainConfig.from_dict(read_options(path)))
    trained = dataclasses.asdict(TrainConfig.from_dict(_trained_with(*SHIPPED[name])))
    if recipe["init_from"] is not None:
        assert recipe["init_from"].startswith("runs/") and trained["init_from"]
        recipe["init_from"] = trained["init_from"]
    for name in SPEED_ONLY_FIELDS:
        recipe.pop(name), trained.pop(name)
    assert recipe == trained


def test_config_show_prints_the_resolved_recipe():
    import yaml
    from typer.testing import CliRunner

    from circuitlab.cli import app

    result = CliRunner().invoke(
        app, ["config", "show", "configs/object-images/ring-of-cliques.yaml"]
    )
    assert result.exit_code == 0, result.output
    shown = yaml.safe_load(result.output)
    assert shown["model"]["prior"] == "ring_of_cliques"
    assert shown["model"]["n_processors"] == 128  # from its base, nac.yaml
    assert shown["weight_decay"] == 0.01  # a TrainConfig default
    missing = CliRunner().invoke(app, ["config", "show", "configs/none.yaml"])
    assert missing.exit_code == 2 and "does not exist" in missing.output
