"""The checkpoint format (circuitlab/checkpoint.py) and the atomic writes all files go through."""

import pytest
import torch

from circuitlab.checkpoint import (
    CHECKPOINT,
    CHECKPOINT_VERSION,
    model_from_checkpoint,
    read_checkpoint,
    restore_training,
    save_checkpoint,
)
from circuitlab.config import NACConfig
from circuitlab.files import write_atomic
from circuitlab.model import NAC

SMALL = {"input_dim": 5, "n_classes": 3, "n_processors": 6, "n_readouts": 2, "dim": 16}


def _saved_run(tmp_path):
    torch.manual_seed(0)
    model = NAC(NACConfig(**SMALL, head_dim=8, code_dim=8, sig_dim=4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0 / (1 + s))
    model(torch.randn(4, 3, 5)).sum().backward()
    optimizer.step()
    scheduler.step()
    path = tmp_path / CHECKPOINT
    save_checkpoint(
        path,
        model=model,
        optimizer=optimizer,
        scheduler=scheduler,
        train_config={"task": "toy-sets"},
        step=7,
        elapsed_s=1.5,
    )
    return model, optimizer, path


def test_a_saved_checkpoint_reads_back_the_same_model_and_training_state(tmp_path):
    model, optimizer, path = _saved_run(tmp_path)
    state = read_checkpoint(tmp_path)  # a run directory finds its checkpoint.pt
    assert state["format_version"] == CHECKPOINT_VERSION and state["train_config"]["task"]
    restored = model_from_checkpoint(state).eval()
    x = torch.randn(2, 3, 5)
    torch.testing.assert_close(restored(x), model.eval()(x), rtol=0, atol=0)

    fresh = NAC(model.config)
    fresh_optimizer = torch.optim.AdamW(fresh.parameters(), lr=1e-2)
    fresh_scheduler = torch.optim.lr_scheduler.LambdaLR(fresh_optimizer, lambda s: 1.0)
    assert restore_training(state, fresh, fresh_optimizer, fresh_scheduler) == (7, 1.5)
    assert fresh_scheduler.last_epoch == 1
    assert fresh_optimizer.state_dict()["state"].keys() == optimizer.state_dict()["state"].keys()
    assert [p.name for p in tmp_path.iterdir()] == [CHECKPOINT]  # no temporary file left


def test_foreign_and_other_version_files_are_refused_by_name(tmp_path):
    _, _, path = _saved_run(tmp_path)
    state = torch.load(path, weights_only=True)
    state["format_version"] = CHECKPOINT_VERSION + 1
    torch.save(state, path)
    with pytest.raises(ValueError, match=f"format {CHECKPOINT_VERSION + 1}.*retrain"):
        read_checkpoint(path)
    torch.save([1, 2, 3], path)
    with pytest.raises(ValueError, match="not a circuitlab checkpoint"):
        read_checkpoint(path)
    with pytest.raises(FileNotFoundError, match="give a run directory"):
        read_checkpoint(tmp_path / "elsewhere")


class _Payload:
    """Unpickling this runs ``open(marker, "w")``: the shape of any code-running pickle."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_payload_in_a_checkpoint_does_not_run(tmp_path):
    _, _, path = _saved_run(tmp_path)
    marker = tmp_path / "payload-ran"
    state = torch.load(path, weights_only=True)
    state["train_config"]["note"] = _Payload(marker)
    torch.save(state, path)
    with pytest.raises(ValueError, match="run as code.*weights_only=True"):
        read_checkpoint(path)
    assert not marker.exists()
    # the same file loaded the unsafe way does run it: the test's payload is real
    torch.load(path, weights_only=False)
    assert marker.exists()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "store.json"
    target.write_text("old")

    def half_then_fail(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, half_then_fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["store.json"]
    write_atomic(target, lambda tmp: tmp.write_text("new"))
    assert target.read_text() == "new"


def test_corrupt_and_empty_checkpoints_are_one_clear_error_everywhere(tmp_path):
    from typer.testing import CliRunner

    from circuitlab.cli import app

    _saved_run(tmp_path)
    path = tmp_path / CHECKPOINT
    runner = CliRunner()
    for content, message in ((b"", "is empty"), (b"not a zip file at all", "is corrupt")):
        path.write_bytes(content)
        with pytest.raises(ValueError, match=message):
            read_checkpoint(tmp_path)
        (tmp_path / "config.json").write_text("{}")
        for args in (
            ["evaluate", str(tmp_path), "--nlvr", "nlvr-dev"],
            ["export", str(tmp_path), "--out", str(tmp_path / "store")],
            ["train", "--out", str(tmp_path), "--resume", "--no-progress"],
        ):
            result = runner.invoke(app, args)
            assert result.exit_code == 2, (args, result.output)
            assert message in result.output and "Traceback" not in result.output, args
