"""Options that would silently ruin a run are refused where they enter (issue 60, item 5): on
the command line before a run directory exists, and in Python when a config is built."""

import math
import re

import pytest
from typer.testing import CliRunner

from circuitlab.cli import app
from circuitlab.config import NACConfig
from circuitlab.config_groups import KernelConfig
from circuitlab.mn import MNConfig
from circuitlab.ni import NIConfig
from circuitlab.run_config import TrainConfig


@pytest.mark.parametrize(
    "options, message",
    [
        (["--grad-clip", "0"], "grad_clip must be > 0 .* for no clipping set grad_clip: null"),
        (["--grad-clip", "-1"], "grad_clip must be > 0"),
        (["--warmup-steps", "-5"], "warmup_steps must be non-negative"),
        (["--lr", "0"], "lr must be positive"),
        (["--weight-decay", "-0.1"], "weight_decay must be non-negative"),
        (["-m", "eps=nan"], "eps must be a finite number"),
        (["-m", "eps=0"], "eps must be positive"),
        (["-m", "tau=0"], "tau must be positive"),
        (["-m", "tau=-1"], "tau must be positive"),
        (["-m", "dim=8.5"], "dim must be int"),
        (["-m", "prior_weight=-1"], "prior_weight must be non-negative"),
    ],
)
def test_the_cli_refuses_options_that_would_ruin_a_run(tmp_path, options, message):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["train", "--task", "toy-sets", "--steps", "2", "--out", str(out), *options]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert re.search(message, result.output), result.output
    assert not out.exists()  # refused before the run directory was made


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: NACConfig(kernel=KernelConfig(eps=math.nan)), "eps must be a finite number"),
        (lambda: NACConfig(dim="8"), "dim must be int"),
        (lambda: NACConfig(n_processors=True), "n_processors must be int"),
        (lambda: NACConfig(sig_dim=0), "sig_dim must be positive"),
        (lambda: TrainConfig(grad_clip=0.0), "grad_clip must be > 0"),
        (lambda: TrainConfig(steps=2.5), "steps must be int"),
        (lambda: NIConfig(dim=None), "dim must be int"),
        (lambda: MNConfig(n_examples=10, likelihood_std=math.inf), "must be a finite number"),
    ],
)
def test_configs_built_in_python_are_checked_like_files(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_no_clipping_is_a_documented_choice():
    assert TrainConfig(grad_clip=None).grad_clip is None
    assert TrainConfig.from_dict({"grad_clip": None}).grad_clip is None
