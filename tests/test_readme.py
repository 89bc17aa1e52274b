import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs(tmp_path, monkeypatch):
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block, "README has no python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    assert namespace["logits"].shape == (8, 4)
    assert namespace["P"].shape == (18, 18)
    assert namespace["smaller"].config.n_processors == 8
    assert len(namespace["store"]) == 1


def test_readme_interventions_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    block = next(b for b in blocks if "run_with_circuit" in b)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    own, u = namespace["own"], namespace["U"]
    assert own.shape == (64, 2)
    for name in ("rewired", "average", "dense", "cut", "silent"):
        assert namespace[name].shape == own.shape
    assert namespace["signatures"].shape[:2] == (64, u)
