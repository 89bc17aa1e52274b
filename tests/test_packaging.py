import csv
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "circuitlab").rglob("__init__.py")
    }
    assert found <= listed, f"add {sorted(found - listed)} to [tool.setuptools] packages"
    mapped = {
        "circuitlab.analysis": "analysis",
        "circuitlab.app": "app",
        "circuitlab.data.files": "data",
    }
    assert config["package-dir"] == mapped
    for package, folder in mapped.items():
        first_line = (ROOT / folder / "__init__.py").read_text().splitlines()[0]
        assert package in first_line


def test_analysis_and_app_import_under_circuitlab():
    import circuitlab.analysis
    import circuitlab.app

    assert Path(circuitlab.analysis.__file__).parent.name == "analysis"
    assert Path(circuitlab.app.__file__).parent.name == "app"


def test_reading_stores_and_analysis_never_import_torch():
    """Every public name of circuitlab.analysis and circuitlab.app, and the store, in a fresh
    interpreter: torch stays unloaded until circuitlab.NAC is asked for."""
    script = """
import sys
import circuitlab, circuitlab.analysis as analysis, circuitlab.app as app
values = [getattr(analysis, name) for name in analysis.__all__]
values += [app.create_app, circuitlab.CircuitStore, circuitlab.Circuit, circuitlab.NACConfig]
values += [circuitlab.prior_targets.target("scale_free", 8)]
from circuitlab.analysis import best_prior, embed, fit_priors, to_graph
assert "torch" not in sys.modules, "torch was imported"
assert analysis.best_prior.__module__ == "circuitlab.analysis.prior_verdict"
assert set(analysis.__all__) <= set(dir(analysis))
from circuitlab.model import NAC
assert circuitlab.NAC is NAC and "torch" in sys.modules
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_unknown_public_name_is_an_attribute_error():
    import circuitlab.analysis

    try:
        circuitlab.analysis.no_such_function  # noqa: B018
    except AttributeError as error:
        assert "no_such_function" in str(error)
    else:
        raise AssertionError("an unknown name resolved")


def test_wheel_ships_the_data(tmp_path):
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("circuitlab-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "circuitlab/data/files/nlvr/nlvr1-dev.json.gz" in names
    assert "circuitlab/data/files/README.md" in names
    assert "circuitlab/worlds/tasks/toy_sets.py" in names


# Only the shipped models' weights and the shipped data may be large; run records stay small
# (config, summary, a thinned curve: circuitlab.run_records.thin_metrics). The one exception is
# a run carried from one machine to the next in training/inflight/RUN/ (its resumable state),
# at most MAX_INFLIGHT_RUNS at a time, removed by the commit that records the finished run.
INFLIGHT = "training/inflight/"
LARGE_FILES_ALLOWED_UNDER = ("checkpoints/", "data/", INFLIGHT)
MAX_TRACKED_BYTES = 1_000_000
MAX_INFLIGHT_RUNS = 2


def tracked_files() -> list[str]:
    """The paths git tracks in this checkout."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [path for path in out.stdout.decode().split("\0") if path]


def test_at_most_two_runs_are_carried_in_training_inflight():
    runs = {
        path[len(INFLIGHT) :].split("/")[0] for path in tracked_files() if path.startswith(INFLIGHT)
    }
    assert len(runs) <= MAX_INFLIGHT_RUNS, (
        f"{len(runs)} runs carried in {INFLIGHT} ({sorted(runs)}); at most {MAX_INFLIGHT_RUNS}: "
        "finish one and record it (scripts/keep_record.py), then remove its folder"
    )


def test_no_large_tracked_file_outside_checkpoints_and_data():
    tracked = tracked_files()
    assert len(tracked) > 100, "expected a git checkout of the repository"
    large = {
        path: (ROOT / path).stat().st_size
        for path in tracked
        if path
        and not path.startswith(LARGE_FILES_ALLOWED_UNDER)
        and (ROOT / path).is_file()
        and (ROOT / path).stat().st_size > MAX_TRACKED_BYTES
    }
    assert not large, f"tracked files over 1 MB outside checkpoints/, data/ and {INFLIGHT}: {large}"


def test_every_shipped_curve_is_a_thinned_record():
    """A shipped model's metrics.csv is its run's curve thinned (scripts/ship_checkpoint.py,
    ship_model.py, ship_prior_models.py): at most 1,000 rows, every validation row kept."""
    curves = sorted((ROOT / "checkpoints").glob("**/metrics.csv"))
    assert len(curves) >= 6, "expected the shipped checkpoints"
    for curve in curves:
        with curve.open(newline="") as f:
            rows = list(csv.DictReader(f))
        config = json.loads((curve.parent / "config.json").read_text())
        steps = [int(row["step"]) for row in rows]
        name = curve.relative_to(ROOT)
        assert len(rows) <= 1000, f"{name}: {len(rows)} rows (thin it: run_records.thin_metrics)"
        assert steps[0] == 1 and steps[-1] == config["steps"] and steps == sorted(steps), name
        every = config["eval_every"]
        validated = [s for s, row in zip(steps, rows, strict=True) if row["val_loss"]]
        assert validated == list(range(every, config["steps"] + 1, every)), name
