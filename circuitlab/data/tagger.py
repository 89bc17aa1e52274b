"""A rule-based tagger of reasoning categories, for sentences without gold annotations.

Each category is a handful of regular expressions over the lower-cased sentence (``RULES``);
a sentence gets every category one of whose patterns matches and none of whose exclusions do.
``tagger_scores`` measures it against the 800 annotated NLVR2 sentences; docs/user-guide.md quotes
the result. It tags the eight categories the world grammar produces (``TAGGED``), never
coreference, presupposition or the ambiguities.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

__all__ = ["TAGGED", "tag", "tag_all", "tagger_scores"]

NUMBER = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)"
SOFT_BEFORE_NUMBER = (
    r"(?:at least|at most|no more than|no less than|no fewer than|more than|less than|"
    r"fewer than|over|under|up to)"
)
IMAGE = r"(?:image|picture|photo|pic|photograph|box|scene|panel)s?"


@dataclass(frozen=True)
class Rule:
    """``patterns`` any of which tags the category, unless an ``exclude`` pattern matches the
    same stretch of text (the exclusions are removed from the sentence before matching)."""

    patterns: tuple[str, ...]
    exclude: tuple[str, ...] = ()

    def matches(self, text: str) -> bool:
        for pattern in self.exclude:
            text = re.sub(pattern, " ", text)
        return any(re.search(p, text) for p in self.patterns)


RULES: dict[str, Rule] = {
    "hard cardinality": Rule(
        (
            rf"\b{NUMBER}\b",
            r"\b(?:exactly|only one|a single|single|pair of|a pair|twice|both)\b",
        ),
        exclude=(
            rf"\b{SOFT_BEFORE_NUMBER} {NUMBER}\b",
            rf"\b(?:in |of )?(?:the )?(?:one|at least one|each|one of the|either) {IMAGE}\b",
            r"\bone of (?:the|them|these)\b",
            r"\bone (?:another|other)\b",
            rf"\b(?:both|two|the two|pair of) {IMAGE}\b",
            r"\bno one\b|\bsome ?one\b|\banyone\b|\bone side\b",
        ),
    ),
    "soft cardinality": Rule(
        (
            rf"\b{SOFT_BEFORE_NUMBER} (?:{NUMBER}|a|an)\b",
            r"\b(?:many|several|multiple|few|a lot|lots|numerous|plenty|a group|group of|"
            r"a bunch|a herd|a flock|a pack|a stack|a pile|a row|a couple)\b",
        ),
    ),
    "existential quantifier": Rule(
        (r"\bthere (?:is|are|exist|exists|were|was)\b", r"\bthere's\b"),
    ),
    "universal quantifier": Rule(
        (r"\b(?:each|every|all|none|both|any)\b", r"\bonly\b(?! one)"),
        exclude=(r"\bat all\b",),
    ),
    "spatial relation": Rule(
        (
            r"\b(?:above|below|under|underneath|beneath|behind|in front of|next to|near|"
            r"beside|besides|touching|on top|atop|top of|bottom|base|against|between|"
            r"inside|outside|across|facing|toward|towards|over|along|around|by the|"
            r"side by side|side-by-side|upright|upside|leftward|rightward|forward|"
            r"backward|corner|edge|wall|surrounded|in the middle|centre|center|"
            r"close to|far from|on (?:a|an|the|its|their|his|her)|in (?:a|an|the|its|their))\b",
            r"\bto the (?:left|right)\b",
        ),
        exclude=(
            rf"\b(?:in |on )?(?:the |an? )?(?:left|right|other|one|each|both|either)? ?{IMAGE}\b",
        ),
    ),
    "comparison": Rule(
        (
            r"\b(?:same|as many|as much|twice|equal|identical|similar|different|differ|"
            r"larger|smaller|bigger|taller|shorter|longer|wider|darker|lighter|more|less|fewer)\b",
            r"\b\w+er than\b",
        ),
        exclude=(rf"\b{SOFT_BEFORE_NUMBER} (?:{NUMBER}|a|an)\b",),
    ),
    "negation": Rule(
        (r"\b(?:no|not|none|nobody|nothing|neither|nor|without|never|cannot)\b", r"n't\b"),
    ),
    "coordination": Rule(
        (r"\b(?:and|or|but|nor|either|as well as|while)\b", r"\w, \w+ (?:and|or)\b"),
        exclude=(r"\b(?:left|right) and (?:the )?(?:left|right)\b", r"\bblack and white\b"),
    ),
}
TAGGED = tuple(RULES)


def tag(sentence: str) -> list[str]:
    """The categories of ``RULES`` that ``sentence`` shows, in ``TAGGED`` order.

    Parameters
    ----------
    sentence
        An NLVR or NLVR2 sentence.
    """
    text = " " + re.sub(r"\s+", " ", sentence.lower()) + " "
    return [name for name, rule in RULES.items() if rule.matches(text)]


def tag_all(sentences: Iterable[str]) -> list[list[str]]:
    """``tag`` of every sentence, in order.

    Parameters
    ----------
    sentences
        Sentences.
    """
    return [tag(s) for s in sentences]


def tagger_scores(sentences: Sequence[str], gold: Sequence[Sequence[str]]) -> pd.DataFrame:
    """Precision, recall and F1 of ``tag`` against ``gold`` category lists, per category.

    Parameters
    ----------
    sentences
        Sentences.
    gold
        Each one's annotated categories.
    """
    predicted = tag_all(sentences)
    rows = []
    for category in TAGGED:
        truth = [category in g for g in gold]
        guess = [category in p for p in predicted]
        tp = sum(t and g for t, g in zip(truth, guess, strict=True))
        precision = tp / max(1, sum(guess))
        recall = tp / max(1, sum(truth))
        f1 = 2 * precision * recall / max(1e-12, precision + recall)
        rows.append(
            {
                "category": category,
                "gold": sum(truth),
                "tagged": sum(guess),
                "precision": round(precision, 3),
                "recall": round(recall, 3),
                "f1": round(f1, 3),
            }
        )
    return pd.DataFrame(rows)
