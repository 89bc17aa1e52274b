"""Pair-world scenes in the app: drawn as two panels of named glyphs, read back from a pairs
store to rerun the model on them, and generated for sentences without a stored scene."""

import base64
import json
import shutil
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest

from circuitlab.analysis.pair_glyphs import pair_glyphs
from circuitlab.app.pair_view import (
    CHAR_WIDTH,
    PANEL_HEIGHT,
    PANEL_WIDTH,
    TITLE_HEIGHT,
    name_boxes_overlap,
    pair_object_names,
    pair_scene_svg,
)
from circuitlab.app.scene_kinds import PAIR_SCENES, example_summary, scene_kind
from circuitlab.app.stores import AppStores
from circuitlab.data.pair_scenes import PairObject, PairScene, pair_scene_json
from circuitlab.edits import CircuitEdit

SVG = "{http://www.w3.org/2000/svg}"


def obj(noun, x=0.5, depth=0.5, on=None, colour="white", pose="standing", facing="left"):
    return PairObject(noun, colour, "medium", pose, facing, x, depth, on)


SCENE = PairScene(
    (
        (obj("dog", x=0.2, colour="brown"), obj("ball", x=0.2, on=0, colour="red")),
        (obj("cup", x=0.8, colour="blue", pose="lying", facing="forward"),),
    )
)


def test_a_resting_object_sits_on_top_of_the_one_below_even_in_a_loop():
    dog, ball = pair_glyphs(SCENE.images[0])
    assert ball.bottom == pytest.approx(dog.bottom + dog.height) and ball.stacked
    # PairScene allows two objects resting on each other: the loop is broken, nothing recurses
    a, b = pair_glyphs((obj("dog", on=1), obj("cat", on=0)))
    assert {a.stacked, b.stacked} == {True}
    assert min(a.bottom, b.bottom) == pytest.approx(0.08 + 0.75 * 0.5)  # one on the ground
    assert max(a.bottom, b.bottom) > min(a.bottom, b.bottom)


def test_a_pair_is_drawn_as_two_panels_with_each_object_named_and_reads_outlined():
    svg = ElementTree.fromstring(pair_scene_svg(SCENE, [0.0, 0.6, 0.2]))
    panels = svg.findall(f"{SVG}rect[@class='panel']")
    assert [float(p.get("x")) for p in panels] == [0, 0]  # the left image above the right
    lower = 2 * TITLE_HEIGHT + PANEL_HEIGHT + 12
    assert [float(p.get("y")) for p in panels] == [TITLE_HEIGHT, lower]
    objects = [r for r in svg.findall(f"{SVG}rect") if "object" in r.get("class").split()]
    assert len(objects) == 3
    assert {o.get("fill") for o in objects} == {"#8c5a2b", "#d62728", "#1f77b4"}
    cup = next(o for o in objects if o.get("fill") == "#1f77b4")
    assert float(cup.get("y")) > lower  # the right image's object, in the lower panel
    assert float(cup.get("width")) > float(cup.get("height"))  # lying: a flat glyph
    names = [t.text for t in svg.findall(f"{SVG}text")]
    assert names[0] == "left image (2 objects)" and "right image (1 object)" in names
    assert {"medium brown dog", "medium red ball", "medium blue cup"} <= set(names)
    widths = {o.get("fill"): float(o.get("stroke-width")) for o in objects}
    assert widths == {"#8c5a2b": 1.0, "#d62728": pytest.approx(5.8), "#1f77b4": pytest.approx(2.6)}
    read = {o.get("fill") for o in objects if o.get("class") == "object read"}
    assert read == {"#d62728", "#1f77b4"}  # weights 0.6 and 0.2 reach MIN_READ, 0.0 does not
    assert pair_object_names(SCENE) == [
        "medium brown dog in the left image",
        "medium red ball in the left image",
        "medium blue cup in the right image",
    ]


def test_every_name_stays_inside_its_image_at_ten_pixels():
    """Objects at the images' edges, on top of each other, with long names: each name's
    estimated extent stays inside its image, so none is clipped."""
    edge = PairScene(
        (
            (obj("refrigerator", x=0.0), obj("refrigerator", x=0.0, on=0), obj("dog", x=1.0)),
            (obj("refrigerator", x=1.0), obj("bottle", x=1.0, on=0)),
        )
    )
    svg = ElementTree.fromstring(pair_scene_svg(edge))
    names = [t for t in svg.findall(f"{SVG}text") if t.get("class") == "name"]
    assert len(names) == 5 and {float(t.get("font-size")) for t in names} == {10.0}
    for name in names:
        width = CHAR_WIDTH * 10 * len(name.text)
        start = {"start": 0.0, "middle": width / 2, "end": width}[name.get("text-anchor")]
        left = float(name.get("x")) - start
        assert 0 <= left and left + width <= PANEL_WIDTH, (name.text, left, width)


def test_names_of_crowded_objects_move_apart_and_stay_inside_their_image():
    """Five objects side by side near one spot (their names would fall on each other): every
    name is drawn where it overlaps no other name, inside its image."""
    crowd = tuple(obj(noun, x=0.45 + 0.03 * k, depth=0.5) for k, noun in enumerate(NOUNS))
    svg = ElementTree.fromstring(pair_scene_svg(PairScene((crowd, (obj("cup"),)))))
    names = [
        (t.text, float(t.get("x")), float(t.get("y")), t.get("text-anchor"))
        for t in svg.findall(f"{SVG}text")
        if t.get("class") == "name"
    ]
    first = [n for n in names if n[2] <= TITLE_HEIGHT + PANEL_HEIGHT]  # the left image's
    assert sorted(n[0].split()[-1] for n in first) == sorted(NOUNS)  # "medium white dog"
    assert len({n[2] for n in first}) > 1  # moved: they all started on one line
    for k, a in enumerate(first):
        assert TITLE_HEIGHT + 10 <= a[2] <= TITLE_HEIGHT + PANEL_HEIGHT, a
        assert not any(name_boxes_overlap(a, b) for b in first[k + 1 :]), a


NOUNS = ("dog", "bottle", "bird", "cup", "ball")


def test_the_example_panel_draws_a_stored_pair_and_says_when_it_cannot():
    row = {"dataset": "pairs", "label": True, "scene": pair_scene_json(SCENE)}
    uri, facts = example_summary(pd.Series(row))
    svg = base64.b64decode(uri.removeprefix("data:image/svg+xml;base64,")).decode()
    assert svg.count('class="object"') == 3 and facts == "label true"
    uri, facts = example_summary(pd.Series({**row, "scene": '[[{"noun": "dog"}], []]'}))
    assert uri is None and "the stored scene cannot be drawn" in facts
    assert scene_kind("pairs") is PAIR_SCENES and scene_kind("nlvr") is not PAIR_SCENES


@pytest.fixture(scope="module")
def pair_stores(tiny_pairs_export):
    checkpoint, out = tiny_pairs_export
    return AppStores(out, checkpoint=checkpoint)


def test_stored_pairs_rerun_through_the_model_give_back_the_stored_answers(pair_stores):
    intervener = pair_stores.intervener("pairs")
    assert intervener.kind is PAIR_SCENES
    rows, _, baseline = intervener.probe()
    assert len(rows) == 12
    stored = intervener.view.frame["p_true"].to_numpy()[rows]
    np.testing.assert_allclose(baseline, stored, atol=2e-4)  # the export rounds to 4 places
    index = int(rows[0])
    scene = intervener.scene_of(index)
    reads = intervener.reads(index, CircuitEdit())
    n_objects = PAIR_SCENES.n_objects(scene)
    null = int(intervener.model.config.read_in.null_token)
    assert reads.shape == (intervener.model.config.n_processors, n_objects + null)
    np.testing.assert_allclose(reads.sum(axis=1), 1.0, atol=1e-5)  # a softmax over the tokens


def test_a_pairs_model_answers_on_generated_pairs_with_the_grammars_truth(pair_stores):
    probe = pair_stores.world_probe()
    assert probe.kind is PAIR_SCENES
    sentence = pair_stores.generator.task.val_pool[0]
    answers = probe.answers(sentence.text)
    assert len(answers) == 3 and all(0 <= a.p_true <= 1 for a in answers)
    for answer in answers:
        assert answer.truth == sentence.label(answer.scene)
        assert set(sentence.nouns) & {o.noun for image in answer.scene.images for o in image}
    assert [a.scene for a in probe.answers(sentence.text)] == [a.scene for a in answers]
    unknown = probe.answers("Two dogs are sitting on a red couch.")
    assert [a.truth for a in unknown] == [None, None, None]
    # a sentence the grammar does not know gets pairs around the nouns it names
    assert probe.task.named_nouns("One image shows two dogs and a bottle; no dog is lying.") == [
        "dog",
        "bottle",
    ]
    shown = [o.noun for a in unknown for image in a.scene.images for o in image]
    assert shown.count("dog") > len(shown) / 3


def test_a_pair_task_knows_the_nouns_a_larger_noun_pool_adds():
    from circuitlab.worlds.pair_world import world_nouns
    from circuitlab.worlds.tasks.pairs import PairWorldTask

    task = PairWorldTask(noun_pool=90, pool_size=20, val_pool_size=5, held_out_pool_size=5)
    extra = world_nouns(90)[-1]  # the 90th noun: a training noun here, unknown at the default pool
    assert extra.singular in task.train_nouns
    assert extra.singular not in {f.singular for f in world_nouns()}
    text = f"There are two {extra.plural} and a dog."
    assert task.named_nouns(text) == [extra.singular, "dog"]


def test_with_several_models_each_store_gets_the_model_it_was_exported_from(
    tiny_pairs_export, nlvr2_store, tmp_path
):
    checkpoint, out = tiny_pairs_export
    root = tmp_path / "stores"
    shutil.copytree(out, root / "pairs-model")
    shutil.copytree(nlvr2_store.parent, root / "nlvr-model")
    stores = AppStores(root, checkpoint=["checkpoints/nlvr", checkpoint])
    nlvr_model, pairs_model = stores.models
    assert stores.view("nlvr-model/nlvr").generate_circuit is nlvr_model
    assert stores.view("pairs-model/pairs").generate_circuit is pairs_model
    assert stores.view("pairs-model/nlvr2").generate_circuit is pairs_model
    assert stores.world_probe("pairs-model/nlvr2").kind is PAIR_SCENES
    assert stores.world_probe("nlvr-model/nlvr2").kind is not PAIR_SCENES
    assert stores.intervener("pairs-model/pairs").model is pairs_model.generator.model
    # a store whose store.json names another checkpoint gets none of them, even one of its size
    meta_file = root / "nlvr-model" / "nlvr2" / "store.json"
    meta = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps({**meta, "checkpoint_sha256": "0" * 64}))
    again = AppStores(root, checkpoint=["checkpoints/nlvr", checkpoint])
    assert again.view("nlvr-model/nlvr2").generate_circuit is None
    with pytest.raises(ValueError, match="none of the app's 2 models made this store"):
        again.world_probe("nlvr-model/nlvr2")
    # given alone, the model of the same size still serves it (a copy of the same model)
    alone = AppStores(root, checkpoint="checkpoints/nlvr")
    assert alone.view("nlvr-model/nlvr2").generate_circuit is alone.models[0]


def test_the_app_command_takes_several_checkpoints(tiny_pairs_export, monkeypatch):
    from typer.testing import CliRunner

    from circuitlab.app import serving
    from circuitlab.cli import app

    checkpoint, out = tiny_pairs_export
    served = []

    def serve(dash_app, *, announce, **options):
        served.append(dash_app)
        announce("served")  # what the command prints once the address is bound

    monkeypatch.setattr(serving, "serve", serve)
    args = ["app", str(out / "nlvr2"), "--root", str(out), "--checkpoint", "checkpoints/nlvr"]
    result = CliRunner().invoke(app, [*args, "--checkpoint", str(checkpoint)])
    assert result.exit_code == 0, result.output
    assert "stores under" in result.output and "nlvr2, pairs" in result.output
    (stores,) = [served_app.circuit_stores for served_app in served]
    assert [m.path for m in stores.models][1] == checkpoint
    assert stores.view("pairs").generate_circuit is stores.models[1]
