"""Plausible slips end in one line that names the input and the fix, never a traceback
(issue 60, item 6)."""

import re
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from circuitlab.checkpoint import CHECKPOINT
from circuitlab.cli import app

ROOT = Path(__file__).resolve().parents[1]
PRIORS_NONE = str(ROOT / "checkpoints" / "priors" / "none")
NLVR_SMALL = str(ROOT / "checkpoints" / "nlvr-small")


def _fails_cleanly(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert re.search(message, result.output), result.output


def test_evaluate_out_naming_a_folder(tmp_path):
    _fails_cleanly(
        ["evaluate", NLVR_SMALL, "--nlvr", "nlvr-dev", "--out", str(tmp_path)],
        "is a folder: give a file",
    )


def test_a_gz_file_that_is_not_gzip(tmp_path):
    bad = tmp_path / "dev.json.gz"
    bad.write_bytes(b"plain text, not gzip")
    _fails_cleanly(
        ["evaluate", NLVR_SMALL, "--nlvr", str(bad)],
        r"dev.json.gz: not a readable gzip file",
    )


def test_a_negative_number_of_circuits(tmp_path):
    _fails_cleanly(
        ["export", PRIORS_NONE, "--out", str(tmp_path / "s"), "--n-circuits", "-3"],
        "n-circuits",
    )


def test_a_checkpoint_whose_weights_do_not_fit_its_config(tmp_path):
    state = torch.load(f"{PRIORS_NONE}/{CHECKPOINT}", weights_only=True)
    state["model_config"]["n_processors"] = 64  # edited by hand: the weights are for 128
    (tmp_path / "run").mkdir()
    torch.save(state, tmp_path / "run" / CHECKPOINT)
    _fails_cleanly(
        ["export", str(tmp_path / "run"), "--out", str(tmp_path / "s")],
        "weights do not fit the 'nac' model its config builds",
    )


def test_a_modular_network_on_images_without_a_read_out(tmp_path):
    _fails_cleanly(
        [
            "train", "--model-kind", "mn", "--task", "digits", "--steps", "2",
            "--out", str(tmp_path / "run"),
        ],
        "head must be true with image_shape",
    )  # fmt: skip
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command", ["info", "analyze"])
def test_a_store_path_that_is_a_file(tmp_path, command):
    a_file = tmp_path / "store"
    a_file.write_text("not a store")
    _fails_cleanly([command, str(a_file)], "is a file, not a store directory")


def _small_nac(**options):
    from circuitlab import NAC
    from circuitlab.config import NACConfig

    sizes = dict(n_classes=3, n_processors=6, n_readouts=2, dim=16, head_dim=8, code_dim=8)
    return NAC(NACConfig.from_dict(dict(sizes, sig_dim=4, **options)))


@pytest.mark.parametrize(
    "options, shape, message",
    [
        ({"input_dim": 5}, (2, 5), r"\(batch, tokens, 5\) feature vectors .* \(2, 5\)"),
        ({"input_dim": 5}, (2, 3, 7), r"\(batch, tokens, 5\) .* \(2, 3, 7\)"),
        ({"input_dim": 1, "tokenizer": "patches"}, (2, 16, 16), r"\(batch, 1, height, width\)"),
        ({"input_dim": 1, "tokenizer": "patches"}, (2, 3, 16, 16), r"images .* \(2, 3, 16, 16\)"),
    ],
)
def test_inputs_of_the_wrong_rank_or_width_are_named(options, shape, message):
    model = _small_nac(**options)
    with pytest.raises(ValueError, match=message):
        model(torch.randn(*shape))


def test_a_link_edit_takes_numpy_masks_and_refuses_the_wrong_batch():
    import numpy as np

    from circuitlab.interventions import LinkEdit, run_with_circuit
    from circuitlab.task import Batch

    model = _small_nac(input_dim=5)
    batch = Batch(torch.randn(4, 3, 5), torch.zeros(4, dtype=torch.long))
    u = model.config.n_modules
    every_link_cut = np.ones((u, u), dtype=bool)
    as_numpy = run_with_circuit(model, batch, edit=LinkEdit(cut=every_link_cut))
    as_torch = run_with_circuit(model, batch, edit=LinkEdit(cut=torch.ones(u, u, dtype=bool)))
    torch.testing.assert_close(as_numpy, as_torch, rtol=0, atol=0)
    with pytest.raises(ValueError, match="3 masks for a batch of 4"):
        run_with_circuit(model, batch, edit=LinkEdit(cut=np.ones((3, u, u), dtype=bool)))
    with pytest.raises(ValueError, match=r"\(U, U\) or \(B, U, U\)"):
        LinkEdit(force=np.ones(u))


def test_a_categories_column_of_odd_values_is_read_or_refused_by_row():
    import numpy as np
    import pandas as pd

    from circuitlab.analysis.embedding import single_category_labels
    from circuitlab.store import category_lists

    frame = pd.DataFrame(
        {"id": [0, 1, 2, 3], "categories": [["a", "b"], None, "c", np.array(["d"])]}
    )
    assert category_lists(frame).tolist() == [["a", "b"], [], ["c"], ["d"]]
    assert single_category_labels(frame).to_dict() == {2: "c", 3: "d"}  # "c" not c's letters
    for odd in (3.5, [1, 2]):
        with pytest.raises(ValueError, match="circuit 7: column 'categories' holds"):
            category_lists(pd.DataFrame({"id": [7], "categories": [odd]}))


@pytest.mark.parametrize("value", ["1", None, True])
def test_a_circuit_refuses_eps_that_is_not_a_number(value):
    import numpy as np

    from circuitlab import Circuit

    with pytest.raises(ValueError, match="eps: must be a positive number"):
        Circuit(np.ones((2, 2)), ["processor"] * 2, eps=value)
    with pytest.raises(ValueError, match="truncation: is a cosine distance"):
        Circuit(np.ones((2, 2)), ["processor"] * 2, truncation="0.5")
