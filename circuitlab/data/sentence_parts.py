"""A shapes-world sentence split in two: its skeleton (how it reasons) and its content (what it
talks about).

``skeleton`` keeps the quantifiers, numbers, relations, negations and connectives and puts
"thing"/"things" for every described object: "There are at least two yellow squares touching
the wall" -> "There are at least two things touching the wall". ``content`` keeps only the
object words, in order: "yellow squares". A conditional NAC with ``split_conditioning`` builds
its signatures (the wiring) from the skeleton and its codes from the content, so the circuit's
graph can only carry the logic (see ``SplitEncoder`` in ``circuitlab.data.text``).

The split is by word list: colours, sizes and object nouns of the shapes world (NLVR's
vocabulary). Other words, also unknown ones, count as skeleton.
"""

from __future__ import annotations

import re

ATTRIBUTE_WORDS = frozenset(
    {"black", "yellow", "blue", "small", "medium", "large", "big", "tiny", "little"}
)
OBJECT_NOUNS = frozenset({"square", "circle", "triangle", "item", "object", "shape", "block"})
PLACEHOLDER = ("thing", "things")  # singular, plural
EMPTY_CONTENT = "nothing"  # the content of a sentence that names no object words
_TOKEN = re.compile(r"[A-Za-z]+|[^A-Za-z\s]+")


def _noun(word: str) -> tuple[str, bool] | None:
    """(singular, plural?) if ``word`` is an object noun, else None."""
    lower = word.lower()
    if lower in OBJECT_NOUNS:
        return lower, False
    if lower.endswith("s") and lower[:-1] in OBJECT_NOUNS:
        return lower[:-1], True
    return None


def skeleton(text: str) -> str:
    """``text`` with attribute words dropped and object nouns replaced by thing/things."""
    words = []
    for token in _TOKEN.findall(text):
        if token.lower() in ATTRIBUTE_WORDS:
            continue
        noun = _noun(token)
        words.append(PLACEHOLDER[noun[1]] if noun else token)
    return _join(words)


def content(text: str) -> str:
    """The attribute words and object nouns of ``text``, in order, lower-cased ("nothing"
    when there are none)."""
    words = [t.lower() for t in _TOKEN.findall(text) if t.lower() in ATTRIBUTE_WORDS or _noun(t)]
    return " ".join(words) or EMPTY_CONTENT


def _join(tokens: list[str]) -> str:
    """Words joined by spaces, punctuation attached to the word before it."""
    out = ""
    for token in tokens:
        attach = not token[0].isalnum() and token[0] not in "(\"'"
        out += token if (attach or not out) else " " + token
    return out
