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
    assert "circuitlab/tasks/toy_sets.py" in names
