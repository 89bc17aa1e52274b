"""NACConfig's groups: at most 25 top-level fields, and the flat names of earlier versions read
into their groups (configs, checkpoints, -m options)."""

import dataclasses
import json
from pathlib import Path

import pytest

from circuitlab.config import NACConfig
from circuitlab.config_groups import (
    FLAT_NAMES,
    GROUPS,
    GeneratorConfig,
    KernelConfig,
    nest_flat_names,
)
from circuitlab.options_file import read_options
from circuitlab.run_config import TrainConfig

ROOT = Path(__file__).resolve().parents[1]


def test_the_top_level_holds_at_most_25_fields_and_every_group_is_one_of_them():
    names = [spec.name for spec in dataclasses.fields(NACConfig)]
    assert len(names) <= 25
    assert set(GROUPS) <= set(names)
    for group, cls in GROUPS.items():
        assert isinstance(getattr(NACConfig(), group), cls)


def test_every_flat_name_is_a_field_of_its_group_and_none_is_a_top_level_field():
    top = {spec.name for spec in dataclasses.fields(NACConfig)}
    for flat, (group, name) in FLAT_NAMES.items():
        assert name in {spec.name for spec in dataclasses.fields(GROUPS[group])}, flat
        assert flat not in top
    every_grouped = {(g, s.name) for g, c in GROUPS.items() for s in dataclasses.fields(c)}
    assert set(FLAT_NAMES.values()) == every_grouped  # each grouped field has one flat name


def test_flat_and_grouped_options_build_the_same_config():
    flat = dict(eps=0.25, generator_dim=48, read_in_weights="sigmoid", conditional=True)
    grouped = dict(kernel={"eps": 0.25}, generator={"dim": 48}, read_in={"weights": "sigmoid"})
    assert NACConfig.from_dict(flat) == NACConfig.from_dict({**grouped, "conditional": True})
    config = NACConfig.from_dict(flat)
    assert config.kernel == KernelConfig(eps=0.25)
    assert config.generator == GeneratorConfig(dim=48)
    assert NACConfig.from_dict(config.to_dict()) == config  # the file form round-trips


def test_an_option_given_flat_and_grouped_is_refused_by_name():
    with pytest.raises(ValueError, match="'eps' is kernel.eps"):
        nest_flat_names({"eps": 0.2, "kernel": {"eps": 0.3}})


def test_a_bad_value_in_a_group_names_the_group_and_the_field():
    with pytest.raises(ValueError, match=r"NACConfig.kernel: KernelConfig.eps must be"):
        NACConfig.from_dict({"kernel": {"eps": "wide"}})
    with pytest.raises(ValueError, match=r"unknown KernelConfig fields \['epsilon'\]"):
        NACConfig.from_dict({"kernel": {"epsilon": 0.2}})
    with pytest.raises(ValueError, match="needs a conditional NAC"):
        NACConfig.from_dict({"token_noise": 1.0})


def test_a_flat_config_builds_on_a_grouped_base(tmp_path):
    (tmp_path / "base.yaml").write_text("model:\n  kernel:\n    eps: 0.2\n    sample: false\n")
    (tmp_path / "child.yaml").write_text("base: base.yaml\nmodel:\n  eps: 0.4\n")
    assert read_options(tmp_path / "child.yaml")["model"] == {
        "kernel": {"eps": 0.4, "sample": False}
    }


def test_a_flat_model_mapping_is_kept_in_groups_by_train_config():
    assert TrainConfig(model={"dim": 16, "eps": 0.3}).model == {
        "dim": 16,
        "kernel": {"eps": 0.3},
    }
    # another kind's options are its own: an NI's truncation is not a NAC kernel's
    ni = TrainConfig(model_kind="ni", model={"truncation": 0.5})
    assert ni.model == {"truncation": 0.5}


def test_every_shipped_checkpoints_options_load_into_the_config_they_were_trained_with():
    for config_file in sorted(ROOT.glob("checkpoints/*/config.json")):
        values = json.loads(config_file.read_text())
        if values.get("model_kind", "nac") != "nac":
            continue
        model = TrainConfig.from_dict(values).model
        flat_in_file = set(values["model"]) & set(FLAT_NAMES)
        for flat in flat_in_file:
            group, name = FLAT_NAMES[flat]
            assert model[group][name] == values["model"][flat], (config_file, flat)
