"""bench/second_pairs.py: the second construction of NLVR2 minimal pairs rewrites each kind of
logic by its own rules, and nothing in the package can read them."""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from second_pairs import SHARED, second_construction_pairs  # noqa: E402

NOUNS = [("dog", "dogs"), ("cat", "cats"), ("bottle", "bottles")]


def _logic(text: str, kind: str, shared: bool | None = None) -> set[str]:
    """Every rewrite of ``text`` under ``kind`` over a few seeds: those the first construction
    also makes (``shared``), the others (not ``shared``) or both (None)."""
    kinds = {True: {kind + SHARED}, False: {kind}, None: {kind, kind + SHARED}}[shared]
    found = set()
    for seed in range(12):
        pairs = second_construction_pairs([text], NOUNS, seed)
        found |= set(pairs[pairs.kind.isin(kinds)]["logic"])
    return found


def test_each_kind_rewrites_its_own_logic_in_several_phrasings():
    assert _logic("There are exactly two dogs.", "hard -> soft cardinality") == {
        "There are at least two dogs.",
        "There are no fewer than two dogs.",
    }
    assert _logic("At least 3 dogs are lying down.", "soft -> hard cardinality") == {
        "Exactly 3 dogs are lying down.",
        "Precisely 3 dogs are lying down.",
        "Only 3 dogs are lying down.",
    }
    assert _logic("Both images contain more than five dogs.", "more <-> fewer") == {
        "Both images contain fewer than five dogs."
    }
    assert _logic("The dogs are not sleeping.", "negation") == {"The dogs are sleeping."}
    assert _logic("The left image shows three dogs.", "number") == {
        "The left image shows four dogs."
    }


def test_rewrites_the_first_construction_also_makes_are_counted_apart():
    # "exactly N" -> "at least N" and "at least N" -> "exactly N" are the contrast's own rules
    assert _logic("There are exactly two dogs.", "hard -> soft cardinality", shared=True) == {
        "There are at least two dogs."
    }
    assert _logic("There are exactly two dogs.", "hard -> soft cardinality", shared=False) == {
        "There are no fewer than two dogs."
    }
    assert _logic("At least 3 dogs are lying down.", "soft -> hard cardinality", True) == {
        "Exactly 3 dogs are lying down."
    }
    assert _logic("At least 3 dogs are lying down.", "soft -> hard cardinality", False) == {
        "Precisely 3 dogs are lying down.",
        "Only 3 dogs are lying down.",
    }


def test_a_pair_keeps_its_noun_swap_and_needs_a_noun():
    pairs = second_construction_pairs(["There are exactly two dogs."], NOUNS, 0)
    assert set(pairs["wording"]) <= {
        "There are exactly two cats.",
        "There are exactly two bottles.",
    }
    assert second_construction_pairs(["There are exactly two horses."], NOUNS, 0).empty


def test_the_package_never_imports_the_second_construction():
    found = subprocess.run(
        ["git", "grep", "-l", "second_pairs", "--", "circuitlab", "analysis", "app"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
    )
    assert found.stdout == ""
