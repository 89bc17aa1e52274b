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
    assert config["package-dir"] == {"circuitlab.analysis": "analysis", "circuitlab.app": "app"}
    for folder in ("analysis", "app"):
        first_line = (ROOT / folder / "__init__.py").read_text().splitlines()[0]
        assert f"circuitlab.{folder}" in first_line


def test_analysis_and_app_import_under_circuitlab():
    import circuitlab.analysis
    import circuitlab.app

    assert Path(circuitlab.analysis.__file__).parent.name == "analysis"
    assert Path(circuitlab.app.__file__).parent.name == "app"
