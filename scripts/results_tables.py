"""Write the results tables of docs/results.md (and the README) from bench/results/*.csv.

A table written from a CSV sits between two markers in the Markdown file:

    <!-- table: NAME -->
    ...what this script writes...
    <!-- end table -->

and NAME is a function of ``TABLES`` below, which reads the CSV and returns the Markdown: the
table and the verdict line, the verdict derived from the goal's rule applied to the CSV (never
typed). Tables not yet converted are still typed by hand; each conversion adds a function here.

    python scripts/results_tables.py          # rewrite every marked table
    python scripts/results_tables.py --check  # exit 1 if a marked table is not what it writes

``make test`` runs the check (tests/test_docs.py), so a CSV re-measured without its table
rewritten, or a table edited by hand, fails the tests.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DOCUMENTS = [ROOT / "docs" / "results.md", ROOT / "README.md"]
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end table -->)", re.S)

PRIOR_NAMES = {
    "none": "none",
    "erdos_renyi": "Erdos-Renyi",
    "planted_partition": "planted partition",
    "ring_of_cliques": "ring of cliques",
    "scale_free": "scale-free",
}
VERDICT_WORDS = {
    "like_null": "like the null",
    "no_prior_fits": "no prior fits",
    "ambiguous": "ambiguous",
    **PRIOR_NAMES,
}
# Fig. 3's goal: >= 3 of the 4 imposed families recovered with their parameters (and outside
# their untrained null) on >= 2 of 3 seeds; the no-prior model names no family
FIG3_FAMILIES_NEEDED, FIG3_SEEDS_NEEDED, FIG3_SEEDS = 3, 2, 3
GRAPHON_GOAL = 0.95


def pipe(frame: pd.DataFrame) -> str:
    """A Markdown pipe table of ``frame`` (its cells as they are)."""
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |"]
    lines.append("|" + "---|" * len(frame.columns))
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def fig3_priors() -> str:
    """Fig. 3: each prior model's verdict against its untrained null, seed by seed, from
    bench/results/object_priors.csv (rows read with the null: those with a ``verdict``)."""
    frame = pd.read_csv(RESULTS / "object_priors.csv")
    read = frame[frame["verdict"].notna()].copy()
    rows = []
    for model in PRIOR_NAMES:
        runs = read[read["model"] == model].sort_values("seed")
        for run in runs.itertuples():
            outside = "distinguishable" if run.null_z > 4 else "inside the band"
            if model == "none":
                recovered = "names no family" if run.recovered else "names a family"
            else:
                recovered = "yes" if run.recovered else "no"
            detail = run.recovery.split("; ", 1)[1] if model != "none" else "-"
            rows.append(
                {
                    "prior imposed": PRIOR_NAMES[model],
                    "seed": run.seed,
                    "accuracy": f"{run.val_acc:.3f}",
                    "corr. with initial P": f"{run.corr_with_init:.2f}",
                    "verdict (gap, nats)": f"{VERDICT_WORDS[run.verdict]} ({run.gap:.1f})",
                    "untrained null (largest \\|z\\|)": f"{outside} ({run.null_z:.1f})",
                    "fitted parameters (target)": detail,
                    "recovered": recovered,
                }
            )
    table = pipe(pd.DataFrame(rows))
    return table + "\n\n" + fig3_verdict(read)


def fig3_verdict(read: pd.DataFrame) -> str:
    """The verdict of Fig. 3's goal on the rows read with the null."""
    seeds = sorted(read["seed"].unique())
    imposed = read[read["model"] != "none"]
    per_family = imposed.groupby("model")["recovered"].sum()
    families = int((per_family >= FIG3_SEEDS_NEEDED).sum())
    control = read[read["model"] == "none"]["recovered"].all()
    per_seed = imposed.groupby("seed")["recovered"].sum().astype(int)
    counts = ", ".join(f"seed {s}: {per_seed.get(s, 0)} of 4" for s in seeds)
    if len(seeds) < FIG3_SEEDS:
        word = f"not yet judged: {len(seeds)} of {FIG3_SEEDS} seeds read with the null"
    elif families >= FIG3_FAMILIES_NEEDED and control:
        word = "reproduced"
    else:
        word = "not reproduced"
    return (
        f"**Verdict: {word}** (families recovered with their parameters, {counts}; goal: >= "
        f"{FIG3_FAMILIES_NEEDED} of 4 on >= {FIG3_SEEDS_NEEDED} of {FIG3_SEEDS} seeds, the "
        "no-prior model naming no family)."
    )


def prior_graphons() -> str:
    """The reading on graphs drawn from each prior's target, bench/results/prior_graphons.csv."""
    frame = pd.read_csv(RESULTS / "prior_graphons.csv")
    share = frame.groupby(["family", "n"])["recovered"].mean().unstack("n")
    count = int(frame.groupby(["family", "n"]).size().min())
    table = share.map(lambda x: f"{x:.2f}")
    table.columns = [f"U = {n}" for n in table.columns]
    table.insert(0, "family", [VERDICT_WORDS.get(f, f) for f in table.index])
    met = share.ge(GRAPHON_GOAL)
    missed = [VERDICT_WORDS.get(f, f) for f in share.index[~met.all(axis=1)]]
    word = "met" if not missed else "not met (" + ", ".join(missed) + ")"
    return (
        pipe(table.reset_index(drop=True))
        + f"\n\n**Verdict: {word}** ({count} graphs a cell; goal: every cell >= {GRAPHON_GOAL})."
    )


TABLES: dict[str, Callable[[], str]] = {
    "fig3-priors": fig3_priors,
    "prior-graphons": prior_graphons,
}


def rewrite(text: str) -> str:
    """``text`` with every marked table written anew; an unknown name is an error."""

    def body(match: re.Match) -> str:
        name = match["name"]
        if name not in TABLES:
            raise SystemExit(
                f"unknown table {name!r}; scripts/results_tables.py has {list(TABLES)}"
            )
        return f"{match.group(1)}{TABLES[name]()}\n{match.group(4)}"

    return BLOCK.sub(body, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a table is not current")
    args = parser.parse_args()
    stale = []
    for path in DOCUMENTS:
        text = path.read_text()
        written = rewrite(text)
        if written == text:
            continue
        if args.check:
            stale.append(path.relative_to(ROOT))
        else:
            path.write_text(written)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        names = ", ".join(map(str, stale))
        sys.exit(f"{names}: a table differs from its CSV; run python scripts/results_tables.py")


if __name__ == "__main__":
    main()
