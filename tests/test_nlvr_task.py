"""The nlvr task: scene tokens, text encoders, batches for every input mode, the tagger."""

from __future__ import annotations

import json
import os
import random
import time
import warnings
from pathlib import Path

import pytest
import torch

from circuitlab.data.nlvr import read_annotations, read_nlvr
from circuitlab.data.tagger import tag, tagger_scores
from circuitlab.data.text import MiniLMEncoder, WordEncoder
from circuitlab.device import pick_device
from circuitlab.worlds.scene_tokens import FEATURES, SCENE_TOKEN_DIM, scene_tokens
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.nlvr import sentence_pool
from circuitlab.worlds.world import MAX_OBJECTS, Scene, random_scene
from tests.test_world import SCATTERED, TOWERS


def test_scene_tokens_describe_each_object():
    tokens, mask = scene_tokens([SCATTERED, TOWERS])
    assert tokens.shape == (2, 7, SCENE_TOKEN_DIM) and mask.sum(1).tolist() == [6, 7]
    f = {name: i for i, name in enumerate(FEATURES)}
    first = tokens[0, 0]  # black square, size 20 at (0, 80) in box 0: touches left and bottom
    assert (
        first[f["box_0"]] == 1 and first[f["colour_Black"]] == 1 and first[f["shape_square"]] == 1
    )
    assert first[f["touches_left"]] == 1 and first[f["touches_bottom"]] == 1
    assert first[f["touches_right"]] == 0 and first[f["size_20"]] == 1
    assert torch.isclose(first[f["x"]], torch.tensor(0.1)) and first[f["box_count"]] == 3 / 8
    base, middle, top = tokens[1, 0], tokens[1, 1], tokens[1, 2]  # the first tower
    assert base[f["level_0"]] == 1 and middle[f["level_1"]] == 1 and top[f["level_2"]] == 1
    assert top[f["top"]] == 1 and base[f["top"]] == 0
    assert not mask[0, 6:].any() and (tokens[0, 6:] == 0).all()


def test_word_encoder_ids_mask_and_errors():
    enc = WordEncoder(buckets=512)
    tokens, mask = enc.encode(["There is a box.", "two  black squares"])
    assert tokens.dtype == torch.long and tokens.shape == (2, 5)
    assert mask.sum(1).tolist() == [5, 3] and (tokens[1, 3:] == 0).all()
    assert tokens[0, 3].item() == enc.word_id("box") and (tokens[mask] > 0).all()
    assert torch.equal(enc.encode(["There is a box."])[0][0], tokens[0])
    assert enc.encode(["Ça touche le bord"])[1].sum() == 4  # non-ASCII: encoded as it is
    with pytest.raises(ValueError, match="sentence 1 is empty"):
        enc.encode(["fine", "  "])
    with pytest.warns(UserWarning, match="1 sentence.* cut to 64"):
        long_tokens, _ = enc.encode(["word " * 600])
    assert long_tokens.shape == (1, 64)


def test_minilm_encoders_of_one_folder_read_each_shard_once(tmp_path, monkeypatch):
    import circuitlab.data.text as text

    first = MiniLMEncoder(cache_dir=tmp_path)
    tokens, _ = first.encode(["There is a yellow block."])
    loads = []
    real_load = torch.load
    monkeypatch.setattr(text.torch, "load", lambda *a, **k: loads.append(a) or real_load(*a, **k))
    second = MiniLMEncoder(cache_dir=tmp_path)  # the same process: nothing to read again
    again, _ = second.encode(["There is a yellow block."])
    assert loads == [] and second._model is None and torch.equal(again, tokens)
    # a shard another process wrote since is read once, on the next call
    torch.save({"A sentence from elsewhere.": torch.ones(3, 384).half()}, tmp_path / "other.pt")
    elsewhere, mask = second.encode(["A sentence from elsewhere."])
    assert len(loads) == 1 and second._model is None and first._model is not None
    assert torch.equal(elsewhere[0, :3], torch.ones(3, 384)) and mask.sum() == 3
    first.encode(["A sentence from elsewhere."])
    assert len(loads) == 1


def test_minilm_encoder_reads_only_the_shards_holding_its_sentences(tmp_path, monkeypatch):
    import circuitlab.data.text as text

    monkeypatch.setattr(text, "_SHARD_CACHES", {})
    torch.save({"one": torch.ones(2, 384).half()}, tmp_path / "a.pt")  # sidecars written below
    torch.save({"two": torch.full((3, 384), 2.0).half()}, tmp_path / "b.pt")
    MiniLMEncoder(cache_dir=tmp_path).encode(["one"])  # indexes both shards, reading them once
    assert json.loads((tmp_path / "b.keys.json").read_text()) == ["two"]
    monkeypatch.setattr(text, "_SHARD_CACHES", {})  # a fresh process
    loads, real_load = [], torch.load
    monkeypatch.setattr(text.torch, "load", lambda f, **k: loads.append(f) or real_load(f, **k))
    encoder = MiniLMEncoder(cache_dir=tmp_path)
    tokens, mask = encoder.encode(["two"])
    assert [Path(p).name for p in loads] == ["b.pt"] and encoder._model is None
    assert torch.equal(tokens[0], torch.full((3, 384), 2.0)) and mask.sum() == 3
    encoder.encode(["two", "one"])
    assert [Path(p).name for p in loads] == ["b.pt", "a.pt"]
    monkeypatch.setattr(text, "_SHARD_CACHES", {})
    fresh = MiniLMEncoder(cache_dir=tmp_path)
    fresh._load_cache([])  # both indexed by their sidecars, neither read
    (tmp_path / "a.pt").unlink()  # removed before it is read: its sentence is encoded again
    tokens, mask = fresh.encode(["one"])
    assert fresh._model is not None and tokens.shape[2] == 384 and mask.sum() > 0


def test_minilm_encoder_lists_its_folder_again_only_once_it_changed(tmp_path, monkeypatch):
    """Listing the cache folder on every encode cost milliseconds a call in the app; a folder
    whose mtime has not moved (and is old enough to trust) is not listed again."""
    import circuitlab.data.text as text

    monkeypatch.setattr(text, "_SHARD_CACHES", {})
    torch.save({"one": torch.ones(2, 384).half()}, tmp_path / "a.pt")
    encoder = MiniLMEncoder(cache_dir=tmp_path)
    encoder.encode(["one"])  # writes a.pt's sidecar
    old = time.time_ns() - 10**10
    os.utime(tmp_path, ns=(old, old))
    listings, real_glob = [], Path.glob
    monkeypatch.setattr(
        Path, "glob", lambda self, pattern: listings.append(self) or real_glob(self, pattern)
    )
    for _ in range(3):
        tokens, _ = encoder.encode(["one"])
    assert listings == [tmp_path] and torch.equal(tokens[0], torch.ones(2, 384))
    torch.save({"two": torch.full((3, 384), 2.0).half()}, tmp_path / "b.pt")  # mtime moves on
    tokens, mask = encoder.encode(["two"])
    assert listings == [tmp_path] * 2 and encoder._model is None and mask.sum() == 3


def test_minilm_encoder_caches_each_sentence_on_disk(tmp_path):
    enc = MiniLMEncoder(cache_dir=tmp_path)
    tokens, mask = enc.encode(["There is a yellow block.", "Each box has a black item"])
    assert tokens.shape[0] == 2 and tokens.shape[2] == 384 and tokens.dtype == torch.float32
    assert mask[0].sum() < mask[1].sum() + 3 and mask[:, 0].all()
    shards = list(tmp_path.glob("*.pt"))
    assert len(shards) == 1
    fresh = MiniLMEncoder(cache_dir=tmp_path)  # another encoder of the folder
    again, _ = fresh.encode(["Each box has a black item"])
    assert fresh._model is None  # served from the cache, model never loaded
    assert len(list(tmp_path.glob("*.pt"))) == 1
    n = int(mask[1].sum())
    assert torch.allclose(again[0, :n], tokens[1, :n], atol=1e-2)
    # similar sentences get closer mean vectors than unrelated ones
    a, m = enc.encode(["There is a black square.", "There is a dark square.", "Dogs bark loudly."])
    means = (a * m[..., None]).sum(1) / m.sum(1, keepdim=True)
    cos = torch.nn.functional.cosine_similarity
    assert cos(means[0], means[1], dim=0) > cos(means[0], means[2], dim=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cut, _ = enc.encode(["square " * 600])
    assert cut.shape[1] == 256 and any("cut to 256" in str(w.message) for w in caught)


def test_sentence_pools_are_deterministic_and_disjoint():
    train = sentence_pool(40, seed=1)
    assert [s.text for s in train] == [s.text for s in sentence_pool(40, seed=1)]
    val = sentence_pool(20, seed=2, exclude=frozenset(s.text for s in train))
    assert not {s.text for s in train} & {s.text for s in val}
    rng = random.Random(0)
    for s in train:  # each pool sentence is true on some scenes and false on others
        labels = {s.label(random_scene(rng, s.towers)) for _ in range(300)}
        assert labels == {True, False}, s.text


@pytest.mark.parametrize(
    "inputs, conditional", [("scene", True), ("joint", False), ("text", False), ("scene", False)]
)
def test_batches_for_every_input_mode(inputs, conditional):
    encoder = "words" if conditional else "minilm"
    task = make_task(
        "nlvr",
        conditional=conditional,
        inputs=inputs,
        text_encoder=encoder,
        pool_size=30,
        val_pool_size=10,
    )
    batch = task.sample(16, seed=4)
    assert torch.equal(batch.inputs, task.sample(16, seed=4).inputs)
    assert batch.labels.shape == (16,) and batch.input_mask.shape == batch.inputs.shape[:2]
    assert batch.inputs.shape[-1] == task.input_dim
    if conditional:
        assert (
            batch.conditioning.dtype == torch.long
            and batch.conditioning_mask.shape == batch.conditioning.shape
        )
    else:
        assert batch.conditioning is None
    if inputs == "joint":  # object tokens first, then text tokens with the flag set
        flags = batch.inputs[..., -1]
        assert ((flags == 1) | ~batch.input_mask).sum() > 0
        assert (batch.inputs[..., :SCENE_TOKEN_DIM][flags == 1] == 0).all()
    examples = read_nlvr("nlvr-dev")[:8]
    real = task.batch_for(examples)
    assert real.labels.tolist() == [int(e.label) for e in examples]


def test_a_conditional_joint_batch_is_the_baselines_tokens_with_the_sentence_as_conditioning():
    options = dict(inputs="joint", text_encoder="minilm", pool_size=30, val_pool_size=10)
    joint = make_task("nlvr", conditional=True, **options)
    baseline = make_task("nlvr", conditional=False, **options)
    scene = make_task("nlvr", conditional=True, **{**options, "inputs": "scene"})
    batch, reference, circuit_only = (t.sample(8, seed=3) for t in (joint, baseline, scene))
    assert joint.input_dim == baseline.input_dim == batch.inputs.shape[-1]
    assert torch.equal(batch.inputs, reference.inputs)
    assert torch.equal(batch.input_mask, reference.input_mask)
    assert torch.equal(batch.conditioning, circuit_only.conditioning)
    assert torch.equal(batch.conditioning_mask, circuit_only.conditioning_mask)
    # the sentence tokens among the inputs are the conditioning's, behind the objects
    n = circuit_only.inputs.shape[1]
    text = batch.inputs[:, n:, SCENE_TOKEN_DIM:-1]
    assert torch.equal(text, batch.conditioning[:, : text.shape[1]])


def test_text_input_dropout_hides_the_sentence_tokens_of_that_share_of_training_examples():
    options = dict(inputs="joint", text_encoder="minilm", pool_size=30, val_pool_size=10)
    plain = make_task("nlvr", conditional=True, **options)
    batches = {
        p: make_task("nlvr", conditional=True, text_input_dropout=p, **options).sample(64, 5)
        for p in (0.0, 0.5, 1.0)
    }
    reference = plain.sample(64, 5)
    is_text = reference.inputs[..., -1] == 1
    for p, batch in batches.items():
        assert torch.equal(batch.inputs, reference.inputs)  # same examples, same tokens
        assert torch.equal(batch.conditioning, reference.conditioning)
        objects_kept = batch.input_mask[~is_text] == reference.input_mask[~is_text]
        assert objects_kept.all()
        hidden = (reference.input_mask & is_text).any(1) & ~(batch.input_mask & is_text).any(1)
        assert hidden.float().mean().item() == pytest.approx(p, abs=0.15)
        # a hidden example loses every sentence token, a kept one none
        text_kept = (batch.input_mask & is_text).sum(1)
        assert torch.equal(text_kept[~hidden], (reference.input_mask & is_text).sum(1)[~hidden])
    assert torch.equal(batches[0.0].input_mask, reference.input_mask)
    validation = make_task("nlvr", conditional=True, text_input_dropout=1.0, **options)
    assert torch.equal(validation.validation(16, 2).input_mask, plain.validation(16, 2).input_mask)
    with pytest.raises(ValueError, match="needs a conditional model with inputs='joint'"):
        make_task("nlvr", conditional=True, text_input_dropout=0.5, pool_size=5)
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        make_task("nlvr", conditional=True, text_input_dropout=1.5, **options)


def test_bad_task_options_are_named():
    with pytest.raises(ValueError, match="use inputs='scene' or 'joint'"):
        make_task("nlvr", conditional=True, inputs="text", pool_size=5)
    with pytest.raises(ValueError, match="needs a text encoder that gives vectors"):
        make_task("nlvr", conditional=False, inputs="text", text_encoder="words", pool_size=5)
    with pytest.raises(ValueError, match="unknown text encoder"):
        make_task("nlvr", text_encoder="bert", pool_size=5)


def test_tagger_beats_the_design_baseline_on_the_800_annotations():
    gold = read_annotations()
    scores = tagger_scores(gold["sentence"].tolist(), gold["categories"].tolist()).set_index(
        "category"
    )
    # the first, quick regex tagger: precision / recall on these four categories
    baseline = {
        "hard cardinality": (0.57, 0.99),
        "soft cardinality": (0.77, 0.95),
        "existential quantifier": (0.47, 0.98),
        "spatial relation": (0.84, 0.66),
    }
    for category, (precision, recall) in baseline.items():
        row = scores.loc[category]
        assert row["f1"] > 2 * precision * recall / (precision + recall), category
    assert (scores["f1"] > 0.75).all()
    assert tag("There are exactly two dogs and no cats.") == [
        "hard cardinality",
        "existential quantifier",
        "negation",
        "coordination",
    ]
    assert tag("At least one image shows a dog on a sofa.") == [
        "soft cardinality",
        "spatial relation",
    ]


def test_out_of_distribution_asks_the_same_scattered_sentences_about_crowded_boxes():
    task = make_task("nlvr", conditional=True, text_encoder="words", pool_size=30, val_pool_size=20)
    iid = task.scattered_validation(48, seed=3)
    ood = task.out_of_distribution(48, seed=3)
    assert torch.equal(iid.conditioning, ood.conditioning)  # the same sentences, in order
    box_count = FEATURES.index("box_count")
    levels = [i for i, name in enumerate(FEATURES) if name.startswith("level_")]
    for batch, low, high in ((iid, 1, MAX_OBJECTS), (ood, MAX_OBJECTS + 1, 12)):
        per_box = batch.inputs[..., box_count][batch.input_mask] * MAX_OBJECTS
        assert low - 1e-4 <= per_box.min() and per_box.max() <= high + 1e-4
        assert batch.inputs[..., levels].sum() == 0  # no tower scenes
        assert 0.25 < batch.labels.float().mean() < 0.75


def test_heldout_sentences_extend_the_validation_pool_with_unseen_sentences():
    task = make_task("nlvr", conditional=True, text_encoder="words", pool_size=30, val_pool_size=10)
    assert task.heldout_sentences(6) == task.val_pool[:6]
    sentences = task.heldout_sentences(40)
    texts = [s.text for s in sentences]
    assert texts[:10] == [s.text for s in task.val_pool]
    assert len(set(texts)) == 40
    assert not set(texts) & {s.text for s in task.pool}
    assert [s.text for s in task.heldout_sentences(40)] == texts  # seeded


def test_validation_on_scenes_labels_held_out_sentences_on_the_given_scenes():
    task = make_task("nlvr", conditional=True, text_encoder="words", pool_size=30, val_pool_size=20)
    scenes = [Scene(e.boxes) for e in read_nlvr("nlvr-test")]
    examples = task.validation_on_scenes(scenes, 200, seed=5)
    sentences = {s.text: s for s in task.val_pool}
    assert len(examples) > 180  # a draw is skipped only when no scene gives its label
    for example in examples:
        sentence = sentences[example.sentence]  # a held-out sentence
        assert example.scene in scenes and example.scene.is_towers == sentence.towers
        assert sentence.label(example.scene) == example.label
        assert example.categories == tuple(sorted(sentence.categories))
    assert 0.4 < sum(e.label for e in examples) / len(examples) < 0.6
    again = task.validation_on_scenes(scenes, 200, seed=5)
    assert [(e.sentence, e.label) for e in again] == [(e.sentence, e.label) for e in examples]
    with pytest.raises(ValueError, match="tower scenes"):
        task.validation_on_scenes([s for s in scenes if not s.is_towers], 50, seed=5)


def test_minilm_encoder_runs_where_pick_device_says_and_agrees_with_the_cpu(tmp_path):
    sentences = ["There is a yellow block.", "Each box has at most two black items"]
    auto = MiniLMEncoder(cache_dir=tmp_path / "auto")
    on_cpu = MiniLMEncoder(cache_dir=tmp_path / "cpu", device="cpu")
    (tokens, mask), (cpu_tokens, cpu_mask) = auto.encode(sentences), on_cpu.encode(sentences)
    assert auto._model.device.type == pick_device("auto").type
    assert on_cpu._model.device.type == "cpu"
    assert torch.equal(mask, cpu_mask) and tokens.device.type == "cpu"
    assert torch.allclose(tokens, cpu_tokens, atol=1e-2)  # float16 cache either way
