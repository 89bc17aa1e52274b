"""Minimal pairs of world sentences: other words with the same logic, or the same words with
other logic.

For a grammar sentence, ``wording_variant`` changes what it talks about but not how it reasons
(another colour or shape, a synonym: "There are at least two yellow squares" -> "... blue
squares"), and ``logic_variant`` keeps its words but changes its logic: another quantifier
("at least" -> "at most"), number ("two" -> "three"), negation ("touching" -> "not touching",
"There is a" -> "There is no"), relation ("above" -> "below") or connective ("and" -> "or").
A circuit that encodes the sentence's logic should move more under the second than the first.

Variants are made by whole-word substitution on the grammar's surface forms, so they are
sentences of the same grammar (a few are slightly ungrammatical, "at most one squares" never
arises: numbers only move among plurals). Each function picks uniformly among the rules that
apply, seeded; a sentence no rule applies to gives None.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import pandas as pd

__all__ = [
    "NLVR2_LOGIC_KINDS",
    "NLVR2_LOGIC_RULES",
    "WORDING_RULES",
    "logic_variant",
    "minimal_pairs",
    "nlvr2_minimal_pairs",
    "nlvr2_minimal_pairs_by_kind",
    "wording_variant",
]

# (pattern, replacement): whole words, case kept for a capitalised first word
WORDING_RULES: tuple[tuple[str, str], ...] = (
    (r"\bblack\b", "yellow"),
    (r"\byellow\b", "blue"),
    (r"\bblue\b", "black"),
    (r"\bcircle(s?)\b", r"triangle\1"),
    (r"\btriangle(s?)\b", r"circle\1"),
    (r"\bobject(s?)\b", r"item\1"),
    (r"\bitem(s?)\b", r"shape\1"),
    (r"\bshape(s?)\b", r"object\1"),
    (r"\btouching the floor\b", "touching the bottom"),
    (r"\btouching the bottom\b", "touching the base"),
    (r"\btouching the edge\b", "touching the wall"),
    (r"\btouching the wall\b", "touching the side"),
    (r"\bsmall\b", "large"),
    (r"\blarge\b", "small"),
)
LOGIC_RULES: tuple[tuple[str, str], ...] = (
    # quantifiers
    (r"\bat least\b", "at most"),
    (r"\bat most\b", "at least"),
    (r"\bno more than\b", "more than"),
    (r"\b(?<!no )more than\b", "fewer than"),
    (r"\bfewer than\b", "more than"),
    (r"\bexactly (?=(two|three|four|five|2|3|4|5)\b)", "at least "),
    (r"\beach box\b", "no box"),
    (r"\bevery tower\b", "no tower"),
    # numbers (plurals only, so the noun stays right)
    (r"\btwo\b", "three"),
    (r"\bthree\b", "four"),
    (r"\bfour\b", "two"),
    (r"\b2\b", "3"),
    (r"\b3\b", "2"),
    # negation
    (r"\b(?<!not )touching\b", "not touching"),
    (r"\bnot touching\b", "touching"),
    (r"^there is an? ", "there is no "),
    (r"^there is no ", "there is a "),
    # relations
    (r"\babove\b", "below"),
    (r"\bbelow\b", "above"),
    (r"\bthe top\b", "the base"),
    (r"\bthe base\b", "the top"),
    # connectives
    (r"\band there\b", "or there"),
    (r"\bor there\b", "and there"),
)


def _new_words(replacement: str) -> str:
    """The literal words a replacement writes (group references left out)."""
    return re.sub(r"\\\d", "", replacement)


def _apply(
    text: str, rules: Sequence[tuple[str, str]], rng: random.Random, *, fresh_words: bool = False
) -> str | None:
    """The text with one applicable rule applied (all its matches), or None. ``fresh_words``:
    a rule whose new word is already in the text does not apply ("blue and yellow objects"
    must not become "blue and blue objects")."""
    lowered = text[:1].lower() + text[1:]
    applicable = [
        (p, r)
        for p, r in rules
        if re.search(p, lowered) and not (fresh_words and _new_words(r) in lowered)
    ]
    if not applicable:
        return None
    pattern, replacement = rng.choice(applicable)
    changed = re.sub(pattern, replacement, lowered)
    return changed[:1].upper() + changed[1:] if text[:1].isupper() else changed


def wording_variant(text: str, rng: random.Random) -> str | None:
    """Same logic, other words: another colour, shape, size or a synonym; None if none fits.

    Parameters
    ----------
    text
        A world sentence.
    rng
        The random stream drawn from.
    """
    return _apply(text, WORDING_RULES, rng, fresh_words=True)


def logic_variant(text: str, rng: random.Random) -> str | None:
    """Same words, other logic: quantifier, number, negation, relation or connective.

    Parameters
    ----------
    text
        A world sentence.
    rng
        The random stream drawn from.
    """
    return _apply(text, LOGIC_RULES, rng)


def minimal_pairs(texts: Sequence[str], seed: int = 0) -> pd.DataFrame:
    """One row per sentence that has both variants: text, wording, logic.

    Parameters
    ----------
    texts
        World sentences.
    seed
        Seed of the variants.
    """
    rng = random.Random(seed)
    rows = []
    for text in texts:
        wording, logic = wording_variant(text, rng), logic_variant(text, rng)
        if wording is not None and logic is not None and len({text, wording, logic}) == 3:
            rows.append({"text": text, "wording": wording, "logic": logic})
    return pd.DataFrame(rows, columns=["text", "wording", "logic"])


# ---------------------------------------------------------------------------- NLVR2 sentences
NLVR2_LOGIC_RULES: tuple[tuple[str, str], ...] = (
    # image references
    (r"(?<!least )\bone image\b", "each image"),
    (r"\beach image\b", "one image"),
    (r"(?<!least )\bone of the images\b", "each of the images"),
    (r"\bboth images\b", "one of the images"),
    (r"\bthe left image\b", "the right image"),
    (r"\bthe right image\b", "the left image"),
    (r"\bin total\b", "in each image"),
    # quantifiers and numbers
    *LOGIC_RULES[:6],
    (r"\ba single\b", "more than one"),
    (r"\bexactly one\b", "at least one"),
    (r"\bonly one\b", "more than one"),
    (r"\bmultiple\b", "no"),
    (r"\bseveral\b", "no"),
    *((p, r) for p, r in LOGIC_RULES if r in ("three", "four", "two", "3", "2")),
    # negation
    (r"\bis not\b", "is"),
    (r"\bare not\b", "are"),
    (r"\bno\b(?= [a-z]+s\b)", "some"),
    (r"\bcontains? a\b", "contains no"),
    # comparison
    (r"\bmore\b(?= [a-z]+ than)", "fewer"),
    (r"\bfewer\b(?= [a-z]+ than)", "more"),
)


# The kinds of logic change, each a list of rules: every rule of NLVR2_LOGIC_RULES in exactly
# one kind (tests hold it so), and the kinds it lacks (soft -> hard cardinality, relations,
# connectives) added, so that every kind is measured on its own (``nlvr2_minimal_pairs_by_kind``).
NLVR2_LOGIC_KINDS: dict[str, tuple[tuple[str, str], ...]] = {
    "negation": NLVR2_LOGIC_RULES[-6:-2],
    "image side": NLVR2_LOGIC_RULES[4:6],
    "one image -> each image": (NLVR2_LOGIC_RULES[0], NLVR2_LOGIC_RULES[2]),
    "each image -> one image": (NLVR2_LOGIC_RULES[1], NLVR2_LOGIC_RULES[3]),
    "in total -> in each image": (NLVR2_LOGIC_RULES[6],),
    "at least <-> at most": LOGIC_RULES[:2],
    "hard -> soft cardinality": (LOGIC_RULES[5], (r"\bexactly one\b", "at least one")),
    "soft -> hard cardinality": (
        (r"\bat least (?=(one|two|three|four|five|1|2|3|4|5)\b)", "exactly "),
    ),
    "more <-> fewer": (*LOGIC_RULES[2:5], *NLVR2_LOGIC_RULES[-2:]),
    "one <-> several": (
        (r"\ba single\b", "more than one"),
        (r"\bonly one\b", "more than one"),
        (r"\bmultiple\b", "no"),
        (r"\bseveral\b", "no"),
    ),
    "number": tuple((p, r) for p, r in LOGIC_RULES if r in ("three", "four", "two", "3", "2")),
    "relation": (
        (r"\babove\b", "below"),
        (r"\bbelow\b", "above"),
        (r"\bin front of\b", "behind"),
        (r"\bbehind\b", "in front of"),
        (r"\bleft of\b", "right of"),
        (r"\bright of\b", "left of"),
        (r"\bon top of\b", "beneath"),
    ),
    "connective": (
        (r"\band the other\b", "or the other"),
        (r"\bor the other\b", "and the other"),
    ),
}


def _noun_variant(text: str, nouns: Sequence[tuple[str, str]], rng: random.Random) -> str | None:
    """``text`` with every occurrence of one counted noun (singular and plural) replaced by
    another noun's same forms; None when it names none of ``nouns`` (singular, plural)."""
    lowered = text.lower()
    present = [
        (s, p) for s, p in nouns if re.search(rf"\b({re.escape(s)}|{re.escape(p)})\b", lowered)
    ]
    if not present:
        return None
    singular, plural = rng.choice(present)
    others = [(s, p) for s, p in nouns if (s, p) != (singular, plural) and s not in lowered]
    if not others:
        return None
    new_singular, new_plural = rng.choice(others)
    changed = re.sub(rf"\b{re.escape(plural)}\b", new_plural, text, flags=re.IGNORECASE)
    return re.sub(rf"\b{re.escape(singular)}\b", new_singular, changed, flags=re.IGNORECASE)


def nlvr2_minimal_pairs(
    texts: Sequence[str], nouns: Sequence[tuple[str, str]], seed: int = 0
) -> pd.DataFrame:
    """Minimal pairs of NLVR2 sentences: ``wording`` swaps one counted noun for another (from
    ``nouns``, (singular, plural) pairs, e.g. ``nlvr2_vocab.object_nouns``), ``logic`` changes
    an image reference, a quantifier, a number, a negation or a comparison
    (``NLVR2_LOGIC_RULES``). One row per sentence that has both: text, wording, logic.

    Parameters
    ----------
    texts
        NLVR2 sentences.
    nouns
        As above.
    seed
        Seed of the variants.
    """
    rng = random.Random(seed)
    rows = []
    for text in texts:
        wording = _noun_variant(text, nouns, rng)
        logic = _apply(text, NLVR2_LOGIC_RULES, rng)
        if wording is not None and logic is not None and len({text, wording, logic}) == 3:
            rows.append({"text": text, "wording": wording, "logic": logic})
    return pd.DataFrame(rows, columns=["text", "wording", "logic"])


def nlvr2_minimal_pairs_by_kind(
    texts: Sequence[str], nouns: Sequence[tuple[str, str]], seed: int = 0
) -> pd.DataFrame:
    """Minimal pairs of NLVR2 sentences, one row per sentence and kind of logic change that
    applies to it (``NLVR2_LOGIC_KINDS``): text, wording (one counted noun swapped, as
    ``nlvr2_minimal_pairs``; the same for every kind of a sentence), logic (one of the kind's
    rules applied) and kind. Sentences without a counted noun of ``nouns`` give none.

    Parameters
    ----------
    texts
        NLVR2 sentences.
    nouns
        (singular, plural) counted nouns to swap in.
    seed
        Seed of the variants.
    """
    rng = random.Random(seed)
    rows = []
    for text in texts:
        wording = _noun_variant(text, nouns, rng)
        if wording is None or wording == text:
            continue
        for kind, rules in NLVR2_LOGIC_KINDS.items():
            logic = _apply(text, rules, rng)
            if logic is not None and len({text, wording, logic}) == 3:
                rows.append({"text": text, "wording": wording, "logic": logic, "kind": kind})
    return pd.DataFrame(rows, columns=["text", "wording", "logic", "kind"])
