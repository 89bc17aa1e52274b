"""A sentence split in two: its skeleton (how it reasons) and its content (what it talks about).

``skeleton`` keeps the quantifiers, numbers, relations, negations, image references and
connectives and puts "thing"/"things" for every described object: "There are at least two
yellow squares touching the wall" -> "There are at least two things touching the wall".
``content`` keeps only the object words, in order: "yellow squares". A conditional NAC with
``split_conditioning`` builds its signatures (the wiring) from the skeleton and its codes from
the content, so the circuit's graph can only carry the logic (see ``SplitEncoder`` in
``circuitlab.data.text``).

The split is by a ``Vocabulary``: attribute phrases (dropped from the skeleton) and object
nouns in both numbers (replaced by thing/things). ``"shapes"``: the shapes world's colours, sizes
and shape nouns (NLVR's vocabulary). ``"pairs"``: the pair world's colours, sizes, poses and
facings as whole phrases ("facing left", "turned to the left": so "left" stays in the skeleton
where it names an image or a relation) and every counted NLVR2 noun. Other words, also unknown
ones, count as skeleton. A vocabulary with ``article_agreement`` turns "an" before a placeholder
into "a" ("an animal" -> "a thing"): otherwise the skeleton, which should carry the logic
only, would tell whether the dropped words began with a vowel. "shapes" keeps "an" ("an object"
-> "an thing") because the shapes-world models were trained on those skeletons.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["PLACEHOLDER", "SHAPES", "Vocabulary", "content", "skeleton"]

PLACEHOLDER = ("thing", "things")  # singular, plural
EMPTY_CONTENT = "nothing"  # the content of a sentence that names no object words
_TOKEN = re.compile(r"[A-Za-z]+|[^A-Za-z\s]+")


@dataclass(frozen=True)
class Vocabulary:
    """What counts as content: ``attributes``, phrases as tuples of lower-case words, and
    ``nouns``, each form (lower case) mapped to whether it is plural.

    Parameters
    ----------
    name
        The vocabulary's name.
    attributes, nouns
        As above.
    article_agreement
        "an" before a placeholder becomes "a" in the skeleton, as the module docstring says.
    """

    name: str
    attributes: frozenset[tuple[str, ...]]
    nouns: dict[str, bool]
    article_agreement: bool = False

    @classmethod
    def of(
        cls,
        name: str,
        attributes: Iterable[str],
        nouns: Iterable[tuple[str, str]],
        article_agreement: bool = False,
    ) -> Vocabulary:
        """From attribute phrases ("lying down") and (singular, plural) noun pairs."""
        forms: dict[str, bool] = {}
        for singular, plural in nouns:
            forms.setdefault(singular.lower(), False)
            forms.setdefault(plural.lower(), True)
        attribute_words = frozenset(tuple(a.lower().split()) for a in attributes)
        return cls(name, attribute_words, forms, article_agreement)

    @property
    def longest_attribute(self) -> int:
        return max(map(len, self.attributes), default=0)


SHAPE_NOUNS = ("square", "circle", "triangle", "item", "object", "shape", "block")
SHAPES = Vocabulary.of(
    "shapes",
    ("black", "yellow", "blue", "small", "medium", "large", "big", "tiny", "little"),
    ((noun, noun + "s") for noun in SHAPE_NOUNS),
)


def _parts(text: str, vocab: Vocabulary) -> list[tuple[str, str]]:
    """``text`` as (kind, words) runs: kind "attribute", "noun", "plural" or "other"."""
    tokens = _TOKEN.findall(text)
    lower = [t.lower() for t in tokens]
    parts, i = [], 0
    while i < len(tokens):
        for length in range(min(vocab.longest_attribute, len(tokens) - i), 0, -1):
            if tuple(lower[i : i + length]) in vocab.attributes:
                parts.append(("attribute", " ".join(lower[i : i + length])))
                i += length
                break
        else:
            plural = vocab.nouns.get(lower[i])
            kind = "other" if plural is None else ("plural" if plural else "noun")
            parts.append((kind, tokens[i] if kind == "other" else lower[i]))
            i += 1
    return parts


def skeleton(text: str, vocab: Vocabulary = SHAPES) -> str:
    """``text`` with attribute phrases dropped and object nouns replaced by thing/things.

    Parameters
    ----------
    text
        A sentence.
    vocab
        What counts as content.
    """
    words = []
    for kind, word in _parts(text, vocab):
        if kind == "other":
            words.append(word)
        elif kind != "attribute":
            if vocab.article_agreement and words and words[-1].lower() == "an":
                words[-1] = words[-1][0]  # "an"/"An" -> "a"/"A"
            words.append(PLACEHOLDER[kind == "plural"])
    return _join(words)


def content(text: str, vocab: Vocabulary = SHAPES) -> str:
    """The attribute phrases and object nouns of ``text``, in order, lower-cased ("nothing"
    when there are none).

    Parameters
    ----------
    text
        A sentence.
    vocab
        What counts as content.
    """
    words = [word for kind, word in _parts(text, vocab) if kind != "other"]
    return " ".join(words) or EMPTY_CONTENT


def _join(tokens: list[str]) -> str:
    """Words joined by spaces, punctuation attached to the word before it."""
    out = ""
    for token in tokens:
        attach = not token[0].isalnum() and token[0] not in "(\"'"
        out += token if (attach or not out) else " " + token
    return out
