"""scripts/pairs_stages.sh and nlvr_circuit_stages.sh (both on scripts/stages.sh): their stages
in order, each from the one before, resumed or kept when run again (a stand-in ``circuitlab``
records its calls)."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE = """#!/usr/bin/env bash
# records its arguments; a training run leaves a checkpoint, and a summary unless told to fail
echo "$*" >> "$CALLS"
out=""; prev=""
for arg in "$@"; do [ "$prev" = "--out" ] && out=$arg; prev=$arg; done
mkdir -p "$out"; touch "$out/checkpoint.pt"
if [ -n "${FAIL_AT:-}" ] && [[ "$out" == *"$FAIL_AT"* ]]; then exit 1; fi
echo '{}' > "$out/summary.json"
"""


def _run(
    tmp_path: Path, script: str = "pairs_stages.sh", seed: str = "7", **env: str
) -> subprocess.CompletedProcess:
    fake = tmp_path / "circuitlab"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    environ = {**os.environ, "CIRCUITLAB": str(fake), "CALLS": str(tmp_path / "calls"), **env}
    path = ROOT / "scripts" / script
    return subprocess.run(
        ["bash", str(path), str(tmp_path / "runs"), seed], env=environ, capture_output=True
    )


def test_stages_run_in_order_each_from_the_last_and_resume(tmp_path):
    assert _run(tmp_path, FAIL_AT="2-wider-kernel").returncode != 0
    calls = (tmp_path / "calls").read_text().splitlines()
    runs = tmp_path / "runs"
    assert len(calls) == 2 and "--init-from" not in calls[0]
    assert "configs/pairs/1-general-nouns.yaml" in calls[0] and "--seed 7" in calls[0]
    assert f"--init-from {runs / '1-general-nouns'}" in calls[1]
    # again: stage 1 is kept, stage 2 resumes from its checkpoint, stage 3 starts from stage 2
    assert _run(tmp_path).returncode == 0
    calls = (tmp_path / "calls").read_text().splitlines()[2:]
    assert calls[0] == f"train --out {runs / '2-wider-kernel'} --resume --no-progress"
    assert "configs/pairs/3-logic-contrast.yaml" in calls[1]
    assert f"--init-from {runs / '2-wider-kernel'}" in calls[1] and len(calls) == 2


def test_the_nlvr_chain_shifts_every_stage_seed_and_chains_its_seven_stages(tmp_path):
    assert _run(tmp_path, "nlvr_circuit_stages.sh", "100").returncode == 0
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 7
    seeds = [int(call.split("--seed ")[1].split()[0]) for call in calls]
    assert seeds == [100, 101, 102, 104, 106, 107, 109]  # the reported row's, shifted by 100
    stages = [call.split("--out ")[1] for call in calls]
    assert "--init-from" not in calls[0]
    for call, before in zip(calls[1:], stages, strict=False):
        assert f"--init-from {before}" in call
    assert "read_in_weights=sigmoid" in calls[-1]
    # again: all seven are finished and kept
    assert _run(tmp_path, "nlvr_circuit_stages.sh", "100").returncode == 0
    assert len((tmp_path / "calls").read_text().splitlines()) == 7
