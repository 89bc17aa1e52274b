"""toy-sets: count the tokens of a set that share their colour with the marked token.

Each token is [colour one-hot | shape one-hot | marker flag | gaussian noise]; exactly one token
is marked. Shapes and noise are distractors. No single token carries the answer: it needs the
marked token's colour and the colours of all the others.

Unconditional: the label is k, how many *other* tokens share the marked token's colour
(n_classes classes, balanced).
Conditional: a short "sentence" of token ids asks "are there at least t?" for t in 1, 2, 3 (the
number word, with synonyms, at a random place among filler words), and the label is k >= t
(true/false, balanced over sentences). Scenes are drawn the same way whatever t is, so only the
sentence tells the threshold: a model blind to it can reach 83 % at best, and each sentence gets
its own circuit. (Rules that changed what to count -- colour or shape, or which of two marked
tokens -- plateaued near 50 % at this model size within a test's step budget.)
"""

from __future__ import annotations

import pandas as pd
import torch

from circuitlab.task import Batch

__all__ = ["ToySets"]

FILLERS = ["are", "there", "at", "least", "items", "sharing", "the", "marked", "ones", "colour"]
RULE_WORDS = {
    "at least 1": ["one", "single", "1"],
    "at least 2": ["two", "pair", "2"],
    "at least 3": ["three", "trio", "3"],
}
RULES = list(RULE_WORDS)
VOCAB = ["<pad>", *FILLERS, *(word for words in RULE_WORDS.values() for word in words)]


class ToySets:
    """Seeded sets of tokens to count in (the module docstring says what a batch holds).

    Parameters
    ----------
    conditional
        Give each example a sentence asking "are there at least t?" (labels true/false).
    n_tokens
        Tokens per set.
    n_values
        Colours (and shapes) a token may have.
    n_classes
        Classes of the count (unconditional); the thresholds asked go up to n_classes - 1.
    noise_dim
        Gaussian noise features per token.
    sentence_length
        Tokens of a sentence.
    """

    name = "toy-sets"

    def __init__(
        self,
        *,
        conditional: bool = False,
        n_tokens: int = 8,
        n_values: int = 4,
        n_classes: int = 4,
        noise_dim: int = 4,
        sentence_length: int = 5,
    ) -> None:
        if not 2 <= n_classes < n_tokens:
            raise ValueError(f"need 2 <= n_classes < n_tokens, got {n_classes} and {n_tokens}")
        if n_values < 2:
            raise ValueError(f"n_values must be >= 2, got {n_values}")
        self.conditional = conditional
        self.n_tokens, self.n_values, self.n_classes = n_tokens, n_values, n_classes
        self.noise_dim, self.sentence_length = noise_dim, sentence_length
        if conditional and n_classes - 1 > len(RULES):
            raise ValueError(f"the conditional task asks for thresholds up to {len(RULES)}")
        self.input_dim = 2 * n_values + 1 + noise_dim
        self.cond_vocab = len(VOCAB) if conditional else None
        self.cond_dim = None  # conditioning is token ids (cond_vocab), embedded by the model
        self.count_range = n_classes  # k is drawn from 0 .. n_classes - 1 in both variants
        if conditional:
            self.n_classes = 2

    def sample(self, batch_size: int, seed: int, n_tokens: int | None = None) -> Batch:
        """A batch that depends only on ``seed``; scenes of ``n_tokens`` (the task's if None)."""
        g = torch.Generator().manual_seed(seed)
        b, n, a = batch_size, n_tokens or self.n_tokens, self.n_values
        counts = torch.randint(0, self.count_range, (b,), generator=g)
        marked = torch.randint(0, a, (b, 1), generator=g)
        different = (marked + torch.randint(1, a, (b, n - 1), generator=g)) % a
        same = torch.arange(n - 1).unsqueeze(0) < counts.unsqueeze(1)
        colour = torch.cat([marked, torch.where(same, marked, different)], dim=1)
        shape = torch.randint(0, a, (b, n), generator=g)
        marker = torch.zeros(b, n, 1)
        marker[:, 0] = 1.0
        noise = torch.randn(b, n, self.noise_dim, generator=g)
        tokens = torch.cat([torch.eye(a)[colour], torch.eye(a)[shape], marker, noise], dim=-1)
        order = torch.rand(b, n, generator=g).argsort(dim=1)
        tokens = torch.gather(tokens, 1, order.unsqueeze(-1).expand_as(tokens))
        if not self.conditional:
            return Batch(tokens, counts)
        rules = torch.randint(0, len(RULES), (b,), generator=g)  # threshold t = rule + 1
        labels = (counts >= rules + 1).long()
        return Batch(tokens, labels, self._sentences(g, rules))

    def validation(self, batch_size: int, seed: int) -> Batch:
        """Fresh draws: every batch is new data, so validation is ``sample`` with its own seed."""
        return self.sample(batch_size, seed)

    def out_of_distribution(self, batch_size: int, seed: int, scale: float = 2) -> Batch:
        """Held-out scenes with ``scale`` times as many objects (rounded), labels and counts
        drawn as in training: the extra objects are all distractors of other colours, so the
        rule is the same but the sets are larger than any seen in training."""
        n_tokens = round(scale * self.n_tokens)
        if n_tokens <= self.n_tokens:
            raise ValueError(f"scale {scale} adds no object to {self.n_tokens}; pass > 1")
        return self.sample(batch_size, seed, n_tokens=n_tokens)

    def _sentences(self, g: torch.Generator, rules: torch.Tensor) -> torch.Tensor:
        """Token ids (B, T): random fillers with one word naming the rule at a random place."""
        batch, length = rules.shape[0], self.sentence_length
        ids = 1 + torch.randint(0, len(FILLERS), (batch, length), generator=g)
        synonym = torch.randint(0, 3, (batch,), generator=g)
        keyword = 1 + len(FILLERS) + rules * 3 + synonym
        where = torch.randint(0, length, (batch,), generator=g)
        ids[torch.arange(batch), where] = keyword
        return ids

    def circuit_inputs(self, n: int, seed: int) -> tuple[Batch, pd.DataFrame]:
        """``n`` distinct sentences (alternating rules) and one row each."""
        if not self.conditional:
            raise ValueError("an unconditional task has a single circuit; nothing to enumerate")
        g = torch.Generator().manual_seed(seed)
        seen: dict[tuple[int, ...], int] = {}
        for _ in range(1000):
            if len(seen) >= n:
                break
            rules = torch.arange(n) % len(RULES)
            for ids, rule in zip(self._sentences(g, rules).tolist(), rules.tolist(), strict=True):
                if len(seen) < n:
                    seen.setdefault(tuple(ids), rule)
        else:
            raise ValueError(f"could not draw {n} distinct sentences; ask for fewer")
        ids = torch.tensor(list(seen))
        frame = pd.DataFrame(
            {
                "text": [" ".join(VOCAB[i] for i in row) for row in ids.tolist()],
                "label": [RULES[r] for r in seen.values()],
                "split": "toy",
                "dataset": self.name,
                "categories": [[RULES[r]] for r in seen.values()],
            }
        )
        labels = torch.zeros(n, dtype=torch.long)
        return Batch(torch.zeros(n, 1, self.input_dim), labels, ids), frame
