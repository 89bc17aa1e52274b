"""The pairs task: object tokens of image pairs and batches of the pair world."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import torch

from circuitlab.config_groups import GeneratorConfig
from circuitlab.data.pair_scenes import PairObject, PairScene
from circuitlab.data.text import WordEncoder
from circuitlab.worlds.pair_tokens import (
    ATTRIBUTES,
    N_ATTRIBUTES,
    noun_vectors,
    pair_tokens,
    scale_noun_vectors,
)
from circuitlab.worlds.pair_world import noun_split, pool_nouns, world_nouns
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.pairs import add_noun_noise

VECTORS = {"dog": torch.tensor([1.0, 2.0]), "ball": torch.tensor([3.0, 4.0])}


def test_pair_tokens_describe_each_object_and_its_noun():
    dog = PairObject("dog", "brown", "large", "lying", "left", 0.2, 0.7)
    ball = PairObject("ball", "red", "small", "standing", "forward", 0.25, 0.7, on=0)
    pair = PairScene(((dog, ball), (PairObject("ball", "red", "small", "sitting", "right", 1, 0),)))
    tokens, mask = pair_tokens([pair, PairScene(((), ()))], VECTORS)
    assert tokens.shape == (2, 3, N_ATTRIBUTES + 2) and mask.tolist() == [[1, 1, 1], [1, 0, 0]]
    f = {name: i for i, name in enumerate(ATTRIBUTES)}
    first, second, third = tokens[0]
    assert first[f["image_left"]] == 1 and first[f["colour_brown"]] == 1
    assert first[f["pose_lying"]] == 1 and first[f["facing_left"]] == 1
    assert first[f["holds_up"]] == 1 and first[f["rests_on"]] == 0
    assert second[f["rests_on"]] == 1 and second[f["holds_up"]] == 0
    assert torch.isclose(first[f["x"]], torch.tensor(0.2)) and first[f["image_count"]] == 2 / 6
    assert third[f["image_right"]] == 1 and third[f["image_count"]] == 1 / 6
    assert first[N_ATTRIBUTES:].tolist() == [1.0, 2.0]
    assert third[N_ATTRIBUTES:].tolist() == [3.0, 4.0]
    assert (tokens[1] == 0).all()  # an empty pair: one zero token, unmasked
    with pytest.raises(ValueError, match="'dog'"):
        pair_tokens([pair], {"ball": VECTORS["ball"]})


def test_noun_vectors_need_an_encoder_that_gives_vectors():
    with pytest.raises(ValueError, match="minilm"):
        noun_vectors(["dog"], WordEncoder())


def test_unit_noun_scale_centres_on_the_reference_nouns():
    vectors = {
        "dog": torch.tensor([3.0, 1.0]),
        "cat": torch.tensor([1.0, 1.0]),
        "owl": torch.tensor([2.0, 5.0]),
    }
    unit = scale_noun_vectors(vectors, ["dog", "cat"], "unit")
    # mean of the reference nouns (2, 1): dog -> (1, 0), cat -> (-1, 0), owl (held out) -> (0, 4)
    assert torch.allclose(unit["dog"], torch.tensor([1.0, 0.0]))
    assert torch.allclose(unit["cat"], torch.tensor([-1.0, 0.0]))
    assert torch.allclose(unit["owl"], torch.tensor([0.0, 1.0]))
    assert scale_noun_vectors(vectors, ["dog"], "raw") == vectors
    with pytest.raises(ValueError, match="noun scale"):
        scale_noun_vectors(vectors, ["dog"], "whitened")
    with pytest.raises(ValueError, match="'emu'"):
        scale_noun_vectors(vectors, ["emu"], "unit")


def test_pairs_task_noun_scale_reaches_the_object_tokens():
    task = make_task(
        "pairs",
        conditional=True,
        pool_size=20,
        val_pool_size=5,
        held_out_pool_size=5,
        noun_scale="unit",
    )
    norms = torch.stack([v.norm() for v in task.vectors.values()])
    assert torch.allclose(norms, torch.ones_like(norms), atol=1e-5)
    training = torch.stack([task.vectors[n] for n in task.train_nouns])
    # centred on the training nouns: their unit vectors nearly cancel (exactly only before
    # scaling), and much more than raw vectors (cosine about 0.65) do
    assert training.mean(0).norm() < 0.3
    batch = task.sample(8, seed=1)
    nouns = batch.inputs[..., N_ATTRIBUTES:]
    present = nouns.norm(dim=-1) > 0
    assert torch.allclose(nouns.norm(dim=-1)[present], torch.ones(int(present.sum())), atol=1e-5)


def test_a_larger_noun_pool_trains_more_nouns_and_holds_out_the_same_ones():
    train60, held60 = pool_nouns(60)
    assert (train60, held60) == noun_split(world_nouns())
    train90, held90 = pool_nouns(90)
    assert held90 == held60 and len(held60) == 10
    assert train90[: len(train60)] == train60 and len(train90) == 80
    assert not set(train90) & set(held90)
    for bad in (59, 91):
        with pytest.raises(ValueError, match="noun_pool must lie in"):
            pool_nouns(bad)


def test_noun_noise_moves_real_objects_nouns_by_about_its_length():
    objects = torch.ones(64, 5, N_ATTRIBUTES + 400)
    mask = torch.ones(64, 5, dtype=torch.bool)
    mask[:, 3:] = False
    noisy = add_noun_noise(objects, mask, 0.5, seed=7)
    assert torch.equal(noisy, add_noun_noise(objects, mask, 0.5, seed=7))
    assert not torch.equal(noisy, add_noun_noise(objects, mask, 0.5, seed=8))
    assert torch.equal(noisy[..., :N_ATTRIBUTES], objects[..., :N_ATTRIBUTES])
    assert torch.equal(noisy[~mask], objects[~mask])  # padding keeps its (zero) features
    shift = (noisy - objects)[mask][:, N_ATTRIBUTES:].norm(dim=-1)
    assert abs(shift.mean().item() - 0.5) < 0.02 and shift.std().item() < 0.05
    assert torch.equal(objects, torch.ones_like(objects))  # the input is left as it was


def test_pairs_task_noun_options_reach_training_batches_only():
    options = dict(conditional=True, pool_size=20, val_pool_size=5, held_out_pool_size=5)
    plain = make_task("pairs", noun_scale="unit", **options)
    noisy = make_task("pairs", noun_scale="unit", noun_noise=0.5, noun_pool=90, **options)
    assert len(noisy.train_nouns) == 80 and noisy.held_out_nouns == plain.held_out_nouns
    assert {n for s in noisy.pool for n in s.nouns} <= set(noisy.train_nouns)
    for split in (noisy.validation, noisy.out_of_distribution):
        assert torch.equal(split(16, seed=2).inputs, split(16, seed=2).inputs)
    # held-out pairs are drawn as without the options, and their nouns carry no noise
    held, plain_held = noisy.out_of_distribution(16, seed=2), plain.out_of_distribution(16, seed=2)
    assert torch.equal(held.input_mask, plain_held.input_mask)
    assert torch.equal(held.inputs[..., :N_ATTRIBUTES], plain_held.inputs[..., :N_ATTRIBUTES])
    held_norms = held.inputs[..., N_ATTRIBUTES:][held.input_mask].norm(dim=-1)
    assert torch.allclose(held_norms, torch.ones_like(held_norms), atol=1e-5)
    batch = noisy.sample(16, seed=3)
    assert torch.equal(batch.inputs, noisy.sample(16, seed=3).inputs)
    nouns = batch.inputs[..., N_ATTRIBUTES:][batch.input_mask]
    assert (nouns.norm(dim=-1) - 1).abs().max() > 0.05  # unit vectors, moved by the noise
    with pytest.raises(ValueError, match="noun_noise"):
        make_task("pairs", noun_noise=-0.1, **options)


def test_image_scale_multiplies_the_image_one_hot_in_every_batch_and_nothing_else():
    options = dict(conditional=True, pool_size=20, val_pool_size=5, held_out_pool_size=5)
    plain = make_task("pairs", **options)
    scaled = make_task("pairs", image_scale=3.0, **options)
    image = [ATTRIBUTES.index("image_left"), ATTRIBUTES.index("image_right")]
    rest = [i for i in range(N_ATTRIBUTES) if i not in image]
    examples = plain.validation_examples(8, seed=4)
    batches = [
        (plain.sample(16, seed=3), scaled.sample(16, seed=3)),
        (plain.validation(16, seed=2), scaled.validation(16, seed=2)),
        (plain.out_of_distribution(16, seed=2), scaled.out_of_distribution(16, seed=2)),
        (plain.batch_for(examples), scaled.batch_for(examples)),
    ]
    for before, after in batches:
        real = before.input_mask
        assert torch.equal(after.inputs[..., image], 3.0 * before.inputs[..., image])
        assert torch.equal(after.inputs[..., rest], before.inputs[..., rest])
        assert torch.equal(after.inputs[..., N_ATTRIBUTES:], before.inputs[..., N_ATTRIBUTES:])
        assert set(after.inputs[..., image][real].sum(-1).tolist()) == {3.0}  # one image each
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="image_scale must be > 0"):
            make_task("pairs", image_scale=bad, **options)


def test_extra_phrasings_join_the_training_pool_only():
    options = dict(conditional=True, pool_size=20, val_pool_size=5, held_out_pool_size=5)
    plain = make_task("pairs", **options)
    extra = make_task("pairs", extra_pool_size=12, **options)
    assert [s.text for s in extra.pool[:20]] == [s.text for s in plain.pool]
    assert [s.text for s in extra.val_pool] == [s.text for s in plain.val_pool]
    assert [s.text for s in extra.held_out_pool] == [s.text for s in plain.held_out_pool]
    added = [s.text for s in extra.pool[20:]]
    assert len(added) == len(set(added)) == 12
    assert not set(added) & {s.text for s in [*plain.pool, *plain.val_pool]}
    assert {n for s in extra.pool for n in s.nouns} <= set(extra.train_nouns)
    batch = extra.sample(64, seed=1)
    assert batch.conditioning.shape[0] == 64
    with pytest.raises(ValueError, match="extra_pool_size and disjunction_pool_size must"):
        make_task("pairs", extra_pool_size=-1, **options)


def test_disjunctions_join_the_training_pool_only():
    options = dict(conditional=True, pool_size=20, val_pool_size=5, held_out_pool_size=5)
    plain = make_task("pairs", **options)
    either = make_task("pairs", disjunction_pool_size=8, **options)
    assert [s.text for s in either.pool[:20]] == [s.text for s in plain.pool]
    assert [s.text for s in either.val_pool] == [s.text for s in plain.val_pool]
    assert [s.text for s in either.held_out_pool] == [s.text for s in plain.held_out_pool]
    added = [s.text for s in either.pool[20:]]
    assert len(set(added)) == 8 and all(", or " in text for text in added)
    assert not any(", or " in s.text for s in [*plain.pool, *plain.val_pool])
    with pytest.raises(ValueError, match="disjunction_pool_size must be >= 0"):
        make_task("pairs", disjunction_pool_size=-1, **options)


def test_contrast_triples_swap_a_training_noun_or_change_the_logic_and_reach_batches():
    options = dict(conditional=True, pool_size=60, val_pool_size=5, held_out_pool_size=5)
    plain = make_task("pairs", **options)
    task = make_task("pairs", contrast_per_batch=6, contrast_pool_size=40, **options)
    triples = task.contrast_triples
    assert len(triples) and set(triples["text"]) <= {s.text for s in task.pool[:40]}
    forms = {f.singular: f.plural for f in world_nouns(task.noun_pool)}
    train_words = {w for n in task.train_nouns for w in (n, forms[n])}
    for row in triples.itertuples():
        assert len({row.text, row.wording, row.logic}) == 3
        # the noun swap brings in a training noun the sentence did not name, nothing else
        words = [set(re.findall(r"[a-z]+", t.lower())) for t in (row.wording, row.text)]
        added = words[0] - words[1]
        assert added and added <= train_words, (row.text, row.wording)
    # the examples are as without the option; only the contrast is added
    a, b = plain.sample(16, seed=3), task.sample(16, seed=3)
    assert a.contrast is None
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.conditioning, b.conditioning)
    assert b.contrast.shape[0] == 18 and b.contrast_mask.shape == b.contrast.shape[:2]
    assert torch.equal(task.sample(16, seed=3).contrast, b.contrast)  # set by the seed
    # rows i, 6 + i and 12 + i are one triple: a sentence, its noun swap, its logic change
    width = b.contrast.shape[1]

    def encoded(texts):
        tokens, _ = task.encode_text(list(texts))
        padded = torch.zeros(len(texts), max(width, tokens.shape[1]), tokens.shape[2])
        padded[:, : tokens.shape[1]] = tokens
        return padded[:, :width].half().float()  # as the pool keeps them

    columns = {c: encoded(triples[c]) for c in ("text", "wording", "logic")}
    for i in range(6):  # a sentence has a triple per kind of logic change that applies
        assert any(
            torch.equal(columns["text"][j], b.contrast[i])
            and torch.equal(columns["wording"][j], b.contrast[6 + i])
            and torch.equal(columns["logic"][j], b.contrast[12 + i])
            for j in range(len(triples))
        )
        assert not torch.equal(b.contrast[i], b.contrast[12 + i])
    assert torch.equal(b.rows(slice(0, 4)).contrast, b.contrast)  # kept whole, not sliced
    with pytest.raises(ValueError, match="contrast_per_batch must be >= 0"):
        make_task("pairs", contrast_per_batch=-1, **options)


@pytest.mark.slow(60)
def test_contrast_disjunctions_add_the_or_sentences_triples_and_their_connective():
    options = dict(conditional=True, pool_size=30, val_pool_size=5, held_out_pool_size=5)
    options.update(contrast_per_batch=4, contrast_pool_size=30, disjunction_pool_size=40)
    base = make_task("pairs", **options)
    both = make_task("pairs", contrast_disjunctions=True, **options)
    first = set(base.contrast_triples["text"])
    assert first <= set(s.text for s in base.pool[:30])  # without it, the first 30 only
    added = both.contrast_triples[~both.contrast_triples["text"].isin(first)]
    assert set(added["text"]) <= {s.text for s in both.disjunction_pool}
    assert both.contrast_triples["text"].isin(first).sum() == len(base.contrast_triples)
    connective = added[added["kind"] == "connective"]
    assert len(connective) > 0
    for text, logic in zip(connective["text"], connective["logic"], strict=True):
        assert ", or the other" in text and logic == text.replace("or the other", "and the other")
    with pytest.raises(ValueError, match="contrast_disjunctions contrasts the disjunction"):
        make_task("pairs", **{**options, "disjunction_pool_size": 0}, contrast_disjunctions=True)


def test_category_triples_pair_a_sentence_with_its_category_against_another():
    from circuitlab.worlds.tasks.pairs import category_contrast_triples

    options = dict(conditional=True, pool_size=200, val_pool_size=5, held_out_pool_size=5)
    options.update(contrast_per_batch=4, contrast_pool_size=200)
    base = make_task("pairs", **options)
    task = make_task("pairs", category_triples=50, **options)
    triples = task.contrast_triples
    assert triples.iloc[: len(base.contrast_triples)].equals(base.contrast_triples)
    added = triples.iloc[len(base.contrast_triples) :]
    assert len(added) == 50 and set(added["kind"]) == {"category"}
    category = {s.text: s.categories for s in task.pool[:200] if len(s.categories) == 1}
    for text, same, other in zip(added["text"], added["wording"], added["logic"], strict=True):
        assert text != same and category[text] == category[same] != category[other]
    again = category_contrast_triples(task.pool[:200], 50)
    assert again.equals(added.reset_index(drop=True))  # set by the seed
    assert category_contrast_triples(task.pool[:200], 0).empty
    with pytest.raises(ValueError, match="category_triples must be >= 0 and needs contrast"):
        make_task("pairs", **{**options, "contrast_per_batch": 0}, category_triples=5)
    with pytest.raises(ValueError, match="two categories with two sentences each"):
        category_contrast_triples(task.pool[:1], 5)


def test_balanced_contrast_draws_each_kind_as_often():
    options = dict(conditional=True, pool_size=300, val_pool_size=5, held_out_pool_size=5)
    options.update(contrast_per_batch=16, contrast_pool_size=300)
    uniform = make_task("pairs", **options)
    balanced = make_task("pairs", contrast_balance="kinds", **options)
    kinds = uniform.contrast_triples["kind"]
    assert kinds.equals(balanced.contrast_triples["kind"])  # the same triples, drawn otherwise
    counts = kinds.value_counts()
    rare = counts.index[-1]  # the kind fewest sentences allow

    def shares(task) -> pd.Series:
        rows = [r for seed in range(400) for r in task.contrast_rows(seed)]
        return kinds.iloc[rows].value_counts(normalize=True)

    even = 1 / len(counts)
    assert shares(balanced).sub(even).abs().max() < 0.3 * even
    assert shares(uniform)[rare] == pytest.approx(counts[rare] / counts.sum(), rel=0.3)
    assert shares(balanced)[rare] > 2 * shares(uniform)[rare]
    assert balanced.contrast_rows(5) == balanced.contrast_rows(5)  # set by the seed
    with pytest.raises(ValueError, match="contrast_balance must be one of"):
        make_task("pairs", contrast_balance="sentences", **options)


@pytest.fixture(scope="module")
def task():
    return make_task(
        "pairs", conditional=True, pool_size=120, val_pool_size=30, held_out_pool_size=30
    )


def test_pairs_task_splits_nouns_and_sentences(task):
    train, held_out = set(task.train_nouns), set(task.held_out_nouns)
    assert not train & held_out
    assert {n for s in task.pool + task.val_pool for n in s.nouns} <= train
    assert {n for s in task.held_out_pool for n in s.nouns} <= held_out
    assert not {s.text for s in task.pool} & {s.text for s in task.val_pool}
    # every noun, held out or not, has its text vector for the object tokens
    assert set(task.vectors) == train | held_out


def test_pairs_task_batches(task):
    batch = task.sample(48, seed=3)
    again = task.sample(48, seed=3)
    assert torch.equal(batch.inputs, again.inputs) and torch.equal(batch.labels, again.labels)
    assert batch.inputs.shape[0] == 48 and batch.inputs.shape[2] == task.input_dim
    assert batch.conditioning.shape[2] == task.cond_dim == 384
    assert 10 < int(batch.labels.sum()) < 38
    held = task.out_of_distribution(16, seed=1)
    noun_part = held.inputs[..., N_ATTRIBUTES:][held.input_mask]
    held_vectors = torch.stack([task.vectors[n] for n in task.held_out_nouns])
    # every object of a held-out pair that shows a held-out noun carries that noun's vector
    shows = (noun_part[:, None, :] == held_vectors[None]).all(-1).any(1)
    assert shows.float().mean() > 0.3
    examples = task.validation_examples(8, seed=0)
    from_examples = task.batch_for(examples)
    assert from_examples.labels.tolist() == [int(e.label) for e in examples]


def test_pairs_task_joint_inputs_for_unconditional_baselines():
    joint = make_task(
        "pairs",
        conditional=False,
        inputs="joint",
        pool_size=20,
        val_pool_size=5,
        held_out_pool_size=5,
    )
    batch = joint.sample(4, seed=0)
    assert batch.conditioning is None and batch.inputs.shape[2] == joint.input_dim
    is_text = batch.inputs[..., -1] == 1
    assert is_text.any() and (~is_text & batch.input_mask).any()
    with pytest.raises(ValueError, match="inputs='scene' or 'joint'"):
        make_task("pairs", conditional=True, inputs="text")


def test_a_split_pairs_task_splits_by_the_pair_worlds_words_and_builds_a_split_model():
    from circuitlab.data.text import SplitEncoder
    from circuitlab.train import TrainConfig
    from circuitlab.worlds.sentence_parts import content, skeleton
    from circuitlab.worlds.vocabularies import vocabulary
    from tests.test_train import TINY_MODEL

    options = dict(text_encoder="minilm-split", pool_size=20, val_pool_size=5)
    task = make_task("pairs", conditional=True, held_out_pool_size=5, **options)
    assert task.split_text and task.encoder.vocabulary is vocabulary("pairs")
    text = task.pool[0].text
    tokens, mask = task.encode_text([text])
    reference, reference_mask = SplitEncoder(vocabulary="pairs").encode([text])
    assert torch.equal(mask, reference_mask) and torch.allclose(tokens, reference)
    assert skeleton(text, vocabulary("pairs")) != skeleton(text)  # the shapes words differ
    assert content(text, vocabulary("pairs")) != "nothing"
    config = TrainConfig(task="pairs", conditional=True, task_options=options, model=TINY_MODEL)
    assert config.model_config(task).generator.split_conditioning


def test_a_pairs_model_trains_and_exports_its_nlvr2_and_pairs_stores(tiny_pairs_export):
    import json

    from circuitlab import CircuitStore
    from circuitlab.data.pair_scenes import pair_scene_from_json
    from circuitlab.nlvr_eval import nlvr2_sentences
    from circuitlab.train import load_model

    checkpoint, out = tiny_pairs_export
    model, config = load_model(checkpoint)
    stores = {name: CircuitStore.open(out / name) for name in ("nlvr2", "pairs")}
    assert list(stores["nlvr2"].frame["text"]) == list(nlvr2_sentences().head(12)["text"])
    pairs = stores["pairs"].frame
    assert len(pairs) == 12 and set(pairs["split"]) == {"val", "held_out"}
    assert (pairs["correct"] == (pairs["prediction"] == pairs["label"])).all()
    assert ((pairs["p_true"] > 0.5) == pairs["prediction"]).all()
    manifest = json.loads((out / "export.json").read_text())
    assert manifest["stores"] == {"nlvr2": "complete", "pairs": "complete"}
    # each row keeps its pair: the held-out examples pair_predictions drew (seed 0), in order
    task = make_task("pairs", conditional=True, **config.task_options)
    drawn = task.validation_examples(8, 0, split="val")
    assert [pair_scene_from_json(s) for s in pairs["scene"][:8]] == [e.scene for e in drawn]
    # each row's circuit is the one the generator makes for its sentence
    tokens, mask = task.encode_text([pairs["text"][0]])
    expected = model.circuits(tokens, mask)[0]
    np.testing.assert_allclose(stores["pairs"][0].signatures, expected.signatures, atol=1e-5)


def test_a_pairs_run_ships_with_its_held_out_sentence_and_noun_accuracies(
    tiny_pairs_export, tmp_path
):
    import dataclasses
    import json
    import subprocess
    import sys
    from pathlib import Path

    from circuitlab.pairs_eval import heldout_accuracies, pairs_task
    from circuitlab.train import load_model
    from tests.test_nlvr_cli import SHIPPED_FILES

    checkpoint, _ = tiny_pairs_export
    run, shipped = checkpoint.parent, tmp_path / "checkpoints" / "pairs"
    root = Path(__file__).resolve().parents[1]
    args = [str(run), "--to", str(shipped), "--world", "24"]
    subprocess.run([sys.executable, "scripts/ship_checkpoint.py", *args], check=True, cwd=root)
    assert {p.name for p in shipped.iterdir()} == SHIPPED_FILES
    results = json.loads((shipped / "results.json").read_text())
    model, config = load_model(shipped)
    # the shipped numbers are the library's, on the same 24 examples of each split
    assert results == {**heldout_accuracies(model, pairs_task(config), 24), "examples": 24}
    assert set(results) == {"heldout_sentences", "heldout_nouns", "examples"}
    with pytest.raises(ValueError, match="--task pairs"):
        pairs_task(dataclasses.replace(config, task="nlvr"))


def test_scramble_objects_touches_one_kind_of_feature(task):
    from circuitlab.pairs_eval import SCRAMBLES, scramble_objects

    batch = task.sample(16, seed=3)
    tokens, mask = batch.inputs, batch.input_mask
    g = torch.Generator().manual_seed(0)
    swapped = scramble_objects(tokens, mask, "images_swapped", g)
    image = [ATTRIBUTES.index("image_left"), ATTRIBUTES.index("image_right")]
    assert torch.equal(swapped[..., image], tokens[..., image].flip(-1) * mask[..., None])
    assert torch.equal(scramble_objects(swapped, mask, "images_swapped", g), tokens)
    rest = [i for i in range(tokens.shape[-1]) if i not in image]
    assert torch.equal(swapped[..., rest], tokens[..., rest])
    zeroed = scramble_objects(tokens, mask, "colours_zeroed", g)
    colours = [i for i, name in enumerate(ATTRIBUTES) if name.startswith("colour_")]
    assert (zeroed[..., colours] == 0).all()
    assert zeroed[..., N_ATTRIBUTES:].equal(tokens[..., N_ATTRIBUTES:])
    shuffled = scramble_objects(tokens, mask, "nouns_shuffled", g)
    assert torch.equal(shuffled[..., :N_ATTRIBUTES], tokens[..., :N_ATTRIBUTES])
    before = tokens[..., N_ATTRIBUTES:][mask].tolist()
    after = shuffled[..., N_ATTRIBUTES:][mask].tolist()
    assert sorted(before) == sorted(after) and before != after  # the same nouns, moved
    assert torch.equal(shuffled[~mask], tokens[~mask])
    assert set(SCRAMBLES) == {"images_swapped", "colours_zeroed", "nouns_shuffled"}
    with pytest.raises(ValueError, match="probe"):
        scramble_objects(tokens, mask, "sizes_zeroed", g)


def test_input_probes_score_the_batch_as_given_and_scrambled(task):
    from circuitlab.model import NAC, NACConfig
    from circuitlab.pairs_eval import input_probes
    from circuitlab.train import predict_logits

    torch.manual_seed(0)
    model = NAC(
        NACConfig(
            input_dim=task.input_dim,
            n_classes=2,
            conditional=True,
            n_processors=4,
            n_readouts=1,
            dim=16,
            heads=2,
            head_dim=8,
            code_dim=8,
            sig_dim=4,
            generator=GeneratorConfig(cond_dim=task.cond_dim, dim=16),
        )
    ).eval()
    batch = task.validation(32, seed=5)
    probes = input_probes(model, batch, seed=1)
    plain = (predict_logits(model, batch).argmax(-1) == batch.labels).float().mean().item()
    assert probes["as_given"] == pytest.approx(plain)
    assert set(probes) == {"as_given", "images_swapped", "colours_zeroed", "nouns_shuffled"}
    assert all(0.0 <= v <= 1.0 for v in probes.values())
    assert input_probes(model, batch, seed=1) == probes  # seeded
