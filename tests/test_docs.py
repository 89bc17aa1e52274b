"""The code in README.md and docs/*.md runs: every Python block is executed (each file's blocks
in order, in one namespace, in conftest.py's ``demo_folder``: the shipped checkpoint and small
demo stores), and every shell line that calls circuitlab, a bench or example script, or make names
a command, options, files and targets that exist."""

import re
import shlex
from pathlib import Path

import numpy as np
import pytest
import typer

from circuitlab.cli import app as cli_app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def code_blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", path.read_text(), re.S)


def test_docs_have_their_code():
    names = {p.name for p in DOCS}
    expected = {"user-guide.md", "architecture.md", "results.md", "store-format.md"}
    assert {"README.md", *expected} <= names
    assert code_blocks(ROOT / "README.md", "python"), "README has no Python example"
    assert len((ROOT / "README.md").read_text().splitlines()) <= 150
    # the results are a reference; the history of what was tried is the experiment log
    assert len((ROOT / "docs" / "results.md").read_text().splitlines()) <= 500
    assert (ROOT / "docs" / "experiments.md").read_text().count("| lever or question |") == 1


def test_readme_paragraphs_read_in_a_breath():
    """No README paragraph (prose between blank lines; code blocks and tables aside) runs over
    120 words; the results tables' markers are HTML comments, not prose."""
    text = re.sub(r"```.*?```", "", (ROOT / "README.md").read_text(), flags=re.S)
    text = re.sub(r"^<!--.*?-->\n", "", text, flags=re.M)
    for paragraph in text.split("\n\n"):
        if paragraph.lstrip().startswith("|"):
            continue
        words = len(paragraph.split())
        assert words <= 120, f"{words} words: {paragraph[:80]!r}"


def test_the_lab_notebook_is_out_of_the_main_navigation():
    """docs/experiments.md (how each result came to be) sits under Development in the site's
    navigation, never at its top level beside the user's pages."""
    import yaml

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    top = {page for entry in nav for page in entry.values() if isinstance(page, str)}
    assert "experiments.md" not in top
    (development,) = [e["Development"] for e in nav if "Development" in e]
    assert any("experiments.md" in entry.values() for entry in development)


def run_python_blocks(path: Path, folder: Path, monkeypatch) -> dict:
    monkeypatch.chdir(folder)
    namespace: dict = {}
    for block in code_blocks(path, "python"):
        exec(compile(block, str(path.name), "exec"), namespace)
    return namespace


def test_readme_python_runs(demo_folder, monkeypatch):
    ns = run_python_blocks(ROOT / "README.md", demo_folder, monkeypatch)
    assert ns["logits"].shape == (8, 4)
    assert ns["P"].shape == (18, 18)
    assert ns["smaller"].config.n_processors == 8
    assert len(ns["store"]) == 1
    assert set(ns["graph"].nodes) == set(range(18))


def test_user_guide_python_runs(demo_folder, monkeypatch):
    ns = run_python_blocks(ROOT / "docs" / "user-guide.md", demo_folder, monkeypatch)
    own, u = ns["own"], ns["U"]
    assert own.shape == (64, 2)
    for name in ("rewired", "average", "dense", "cut", "silent"):
        assert ns[name].shape == own.shape
    assert ns["signatures"].shape[:2] == (64, u)
    assert ns["exact"].shape == ns["estimate"].shape == (2, len(ns["links"]))
    assert ns["ranked_links"].shape == ns["exact"].shape
    assert ns["ranked_reads"].shape == ns["reads"].shape
    assert ns["knocked"].shape == (2, u) and len(ns["minimal"].size) == 2
    curve = ns["curve"]
    assert curve.f[0] == 0 and curve.f[-1] == 1 and curve.random_f.shape == (20, len(curve.f))
    assert ns["links_only"].reads == 0 and curve.reads > 0 and curve.links == len(ns["links"])
    present = ns["present"]
    np.testing.assert_allclose(present[np.isfinite(present)], ns["exact"][np.isfinite(present)])
    assert len(ns["embedding"]) == len(ns["store"]) == 150
    assert ns["verdict"].family == ns["table"]["verdict"].iloc[0]
    assert int(ns["stats"]["edges"].iloc[0]) == ns["graph"].number_of_edges()
    assert len(ns["scenes"]) == 989 and len(ns["categories"]) == 800
    assert ns["ni_outputs"].shape == (16, 20) and ns["tokens_together"].shape == (25, 25)
    assert ns["digit_logits"].shape == (32, 10) and ns["digit_circuit"].paths.shape == (32, 2, 1)
    assert ns["usage"].shape == (2, 4) and 0 <= float(ns["h_a"]) <= np.log(4) + 1e-6
    assert ns["by_digit"].shape == (len(set(ns["digit_batch"].labels.tolist())), 8)
    assert ns["x0_path"].number_of_nodes() >= 4  # x0 is handled by some function at each step


def test_store_format_python_matches_the_store(demo_folder, monkeypatch):
    from circuitlab import CircuitStore

    ns = run_python_blocks(ROOT / "docs" / "store-format.md", demo_folder, monkeypatch)
    store = CircuitStore.open(demo_folder / "stores" / "nlvr" / "nlvr2")
    assert ns["meta"]["truncation"] is None
    np.testing.assert_allclose(ns["P"], store.link_probabilities([0])[0], atol=1e-5)
    assert list(ns["frame"]["id"]) == list(store.frame["id"])


def shell_commands(path: Path) -> list[list[str]]:
    """The commands of a file's bash blocks, continuation lines joined, comments dropped."""
    commands = []
    for block in code_blocks(path, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("#"):
                continue  # a comment line
            for part in re.split(r";|&&|\bdo\b|\bdone\b", line):
                words = shlex.split(part.replace("&", " "))
                while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                    words = words[1:]  # OMP_NUM_THREADS=1 ...
                if words:
                    commands.append(words)
    return commands


def cli_options() -> dict[str, set[str]]:
    """{subcommand: its option names}, nested groups joined by a space."""
    root = typer.main.get_command(cli_app)
    options = {}

    def visit(command, prefix: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            visit(sub, f"{prefix} {name}".strip())
        names = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        options[prefix] = names

    visit(root, "")
    return options


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_shell_lines_name_what_exists(path):
    options = cli_options()
    targets = set(re.findall(r"^([a-z]+):", (ROOT / "Makefile").read_text(), re.M))
    for words in shell_commands(path):
        if words[0] == "circuitlab":
            pair = " ".join(words[1:3])
            name = pair if pair in options else words[1]
            assert name in options, f"{path.name}: no command `circuitlab {name}`"
            for word in words:
                if word.startswith("-") and not re.fullmatch(r"-?[\d.]+", word):
                    assert word.split("=")[0] in options[name], f"{path.name}: {name} {word}?"
        elif words[0] == "python" and words[1].endswith(".py"):
            assert (ROOT / words[1]).is_file(), f"{path.name}: no {words[1]}"
        elif words[0] == "make":
            assert words[1] in targets, f"{path.name}: no make target {words[1]}"
