"""Config files that build on another (``base:``): what they resolve to, and the errors."""

from pathlib import Path

import pytest

from circuitlab.options_file import merge_options, read_options

ROOT = Path(__file__).resolve().parents[1]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_file_without_base_reads_as_it_is(tmp_path):
    path = _write(tmp_path / "a.yaml", "steps: 10\nmodel:\n  dim: 8\n")
    assert read_options(path) == {"steps": 10, "model": {"dim": 8}}


def test_an_empty_file_holds_no_options(tmp_path):
    assert read_options(_write(tmp_path / "empty.yaml", "")) == {}


def test_options_replace_the_base_and_mappings_merge_key_by_key(tmp_path):
    _write(
        tmp_path / "base.yaml",
        "task: nlvr\nsteps: 100\ntask_options:\n  pool_size: 6\n  inputs: scene\n"
        "model:\n  dim: 8\n  depth: 2\n  eps: 0.2\n",
    )
    child = _write(
        tmp_path / "child.yaml",
        "base: base.yaml\nsteps: 200\ntask_options:\n  pool_size: 9\nmodel:\n  depth: 4\n",
    )
    assert read_options(child) == {
        "task": "nlvr",
        "steps": 200,
        "task_options": {"pool_size": 9, "inputs": "scene"},
        "model": {"dim": 8, "depth": 4, "kernel": {"eps": 0.2}},  # a NAC's options in groups
    }


def test_a_base_path_is_relative_to_the_file_that_names_it_and_bases_chain(tmp_path):
    _write(tmp_path / "a" / "root.yaml", "steps: 1\nlr: 0.1\nmodel:\n  dim: 8\n")
    _write(tmp_path / "a" / "mid.yaml", "base: root.yaml\nlr: 0.2\nmodel:\n  depth: 3\n")
    leaf = _write(tmp_path / "b" / "leaf.yaml", "base: ../a/mid.yaml\nmodel:\n  dim: 16\n")
    assert read_options(leaf) == {"steps": 1, "lr": 0.2, "model": {"dim": 16, "depth": 3}}


def test_a_non_mapping_value_replaces_a_mapping_of_the_base(tmp_path):
    _write(tmp_path / "base.yaml", "task_options:\n  pool_size: 6\n")
    child = _write(tmp_path / "child.yaml", "base: base.yaml\ntask_options: null\n")
    assert read_options(child) == {"task_options": None}


def test_merging_leaves_its_inputs_unchanged():
    base = {"model": {"dim": 8}, "steps": 1}
    override = {"model": {"depth": 2}}
    assert merge_options(base, override) == {"model": {"dim": 8, "depth": 2}, "steps": 1}
    assert base == {"model": {"dim": 8}, "steps": 1} and override == {"model": {"depth": 2}}


def test_a_missing_base_names_the_file_that_points_at_it(tmp_path):
    child = _write(tmp_path / "child.yaml", "base: gone.yaml\n")
    with pytest.raises(FileNotFoundError, match=r"gone\.yaml does not exist \(the base of .*child"):
        read_options(child)


def test_a_cycle_of_bases_is_an_error(tmp_path):
    _write(tmp_path / "a.yaml", "base: b.yaml\n")
    _write(tmp_path / "b.yaml", "base: a.yaml\n")
    with pytest.raises(ValueError, match="cycle"):
        read_options(tmp_path / "a.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps: [1\n", "not valid YAML"),
        ("- 1\n- 2\n", "must hold a mapping of options, not list"),
        ("base: 3\n", "'base' must be the path of another config file, got 3"),
    ],
    ids=["yaml", "list", "base-not-a-path"],
)
def test_a_bad_file_is_named(tmp_path, text, message):
    path = _write(tmp_path / "bad.yaml", text)
    with pytest.raises(ValueError, match=message):
        read_options(path)


def _dotted(options: dict) -> dict:
    """A NAC's grouped options as "group.field" keys."""
    flat = {}
    for name, value in options.items():
        if isinstance(value, dict) and name != "prior_params":
            flat.update({f"{name}.{field}": v for field, v in value.items()})
        else:
            flat[name] = value
    return flat


def test_the_shipped_configs_with_a_base_add_what_their_comments_say():
    """The one-schedule design is split-sentence.yaml in 88,000 steps with four more model
    options; its lr-3e-4 variant changes only the learning rate, and the pair world's copy of
    that changes only the task and its held-out pool."""
    split = read_options(ROOT / "configs" / "experiments" / "circuits" / "split-sentence.yaml")
    one = read_options(ROOT / "configs" / "experiments" / "circuits" / "one-schedule.yaml")
    slow = read_options(ROOT / "configs" / "experiments" / "circuits" / "one-schedule-lr3e-4.yaml")
    pairs = read_options(ROOT / "configs" / "experiments" / "pairs" / "split-sentence.yaml")
    assert one["steps"] == 88000 and split["steps"] == 16000
    one_options, split_options = _dotted(one["model"]), _dotted(split["model"])
    assert {k: v for k, v in one_options.items() if split_options.get(k) != v} == {
        "generator.split_conditioning": True,
        "generator.signature_tokens": "sentence",
        "penalties.signature_repulsion": 0.1,
        "penalties.repulsion_hinge": 0.1,
        "read_in.weights": "sigmoid",
    }
    assert {k: v for k, v in slow.items() if one.get(k) != v} == {"lr": 0.0003}
    assert pairs["model"] == one["model"] and pairs["task"] == "pairs" and pairs["lr"] == 0.0003
    assert pairs["task_options"] == {**one["task_options"], "held_out_pool_size": 500}
