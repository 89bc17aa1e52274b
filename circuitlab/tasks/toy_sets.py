"""toy-sets: count the tokens of a set that share an attribute with the marked token.

Each token is [colour one-hot | shape one-hot | marker flag | gaussian noise]. Exactly one token
is marked; the label is how many *other* tokens share the rule's attribute with it (0 to
n_classes - 1, balanced). Unconditional: the attribute is always colour. Conditional: a short
"sentence" of token ids names the attribute (colour or shape, with synonyms among filler words),
so the network must read it to know what to count, and each sentence gets its own circuit.
Solving it needs interaction between tokens: no single token carries the answer.
"""

from __future__ import annotations

import pandas as pd
import torch

from circuitlab.tasks.base import Batch

FILLERS = ["how", "many", "items", "share", "the", "same", "as", "marked", "one", "count", "its"]
RULE_WORDS = {"colour": ["colour", "color", "hue"], "shape": ["shape", "form", "outline"]}
RULES = list(RULE_WORDS)
VOCAB = ["<pad>", *FILLERS, *RULE_WORDS["colour"], *RULE_WORDS["shape"]]


class ToySets:
    name = "toy-sets"

    def __init__(
        self,
        *,
        conditional: bool = False,
        n_tokens: int = 12,
        n_values: int = 4,
        n_classes: int = 4,
        noise_dim: int = 4,
        sentence_length: int = 5,
    ) -> None:
        if n_classes > n_tokens:
            raise ValueError(f"n_classes ({n_classes}) cannot exceed n_tokens ({n_tokens})")
        self.conditional = conditional
        self.n_tokens, self.n_values, self.n_classes = n_tokens, n_values, n_classes
        self.noise_dim, self.sentence_length = noise_dim, sentence_length
        self.input_dim = 2 * n_values + 1 + noise_dim
        self.cond_vocab = len(VOCAB) if conditional else None

    def _attribute(self, g: torch.Generator, batch: int, target: torch.Tensor | None) -> tuple:
        """Attribute values (B, N) with token 0 marked; if ``target`` (B,) is given, exactly
        target[b] other tokens share token 0's value, else values are uniform."""
        n, a = self.n_tokens, self.n_values
        values = torch.randint(0, a, (batch, n), generator=g)
        if target is not None:
            marked = values[:, :1]
            other = (marked + torch.randint(1, a, (batch, n - 1), generator=g)) % a
            same = torch.arange(n - 1).unsqueeze(0) < target.unsqueeze(1)
            values = torch.cat([marked, torch.where(same, marked, other)], dim=1)
        return values

    def sample(self, batch_size: int, seed: int) -> Batch:
        g = torch.Generator().manual_seed(seed)
        labels = torch.randint(0, self.n_classes, (batch_size,), generator=g)
        rules = (
            torch.randint(0, len(RULES), (batch_size,), generator=g)
            if self.conditional
            else torch.zeros(batch_size, dtype=torch.long)
        )
        colour = self._attribute(g, batch_size, None)
        shape = self._attribute(g, batch_size, None)
        counted = self._attribute(g, batch_size, labels)
        colour = torch.where(rules[:, None] == 0, counted, colour)
        shape = torch.where(rules[:, None] == 1, counted, shape)
        a = self.n_values
        marker = torch.zeros(batch_size, self.n_tokens, 1)
        marker[:, 0] = 1.0
        noise = torch.randn(batch_size, self.n_tokens, self.noise_dim, generator=g)
        tokens = torch.cat([torch.eye(a)[colour], torch.eye(a)[shape], marker, noise], dim=-1)
        order = torch.rand(batch_size, self.n_tokens, generator=g).argsort(dim=1)
        tokens = torch.gather(tokens, 1, order.unsqueeze(-1).expand_as(tokens))
        conditioning = self._sentences(g, rules) if self.conditional else None
        return Batch(tokens, labels, conditioning)

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
        """``n`` distinct sentences (half per rule when conditional) and their rows."""
        if not self.conditional:
            raise ValueError("an unconditional task has a single circuit; nothing to enumerate")
        g = torch.Generator().manual_seed(seed)
        seen: dict[tuple[int, ...], int] = {}
        while len(seen) < n:
            rules = torch.arange(n) % len(RULES)
            for ids, rule in zip(self._sentences(g, rules).tolist(), rules.tolist(), strict=True):
                if len(seen) < n:
                    seen.setdefault(tuple(ids), rule)
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
