"""Every config under configs/ builds the model it names, with each of its model options
reaching that model (a typo or an option the model refuses fails here, not an hour into a
run). Pools are shrunk: the configs' own sizes only change how many examples are drawn."""

from pathlib import Path

import pytest

from circuitlab.options_file import read_options

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").rglob("*.yaml"))
SMALL_POOLS = {"pool_size": 16, "val_pool_size": 4, "held_out_pool_size": 4, "extra_pool_size": 4}


def test_configs_are_found():
    assert len(CONFIGS) >= 17 and ROOT / "configs" / "pairs" / "split-sentence.yaml" in CONFIGS


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT / "configs")))
def test_a_config_builds_its_model_with_every_model_option(path: Path):
    from circuitlab.tasks import make_task
    from circuitlab.train import TrainConfig, build_model

    values = read_options(path)  # a file with 'base' builds on another
    options = {k: SMALL_POOLS.get(k, v) for k, v in values.get("task_options", {}).items()}
    config = TrainConfig.from_dict({**values, "task_options": options})
    task = make_task(config.task, conditional=config.conditional, **config.task_options)
    model = build_model(config, task)
    built = model.config.to_dict()
    for name, value in values.get("model", {}).items():
        assert built[name] == value, f"{path.name}: model.{name}"
    assert sum(p.numel() for p in model.parameters()) > 0
