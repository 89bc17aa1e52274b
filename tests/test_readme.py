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
