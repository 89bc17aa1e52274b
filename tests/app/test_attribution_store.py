"""`circuitlab attribute` on a real store: the columns it writes are the model's own numbers
(a cut of the same link through the app's intervener), and it refuses what it cannot run."""

import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from circuitlab.app.attribution_view import attribute_store, store_links
from circuitlab.app.stores import AppStores
from circuitlab.cli import app as cli
from circuitlab.edits import CircuitEdit
from circuitlab.store import CircuitStore


@pytest.fixture(scope="module")
def attributed(nlvr2_store, tmp_path_factory):
    """A copy of the demo's NLVR store with its first 6 examples attributed."""
    folder = tmp_path_factory.mktemp("attributed")
    shutil.copytree(nlvr2_store.parent / "nlvr", folder / "nlvr")
    store, summary = attribute_store(folder / "nlvr", "checkpoints/nlvr", limit=6, progress=False)
    return folder, store, summary


def test_the_columns_hold_the_exact_cut_of_each_present_link(attributed):
    folder, store, summary = attributed
    reopened = CircuitStore.open(folder / "nlvr")
    frame = reopened.frame
    done = frame[frame["attr_answer"].notna()]
    assert len(done) == 6 and reopened.analysis_params("attribution")["examples"] == 6
    links = store_links(reopened)
    intervener = AppStores(folder, checkpoint="checkpoints/nlvr").intervener("nlvr")
    row = int(done.index[0])
    effects = np.asarray(done["attr_link_effect"].iloc[0], dtype=float)
    present = np.flatnonzero(np.isfinite(effects))
    p = reopened.link_probabilities([row])[0]
    assert (p[links[present, 0], links[present, 1]] > 0.5).all()
    before, _ = intervener.scene(row, CircuitEdit())
    answer = int(done["attr_answer"].iloc[0])
    p_answer = before if answer == 1 else 1 - before
    assert done["attr_p_answer"].iloc[0] == pytest.approx(p_answer, abs=1e-5)
    strongest = present[np.argmax(effects[present])]
    i, j = (int(x) for x in links[strongest])
    _, after = intervener.scene(row, CircuitEdit(cut=((i, j),)))
    after_answer = after if answer == 1 else 1 - after
    assert effects[strongest] == pytest.approx(p_answer - after_answer, abs=1e-5)
    # the minimal circuit, run again through the app's path, keeps the answer
    members = np.asarray(done["attr_minimal"].iloc[0], dtype=int)
    rest = np.setdiff1d(np.arange(len(links)), members)
    _, kept = intervener.scene(row, CircuitEdit(cut=tuple(map(tuple, links[rest].tolist()))))
    assert (kept > 0.5) == bool(answer) and done["attr_minimal_keeps"].iloc[0]
    assert summary.loc["present links", "mean"] > 0


def test_the_command_refuses_a_store_without_scenes_and_a_bad_limit(nlvr2_store, tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["attribute", str(nlvr2_store), "--checkpoint", "checkpoints/nlvr"])
    assert result.exit_code == 2 and "holds no scenes" in result.output
    result = runner.invoke(
        cli, ["attribute", str(nlvr2_store), "--checkpoint", "checkpoints/nlvr", "--limit", "0"]
    )
    assert result.exit_code == 2 and "--limit must be >= 1" in result.output
