"""object-images: primitives, classes, renditions, and the task's splits."""

from __future__ import annotations

import pytest
import torch

from circuitlab.worlds.object_images import (
    HELD_OUT_RENDITIONS,
    PRIMITIVES,
    RENDITIONS,
    ObjectClass,
    _slot_centres,
    draw_images,
    make_classes,
    primitive_sdf,
)
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.object_images import ObjectImages

KIND = {name: i for i, name in enumerate(PRIMITIVES)}


def sdf(name: str, u: float, v: float, radius: float = 4.0) -> float:
    return float(primitive_sdf(KIND[name], torch.tensor(u), torch.tensor(v), radius))


def test_primitive_sdfs_on_hand_made_points() -> None:
    assert sdf("disc", 0, 0) == pytest.approx(-4.0)
    assert sdf("disc", 4, 0) == pytest.approx(0.0, abs=1e-6)
    assert sdf("disc", 0, 6) == pytest.approx(2.0)
    assert sdf("square", 0, 0) == pytest.approx(-3.2)  # half-width 0.8 r
    assert sdf("square", 5.2, 0) == pytest.approx(2.0)
    assert sdf("square", 6.2, 6.2) == pytest.approx((2 * 3.0**2) ** 0.5)  # corner distance
    assert sdf("ring", 0, 0) > 0  # the hole
    assert sdf("ring", 3, 0) == pytest.approx(-1.0)  # on the ring's middle line
    assert sdf("plus", 0, 3.5) < 0 and sdf("plus", 3.5, 0) < 0
    assert sdf("plus", 3, 3) > 0  # between the arms
    assert sdf("bar", 3.5, 0) < 0 and sdf("bar", 0, 3.5) > 0  # horizontal
    assert sdf("diamond", 4, 0) == pytest.approx(0.0, abs=1e-6)
    assert sdf("diamond", 0, 0) < 0 and sdf("diamond", 3, 3) > 0
    assert sdf("triangle", 0, 0) < 0
    assert sdf("triangle", 0, -2) == pytest.approx(0.0, abs=1e-6)  # flat top at -r/2
    assert sdf("triangle", 0, 4) == pytest.approx(0.0, abs=1e-6)  # apex at r
    assert sdf("triangle", 3, 3) > 0


def test_unknown_primitive_is_refused() -> None:
    with pytest.raises(ValueError, match="kind must be in"):
        primitive_sdf(len(PRIMITIVES), torch.zeros(1), torch.zeros(1), 4.0)


def test_classes_are_distinct_deterministic_and_come_in_one_part_families() -> None:
    classes = make_classes(32, seed=0, family_size=3)
    assert len(set(classes)) == 32
    assert classes == make_classes(32, seed=0, family_size=3)
    assert classes != make_classes(32, seed=1, family_size=3)
    for c in classes:
        assert c.parts.count(-1) == 1
    # a family's later members change exactly one part of its first member
    first, second = classes[0].parts, classes[1].parts
    assert sum(a != b for a, b in zip(first, second, strict=True)) == 1


def test_a_class_must_fill_three_slots() -> None:
    with pytest.raises(ValueError, match="3 of 4 slots"):
        ObjectClass((0, 1, 2, 3))
    with pytest.raises(ValueError, match="primitives are"):
        ObjectClass((0, 1, 9, -1))


def test_clean_images_are_bright_exactly_where_the_class_has_solid_parts() -> None:
    """No noise, jitter or distractors: each slot's centre pixel is lit iff the class puts a
    primitive there that covers its own centre (every one but the ring)."""
    classes = make_classes(24, seed=0)
    labels = torch.arange(24)
    images = draw_images(
        classes, labels, torch.Generator().manual_seed(0), noise=0, jitter=0, distractors=0
    )
    centres = _slot_centres(32).long()
    for label, c in zip(labels.tolist(), classes, strict=True):
        for slot, part in enumerate(c.parts):
            x, y = centres[slot].tolist()
            lit = images[label, 0, y, x].item() > 0.5
            solid = part >= 0 and PRIMITIVES[part] != "ring"
            assert lit == solid, (c.describe(), slot)


def test_renditions_change_the_pixels_not_the_layout() -> None:
    classes = make_classes(4, seed=0)
    labels = torch.tensor([0, 1, 2, 3])
    drawn = {
        r: draw_images(classes, labels, torch.Generator().manual_seed(0), rendition=r, noise=0)
        for r in RENDITIONS
    }
    filled = drawn["filled"]
    assert torch.allclose(drawn["inverted"], 1 - filled)
    for r in RENDITIONS[1:]:
        assert not torch.allclose(drawn[r], filled, atol=0.1), r
    # an outline is bright on the boundary, dark deep inside a solid part
    assert drawn["outline"].max() > 0.9
    with pytest.raises(ValueError, match="rendition must be one of"):
        draw_images(classes, labels, torch.Generator(), rendition="watercolour")


def test_task_is_deterministic_by_seed_and_shaped_for_the_patch_tokenizer() -> None:
    task = make_task("object-images")
    a, b = task.sample(16, seed=3), task.sample(16, seed=3)
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.labels, b.labels)
    assert a.inputs.shape == (16, 1, 32, 32)
    assert not torch.equal(a.inputs, task.sample(16, seed=4).inputs)
    assert int(a.labels.max()) < task.n_classes == 24
    assert task.input_dim == 1


def test_splits_share_no_image() -> None:
    task = ObjectImages()
    seen = [
        task.sample(64, 0).inputs,
        task.validation(64, 0).inputs,
        task.rendition("filled", 64, 0).inputs,
        task.out_of_distribution(64, 0).inputs,
        *task.few_shot(2, 0),
    ]
    images = torch.cat([s if isinstance(s, torch.Tensor) else s.inputs for s in seen])
    flat = images.flatten(1)
    distances = torch.cdist(flat, flat)
    distances.fill_diagonal_(float("inf"))
    assert distances.min() > 1.0  # no two images alike, within or across splits


def test_few_shot_classes_are_never_trained() -> None:
    task = ObjectImages()
    assert len(task.few_shot_classes) == 8 and len(task.classes) == 24
    assert not set(task.few_shot_classes) & set(task.classes)
    support, query = task.few_shot(5, seed=0, n_queries=3)
    assert support.inputs.shape == (40, 1, 32, 32) and query.inputs.shape == (24, 1, 32, 32)
    assert torch.equal(support.labels.bincount(), torch.full((8,), 5))
    assert torch.equal(query.labels.bincount(), torch.full((8,), 3))
    # labels index the few-shot classes: the clean drawing of label k is few_shot_classes[k]
    clean = ObjectImages(noise=0, distractors=0)
    s, _ = clean.few_shot(1, seed=0)
    again = draw_images(
        clean.few_shot_classes, s.labels, torch.Generator().manual_seed(0), noise=0, distractors=0
    )
    assert s.inputs.shape == again.shape


def test_out_of_distribution_holds_every_held_out_rendition_of_training_classes() -> None:
    task = ObjectImages()
    ood = task.out_of_distribution(40, seed=0)
    assert ood.inputs.shape == (40, 1, 32, 32)
    assert int(ood.labels.max()) < task.n_classes
    per = 40 // len(HELD_OUT_RENDITIONS)
    inverted = ood.inputs[-per:]
    assert inverted.mean() > 0.6  # the inverted style: a light background
    with pytest.raises(ValueError, match="rendition must be one of"):
        task.rendition("oil", 4, 0)


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="no sentences"):
        make_task("object-images", conditional=True)
    with pytest.raises(ValueError, match="size must be"):
        ObjectImages(size=30)
    with pytest.raises(ValueError, match="few-shot classes are more than a quarter"):
        ObjectImages(n_classes=6, n_few_shot_classes=4)
    with pytest.raises(ValueError, match="few_shot needs"):
        ObjectImages(n_few_shot_classes=0).few_shot(1, 0)
