"""NLVR2's own words, read from the NLVR2 sentences that ship with circuitlab (dev and test1).

``object_nouns`` finds the nouns NLVR2's writers count: a word counts as a noun when its plural
follows a quantity ("two dogs", "at least three bottles", "several pillows") and its singular
follows an article or "one", "each", "single" ("a dog", "the bottle"), both often enough (verbs
such as "shows" fail the second test, and a word found more often after "image", "it", "which"
... is a verb); nouns are ranked by how often either form occurs. Words
that name the images, an amount or a body part rather than an object someone would count in a
photo (``NOT_OBJECTS``) are left out.

``words(text)`` is the tokenisation every count here uses: lower case, runs of letters.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from circuitlab.data.nlvr import read_nlvr2

__all__ = ["NounForms", "object_nouns", "word_coverage", "words"]

SOURCES = ("nlvr2-dev", "nlvr2-test1")
_LETTERS = re.compile(r"[a-z]+")
QUANTITIES = frozenset(
    "two three four five six seven eight nine ten several multiple many some more fewer "
    "both all no".split()
    + [str(n) for n in range(2, 21)]
)
SINGULAR_MARKERS = frozenset("a an the one each single every another".split())
# a verb's -s form follows a singular subject ("the image contains"): a word found there more
# often than counted after a quantity is a verb, not a noun
SUBJECTS = frozenset("image picture photo it which that who".split())
NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten".split())
# words whose plural follows quantities but that name the images, parts of the picture, an
# amount or a body part: not objects someone would count in a photo
NOT_OBJECTS = frozenset(
    "image picture photo pic pair side total number time color colour kind type way direction "
    "set group row part piece shade item thing object other stack model case shape "
    "hand leg paw eye finger foot head ear tail stripe".split()
)
IRREGULAR_PLURALS = {
    "people": "person",
    "men": "man",
    "women": "woman",
    "children": "child",
    "geese": "goose",
    "oxen": "ox",
    "mice": "mouse",
    "teeth": "tooth",
    "feet": "foot",
}
WINDOW = 3  # a plural counts when it is one of the three words after a quantity


@dataclass(frozen=True)
class NounForms:
    """A counted noun: its singular and plural, and how often either occurs in the sentences.

    Parameters
    ----------
    singular, plural, count
        As above.
    """

    singular: str
    plural: str
    count: int


def words(text: str) -> list[str]:
    """Lower-case runs of letters: "Each image's dog" -> ["each", "image", "s", "dog"].

    Parameters
    ----------
    text
        Any text.
    """
    return _LETTERS.findall(text.lower())


@cache
def nlvr2_sentences(sources: tuple[str, ...] = SOURCES) -> tuple[str, ...]:
    """The distinct sentences of the NLVR2 files ``sources``, in file order."""
    seen: dict[str, None] = {}
    for source in sources:
        for sentence in read_nlvr2(source)["sentence"]:
            seen.setdefault(sentence, None)
    return tuple(seen)


def _singular(plural: str, vocabulary: Counter) -> str | None:
    """The singular of ``plural`` that occurs in ``vocabulary``, or None when none does."""
    if plural in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[plural]
    if not plural.endswith("s") or plural.endswith("ss") or len(plural) < 4:
        return None
    candidates = [plural[:-1]]
    if plural.endswith("ies"):
        candidates.insert(0, plural[:-3] + "y")
    if plural.endswith("ves"):
        candidates += [plural[:-3] + "f", plural[:-3] + "fe"]
    if plural.endswith("es"):
        candidates.append(plural[:-2])
    found = [c for c in candidates if vocabulary[c] > 0]
    return found[0] if found else None


def object_nouns(
    n: int = 60, sentences: Iterable[str] | None = None, min_counted: int = 3
) -> list[NounForms]:
    """The ``n`` most frequent nouns counted in ``sentences`` (default: NLVR2 dev and test1).

    A plural counts as counted when it is the first plural within ``WINDOW`` words after a
    quantity word; a noun needs ``min_counted`` such uses and as many of its singular right after
    a ``SINGULAR_MARKERS`` word. Frequency is the occurrences of both forms.

    Parameters
    ----------
    n, sentences
        As above.
    min_counted
        Times a noun must be counted to be kept.
    """
    if sentences is None:  # NLVR2's nouns: counted once a process (the app asks four times)
        return list(_nlvr2_nouns(min_counted)[:n])
    return _count_nouns(sentences, min_counted)[:n]


@cache
def _nlvr2_nouns(min_counted: int) -> tuple[NounForms, ...]:
    return tuple(_count_nouns(nlvr2_sentences(), min_counted))


def _count_nouns(sentences: Iterable[str], min_counted: int) -> list[NounForms]:
    """Every counted noun of ``sentences``, most frequent first (``object_nouns``)."""
    tokenised = [words(s) for s in sentences]
    vocabulary = Counter(w for ws in tokenised for w in ws)
    after_marker = Counter(
        ws[i + 1] for ws in tokenised for i in range(len(ws) - 1) if ws[i] in SINGULAR_MARKERS
    )
    after_subject = Counter(
        ws[i + 1] for ws in tokenised for i in range(len(ws) - 1) if ws[i] in SUBJECTS
    )
    counted: Counter = Counter()
    for ws in tokenised:
        for i, word in enumerate(ws):
            if word not in QUANTITIES:
                continue
            for follower in ws[i + 1 : i + 1 + WINDOW]:
                singular = _singular(follower, vocabulary)
                if singular is not None:
                    counted[(singular, follower)] += 1
                    break
    best: dict[str, tuple[str, int]] = {}  # singular -> its most counted plural
    for (singular, plural), uses in counted.items():
        if uses >= min_counted and uses > best.get(singular, ("", 0))[1]:
            best[singular] = (plural, uses)
    nouns = [
        NounForms(singular, plural, vocabulary[singular] + vocabulary[plural])
        for singular, (plural, _) in best.items()
        if singular not in NOT_OBJECTS | NUMBER_WORDS
        and after_marker[singular] >= min_counted
        and after_subject[plural] <= counted[(singular, plural)]
    ]
    nouns.sort(key=lambda f: (-f.count, f.singular))
    return nouns


def word_coverage(produced: Iterable[str], sentences: Sequence[str]) -> float:
    """The share of the word occurrences in ``sentences`` whose word occurs in ``produced``
    (texts): how much of a corpus's running text a generator's vocabulary can write.

    Parameters
    ----------
    produced, sentences
        As above.
    """
    known = {w for text in produced for w in words(text)}
    occurrences = [w for s in sentences for w in words(s)]
    if not occurrences:
        raise ValueError("no words in the sentences to cover")
    return sum(w in known for w in occurrences) / len(occurrences)
