"""Frozen CLIP features for NLVR2 (for users who have the images and a CLIP model).

``compute_features`` reads an official NLVR2 JSON-lines file, finds each example's two images
(``<identifier minus its last -N>-img0.png`` and ``-img1.png``, anywhere under the images folder,
.png or .jpg), and caches, under ``out``:

- ``images.pt``: pair id -> (2, P, D) float16, CLIP's projected patch tokens (class token first)
  of the left and right image;
- ``text.pt``: sentence -> (T, D) float16, CLIP's projected text token states;
- ``examples.parquet``: identifier, sentence, label, pair;
- ``meta.json``: the CLIP folder, D, P.

The CLIP model is a Hugging Face ``transformers`` CLIP folder the user brings (``CLIPModel`` and
``CLIPProcessor`` files); nothing is downloaded. Work is saved every ``save_every`` batches, and a
second call skips what is cached, so an interrupted run loses little.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import torch
from tqdm import tqdm

from circuitlab.data.nlvr import read_nlvr2
from circuitlab.files import write_atomic

__all__ = ["compute_features", "load_features"]

IMAGES, TEXT, EXAMPLES, META = "images.pt", "text.pt", "examples.parquet", "meta.json"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def pair_id(identifier: str) -> str:
    """ "dev-850-0-1" -> "dev-850-0": the image pair an NLVR2 example is about."""
    return identifier.rsplit("-", 1)[0]


def _index_images(images: Path) -> dict[str, Path]:
    if not images.is_dir():
        raise FileNotFoundError(f"--images {images}: no such folder")
    return {p.stem: p for p in images.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES}


def _load_clip(clip_dir: Path, device: str):  # noqa: ANN202 - transformers objects, lazy import
    try:
        from transformers import CLIPModel, CLIPProcessor
    except ImportError as err:
        raise ImportError("CLIP features need transformers: pip install circuitlab[clip]") from err
    if not (clip_dir / "config.json").is_file():
        raise FileNotFoundError(
            f"--clip {clip_dir}: not a CLIP model folder (no config.json); save one with "
            "CLIPModel.save_pretrained and CLIPProcessor.save_pretrained"
        )
    model = CLIPModel.from_pretrained(str(clip_dir)).to(device).eval()
    return model, CLIPProcessor.from_pretrained(str(clip_dir))


def _save(obj: object, path: Path) -> None:
    write_atomic(path, lambda tmp: torch.save(obj, tmp))


def _load(path: Path) -> dict:
    return torch.load(path, weights_only=True) if path.is_file() else {}


@torch.no_grad()
def compute_features(
    nlvr2_file: str | os.PathLike,
    images: str | os.PathLike,
    clip_dir: str | os.PathLike,
    out: str | os.PathLike,
    *,
    device: str = "cpu",
    batch_size: int = 16,
    save_every: int = 20,
    progress: bool = True,
) -> Path:
    """Compute (or complete) the feature cache of ``nlvr2_file`` in ``out``; returns ``out``.

    Parameters
    ----------
    nlvr2_file, images
        An NLVR2 file (official format) and the folder of its images.
    clip_dir, out
        A Hugging Face ``transformers`` CLIP folder the user brings; the cache's folder.
    device, batch_size, save_every, progress
        Where CLIP runs; images per forward pass; batches between saves of the cache; a
        progress bar.
    """
    from PIL import Image

    out, clip_dir = Path(out), Path(clip_dir)
    frame = read_nlvr2(nlvr2_file)
    frame["pair"] = frame["identifier"].map(pair_id)
    found = _index_images(Path(images))
    missing = [
        f"{pair}-img{side}"
        for pair in frame["pair"].unique()
        for side in (0, 1)
        if f"{pair}-img{side}" not in found
    ]
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} image(s) missing under {images}, e.g. {missing[:3]} "
            f"(looked for {'/'.join(IMAGE_SUFFIXES)})"
        )
    model, processor = _load_clip(clip_dir, device)
    out.mkdir(parents=True, exist_ok=True)
    image_cache, text_cache = _load(out / IMAGES), _load(out / TEXT)

    pairs = [p for p in frame["pair"].unique() if p not in image_cache]
    for n, start in enumerate(
        tqdm(range(0, len(pairs), batch_size), desc="images", disable=not progress)
    ):
        chunk = pairs[start : start + batch_size]
        pictures = [
            Image.open(found[f"{p}-img{side}"]).convert("RGB") for p in chunk for side in (0, 1)
        ]
        pixels = processor(images=pictures, return_tensors="pt")["pixel_values"].to(device)
        states = model.vision_model(pixel_values=pixels).last_hidden_state
        tokens = model.visual_projection(model.vision_model.post_layernorm(states))
        tokens = tokens.view(len(chunk), 2, *tokens.shape[1:]).to("cpu", torch.float16)
        image_cache.update(zip(chunk, tokens, strict=True))
        if (n + 1) % save_every == 0:
            _save(image_cache, out / IMAGES)
    if pairs:
        _save(image_cache, out / IMAGES)

    sentences = [s for s in frame["sentence"].unique() if s not in text_cache]
    for start in tqdm(range(0, len(sentences), 64), desc="text", disable=not progress):
        chunk = sentences[start : start + 64]
        encoded = processor(text=chunk, return_tensors="pt", padding=True, truncation=True)
        mask = encoded["attention_mask"].bool()
        states = model.text_model(
            input_ids=encoded["input_ids"].to(device), attention_mask=mask.to(device)
        ).last_hidden_state
        tokens = model.text_projection(states).to("cpu", torch.float16)
        text_cache.update({s: t[m] for s, t, m in zip(chunk, tokens, mask, strict=True)})
    if sentences:
        _save(text_cache, out / TEXT)

    frame[["identifier", "sentence", "label", "pair"]].to_parquet(out / EXAMPLES)
    first = next(iter(image_cache.values()))
    meta = {"clip": str(clip_dir), "dim": int(first.shape[-1]), "patches": int(first.shape[1])}
    (out / META).write_text(json.dumps(meta, indent=2))
    return out


def load_features(
    features: str | os.PathLike,
) -> tuple[pd.DataFrame, dict[str, torch.Tensor], dict[str, torch.Tensor], dict]:
    """(examples, image tokens by pair, text tokens by sentence, meta) of a feature cache.

    Parameters
    ----------
    features
        The feature cache's folder.
    """
    features = Path(features)
    if not (features / META).is_file():
        raise FileNotFoundError(
            f"{features}: no {META}; compute the features first with "
            "`circuitlab nlvr2 features --images DIR --clip MODEL_DIR --nlvr2 FILE --out DIR`"
        )
    meta = json.loads((features / META).read_text())
    return (
        pd.read_parquet(features / EXAMPLES),
        _load(features / IMAGES),
        _load(features / TEXT),
        meta,
    )
