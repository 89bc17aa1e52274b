"""A second construction of NLVR2 minimal pairs, used only to measure.

The logic contrast of the pair-world recipe (``configs/pairs/3-logic-contrast.yaml``) trains on
triples made by ``circuitlab.worlds.minimal_pairs.NLVR2_LOGIC_KINDS``' rules, and
``bench/minimal_pair_kinds.py`` measures NLVR2 dev pairs made by the same rules: a model could
learn those templates and read well on them. This module rewrites **NLVR2 test1** sentences by
rules written apart from those, in other phrasings (number words and digits; "exactly", "only",
"precisely", "at least", "no fewer than", "more than"; comparatives and negations phrased
otherwise), so that a circuit that reads counting must move with the logic however it is
worded. It lives in bench/ so that nothing in the package, and so no training signal, can be
built from it. The noun swap is the one of the first construction (one counted noun replaced).

Kinds keep the first construction's names where they change the same logic:

- ``hard -> soft cardinality``: "exactly / only / precisely / just N" -> "at least N",
  "no fewer than N", "N or more"; a bare "two dogs" -> "at least two dogs";
- ``soft -> hard cardinality``: "at least N" -> "exactly / precisely / only N"; "more than
  one" -> "exactly one"; "N or more" -> "exactly N";
- ``more <-> fewer``: "more than N" <-> "fewer than N" (also "less than"), "more X than" <->
  "fewer X than", "larger" <-> "smaller" number, "outnumber" -> "are outnumbered by";
- ``negation``: "do not / does not / are not / is not" and their contractions dropped, "no X"
  -> "some X", "without" -> "with", "none of" -> "all of";
- ``number``: a number word or digit one up or one down ("two" -> "three", "3" -> "2").

A rewrite that one of the first construction's rules of the same kind also makes (e.g. "at
least two" -> "exactly two", which the logic contrast trains on) is counted apart, as the kind
with " (the contrast's phrasing)" added: only the other pairs test phrasings the model never
met.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import pandas as pd

from circuitlab.worlds.minimal_pairs import NLVR2_LOGIC_KINDS, _noun_variant

WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
DIGITS = tuple(str(i) for i in range(1, 11))
NUMBER = "(" + "|".join(WORDS + DIGITS) + ")"
NOUN_AHEAD = r"(?= [a-z]+)"
SHARED = " (the contrast's phrasing)"

SECOND_KINDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "hard -> soft cardinality": (
        (rf"\b(?:exactly|precisely|just) {NUMBER}\b", (r"at least \1", r"no fewer than \1")),
        (rf"\bonly {NUMBER}\b{NOUN_AHEAD}", (r"at least \1",)),
        (rf"^(?:there are|there is) {NUMBER}\b", (r"there are at least \1",)),
    ),
    "soft -> hard cardinality": (
        (rf"\bat least {NUMBER}\b", (r"exactly \1", r"precisely \1", r"only \1")),
        (rf"\bno fewer than {NUMBER}\b", (r"exactly \1",)),
        (rf"\b{NUMBER} or more\b", (r"exactly \1",)),
        (r"\bmore than one\b", ("exactly one",)),
    ),
    "more <-> fewer": (
        (rf"\bmore than {NUMBER}\b", (r"fewer than \1",)),
        (rf"\b(?:fewer|less) than {NUMBER}\b", (r"more than \1",)),
        (r"\bmore (\w+) than\b", (r"fewer \1 than",)),
        (r"\bfewer (\w+) than\b", (r"more \1 than",)),
        (r"\blarger number\b", ("smaller number",)),
        (r"\bsmaller number\b", ("larger number",)),
        (r"\boutnumber\b", ("are outnumbered by",)),
    ),
    "negation": (
        (r"\b(do|does|are|is) not\b", (r"\1",)),
        (r"\b(do|does|are|is)n't\b", (r"\1",)),
        (r"\bwithout\b", ("with",)),
        (r"\bnone of\b", ("all of",)),
        (r"\bno (?=[a-z]+s\b)", ("some ",)),
    ),
    "number": tuple(
        (rf"\b{word}\b{NOUN_AHEAD}", (other,))
        for words in (WORDS[:6], DIGITS[:6])
        for i, word in enumerate(words)
        for other in [words[i + 1] if i + 1 < len(words) else words[i - 1]]
    ),
}


def _rewrite(text: str, rules, rng: random.Random) -> str | None:
    """``text`` with one applicable rule of ``rules`` and one of its phrasings applied to its
    first match, or None when no rule applies."""
    lowered = text[:1].lower() + text[1:]
    applicable = [(p, r) for p, r in rules if re.search(p, lowered)]
    if not applicable:
        return None
    pattern, phrasings = rng.choice(applicable)
    changed = re.sub(pattern, rng.choice(phrasings), lowered, count=1)
    return changed[:1].upper() + changed[1:] if text[:1].isupper() else changed


def first_construction_makes(text: str, logic: str, kind: str) -> bool:
    """Whether one of the first construction's rules of ``kind`` (``NLVR2_LOGIC_KINDS``)
    rewrites ``text`` into ``logic`` (case aside)."""
    lowered = text.lower()
    return any(
        re.sub(pattern, replacement, lowered, count=1) == logic.lower()
        for pattern, replacement in NLVR2_LOGIC_KINDS.get(kind, ())
    )


def second_construction_pairs(
    texts: Sequence[str], nouns: Sequence[tuple[str, str]], seed: int = 0
) -> pd.DataFrame:
    """Minimal pairs of ``texts`` by the second construction: one row per sentence and kind
    of ``SECOND_KINDS`` that applies (text, wording: one counted noun swapped, logic: the kind's
    rewrite, kind; ``SHARED`` added to the kind when the first construction makes the same
    rewrite), as ``nlvr2_minimal_pairs_by_kind`` lays them out."""
    rng = random.Random(seed)
    rows = []
    for text in texts:
        wording = _noun_variant(text, nouns, rng)
        if wording is None or wording == text:
            continue
        for kind, rules in SECOND_KINDS.items():
            logic = _rewrite(text, rules, rng)
            if logic is not None and len({text.lower(), wording.lower(), logic.lower()}) == 3:
                shared = first_construction_makes(text, logic, kind)
                rows.append(
                    {
                        "text": text,
                        "wording": wording,
                        "logic": logic,
                        "kind": kind + SHARED if shared else kind,
                    }
                )
    return pd.DataFrame(rows, columns=["text", "wording", "logic", "kind"])
