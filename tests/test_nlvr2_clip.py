"""NLVR2 with images, end to end on generated images and a small randomly initialised CLIP."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

from circuitlab.data.clip_features import load_features
from circuitlab.worlds.tasks import make_task


def _byte_symbols() -> list[str]:
    """The 256 printable stand-ins byte-level BPE uses for bytes (GPT-2's table)."""
    keep = [*range(33, 127), *range(161, 173), *range(174, 256)]
    extra = [b for b in range(256) if b not in keep]
    table = dict(zip(keep, keep, strict=True)) | {b: 256 + i for i, b in enumerate(extra)}
    return [chr(table[b]) for b in range(256)]


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    from transformers import (
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPProcessor,
        CLIPTokenizer,
    )

    folder = tmp_path_factory.mktemp("clip")
    symbols = _byte_symbols()
    vocab = {s: i for i, s in enumerate(symbols)} | {
        s + "</w>": 256 + i for i, s in enumerate(symbols)
    }
    vocab |= {"<|startoftext|>": 512, "<|endoftext|>": 513}
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = CLIPTokenizer(
        vocab_file=str(folder / "vocab.json"), merges_file=str(folder / "merges.txt")
    )
    text = dict(
        vocab_size=514,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        max_position_embeddings=77,
        bos_token_id=512,
        eos_token_id=513,
        pad_token_id=513,
    )
    vision = dict(
        image_size=32,
        patch_size=8,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
    )
    torch.manual_seed(0)
    CLIPModel(
        CLIPConfig(text_config=text, vision_config=vision, projection_dim=16)
    ).save_pretrained(folder)
    images = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    CLIPProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    return folder


def _dataset(folder, n_pairs=6):
    from PIL import Image

    rng = np.random.default_rng(0)
    images = folder / "images" / "dev"
    images.mkdir(parents=True)
    lines = []
    for p in range(n_pairs):
        for side in (0, 1):
            pixels = (rng.random((40 + 4 * p, 48, 3)) * 255).astype("uint8")
            Image.fromarray(pixels).save(images / f"dev-{p}-0-img{side}.png")
        for k in range(2):
            sentence = f"There are {p + k} dogs." if k else f"One image shows {p} cats."
            lines.append(
                {
                    "identifier": f"dev-{p}-0-{k}",
                    "sentence": sentence,
                    "label": "True" if (p + k) % 2 else "False",
                }
            )
    path = folder / "nlvr2.json"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder / "images", path


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "circuitlab", *args], capture_output=True, text=True
    )


def _features(images, clip, nlvr2, out):
    """`circuitlab nlvr2 features` on CPU."""
    return _cli(
        "nlvr2",
        "features",
        "--images",
        str(images),
        "--clip",
        str(clip),
        "--nlvr2",
        str(nlvr2),
        "--out",
        str(out),
        "--device",
        "cpu",
    )


@pytest.mark.slow(58)
def test_features_then_training_through_the_same_code_path(tiny_clip, tmp_path):
    images, nlvr2 = _dataset(tmp_path)
    out = tmp_path / "features"
    result = _features(images, tiny_clip, nlvr2, out)
    assert result.returncode == 0, result.stderr
    examples, pairs, text, meta = load_features(out)
    assert len(examples) == 12 and len(pairs) == 6 and len(text) == 12
    assert meta["dim"] == 16 and meta["patches"] == 17  # (32 / 8)^2 patches + the class token
    assert pairs["dev-3-0"].shape == (2, 17, 16)
    assert not torch.equal(pairs["dev-3-0"][0], pairs["dev-3-0"][1])  # two different images
    stamp = (out / "images.pt").stat().st_mtime_ns
    again = _features(images, tiny_clip, nlvr2, out)
    assert again.returncode == 0
    assert torch.equal(load_features(out)[1]["dev-3-0"], pairs["dev-3-0"])  # served from the cache
    assert (out / "images.pt").stat().st_mtime_ns == stamp  # nothing new: not rewritten

    task = make_task("nlvr2", conditional=True, features=str(out), val_fraction=0.3)
    batch = task.sample(5, seed=1)
    assert batch.inputs.shape == (5, 34, 18) and batch.conditioning.shape[-1] == 16
    assert (batch.inputs[:, :17, 16] == 1).all() and (batch.inputs[:, 17:, 17] == 1).all()

    run = tmp_path / "run"
    trained = _cli(
        "train",
        "--task",
        "nlvr2",
        "--features",
        str(out),
        "--conditional",
        "--steps",
        "3",
        "--batch-size",
        "4",
        "--eval-every",
        "3",
        "--eval-size",
        "4",
        "--out",
        str(run),
        "--no-progress",
        "--device",
        "cpu",
        "-m",
        "n_processors=4",
        "-m",
        "dim=16",
        "-m",
        "generator_dim=16",
    )
    assert trained.returncode == 0, trained.stderr
    summary = json.loads((run / "summary.json").read_text())
    assert summary["task"] == "nlvr2" and summary["steps"] == 3


def test_missing_images_and_models_are_named(tiny_clip, tmp_path):
    images, nlvr2 = _dataset(tmp_path, n_pairs=2)
    (images / "dev" / "dev-1-0-img1.png").unlink()
    result = _features(images, tiny_clip, nlvr2, tmp_path / "f")
    assert (
        result.returncode == 2
        and "1 image(s) missing" in result.stderr
        and "dev-1-0-img1" in result.stderr
    )
    shutil.copy(images / "dev" / "dev-0-0-img1.png", images / "dev" / "dev-1-0-img1.png")
    result = _features(images, tmp_path, nlvr2, tmp_path / "f")
    assert result.returncode == 2 and "not a CLIP model folder" in result.stderr
