"""The results tables written from their CSVs (scripts/results_tables.py): current in the docs,
and their verdicts derived from the goals' rules."""

import importlib.util

import pandas as pd
import pytest

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("results_tables", ROOT / "scripts/results_tables.py")
results_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(results_tables)


def test_every_marked_table_is_what_its_csv_writes():
    for path in results_tables.DOCUMENTS:
        text = path.read_text()
        assert results_tables.rewrite(text) == text, f"{path}: run scripts/results_tables.py"
    assert "<!-- table: fig3-priors -->" in (ROOT / "docs/results.md").read_text()


def _fig3_rows(recovered: dict[int, list[bool]], control: bool = True) -> pd.DataFrame:
    """Rows of object_priors.csv: per seed, which of the four imposed families were
    recovered, and whether the no-prior model named no family."""
    families = ["erdos_renyi", "planted_partition", "ring_of_cliques", "scale_free"]
    rows = []
    for seed, flags in recovered.items():
        rows += [
            {"model": f, "seed": seed, "recovered": r} for f, r in zip(families, flags, strict=True)
        ]
        rows.append({"model": "none", "seed": seed, "recovered": control})
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("recovered", "control", "word"),
    [
        ({0: [1, 1, 1, 0], 1: [1, 1, 1, 0], 2: [0, 0, 0, 0]}, True, "reproduced"),
        ({0: [1, 1, 0, 0], 1: [1, 1, 1, 0], 2: [1, 1, 0, 0]}, True, "not reproduced"),
        ({0: [1, 1, 1, 1], 1: [1, 1, 1, 1], 2: [1, 1, 1, 1]}, False, "not reproduced"),
        ({0: [1, 1, 1, 1]}, True, "not yet judged: 1 of 3 seeds"),
    ],
)
def test_the_fig3_verdict_follows_the_goal(recovered, control, word):
    rows = _fig3_rows({s: [bool(x) for x in flags] for s, flags in recovered.items()}, control)
    verdict = results_tables.fig3_verdict(rows)
    assert verdict.startswith(f"**Verdict: {word}")


def test_an_unknown_table_name_is_refused():
    with pytest.raises(SystemExit, match="unknown table 'nope'"):
        results_tables.rewrite("<!-- table: nope -->\nx\n<!-- end table -->")
