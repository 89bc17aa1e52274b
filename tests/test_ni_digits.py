"""Multi-task digits for Neural Interpreters (digit-renditions), the multitask objective, the
ViT written as one-function scripts, classification adaptation and the test-time changes."""

import pytest
import torch
import torch.nn.functional as F

from circuitlab.ni import NeuralInterpreter, NIConfig
from circuitlab.ni.adapt import (
    ExampleSet,
    accuracy_on,
    adapt,
    with_destroyed_functions,
    with_iterations,
    without_scripts,
)
from circuitlab.predict import objective_loss, own_task_logits, task_score
from circuitlab.run_config import TrainConfig
from circuitlab.task import Batch
from circuitlab.worlds.tasks import make_task
from circuitlab.worlds.tasks.digit_renditions import (
    DIGIT_RENDITIONS,
    TOKEN_DIM,
    new_task_images,
    patch_tokens,
    render,
)


def test_patch_tokens_hold_each_patch_and_its_position():
    images = torch.arange(2 * 16 * 16, dtype=torch.float32).reshape(2, 16, 16)
    tokens = patch_tokens(images)
    assert tokens.shape == (2, 16, TOKEN_DIM)
    # patch (row 1, column 2) is token 6: pixels rows 4-7, columns 8-11, row-major
    torch.testing.assert_close(tokens[1, 6, :16], images[1, 4:8, 8:12].reshape(16))
    torch.testing.assert_close(tokens[0, :, 16:], torch.eye(16))


def test_renditions_are_images_in_range_and_differ():
    task = make_task("digit-renditions")
    digits = task.train_images[:6]
    drawn = {r: render(digits, r, torch.Generator().manual_seed(0)) for r in DIGIT_RENDITIONS}
    for image in drawn.values():
        assert image.shape == (6, 16, 16) and image.min() >= 0 and image.max() <= 1
    # plain: light strokes on dark; inverted: the other way round
    assert drawn["plain"].mean() < 0.5 < drawn["inverted"].mean()
    with pytest.raises(ValueError, match="rendition must be one of"):
        render(digits, "sepia", torch.Generator())


def test_batches_label_task_and_digit_and_hold_out_the_same_images():
    task = make_task("digit-renditions", n_test=100)
    batch = task.sample(30, seed=3)
    assert batch.inputs.shape == (30, 16, TOKEN_DIM) and batch.labels.shape == (30, 2)
    assert batch.labels[:, 0].bincount().tolist() == [10, 10, 10]
    torch.testing.assert_close(task.sample(30, seed=3).inputs, batch.inputs)
    val = task.validation(300, seed=0)
    # every held-out image once in each rendition, digits as the split says
    assert val.labels[:, 0].tolist() == [0, 1, 2] * 100
    assert val.labels[::3, 1].tolist() == task.test_labels.tolist()
    textured = task.rendition("textured", 100, seed=0)
    assert (textured.labels[:, 0] == 2).all()
    assert len(task.train_labels) + len(task.test_labels) == 1797


def test_multitask_loss_and_score_read_each_examples_own_task():
    outputs = torch.randn(4, 3 * 10)
    labels = torch.tensor([[0, 3], [2, 9], [1, 0], [2, 4]])
    own = own_task_logits(outputs, labels, 10)
    torch.testing.assert_close(own[1], outputs[1, 20:30])
    torch.testing.assert_close(own[2], outputs[2, 10:20])
    task = make_task("digit-renditions", n_test=10)
    want = F.cross_entropy(
        torch.stack([outputs[i, 10 * t : 10 * t + 10] for i, (t, _) in enumerate(labels.tolist())]),
        labels[:, 1],
    )
    torch.testing.assert_close(objective_loss(task, outputs, labels), want)
    outputs[0, 3] = outputs[1, 29] = 100.0  # two right answers, each in its own task's block
    assert task_score(task, outputs, labels) >= 0.5
    with pytest.raises(ValueError, match="outputs hold 3"):
        own_task_logits(outputs, torch.tensor([[3, 0]]).expand(4, 2), 10)


def test_a_neural_interpreter_on_digits_has_a_cls_token_per_task():
    config = TrainConfig.from_dict(
        dict(task="digit-renditions", model_kind="ni", model=dict(dim=16, n_functions=2))
    )
    model_config = config.model_config(make_task("digit-renditions"))
    assert (model_config.n_cls, model_config.n_outputs, model_config.input_dim) == (3, 10, 32)
    with pytest.raises(ValueError, match="trains model_kind ni"):
        TrainConfig.from_dict(dict(task="digit-renditions")).model_config(
            make_task("digit-renditions")
        )


def _tiny(**overrides) -> NIConfig:
    values = dict(
        input_dim=TOKEN_DIM, n_cls=1, n_outputs=10, dim=16, n_scripts=2, n_functions=3,
        iterations=2, heads=2, head_dim=4, code_dim=8, type_dim=5, truncation=None,
    )  # fmt: skip
    return NIConfig(**{**values, **overrides})


def test_one_function_without_truncation_routes_every_token_to_it():
    vit = NeuralInterpreter(_tiny(n_functions=1, n_scripts=4, iterations=1))
    _, routing, _ = vit(torch.randn(2, 16, TOKEN_DIM), return_circuit=True)
    torch.testing.assert_close(routing, torch.ones_like(routing), atol=1e-5, rtol=0)


def test_scripts_dropped_iterations_changed_and_functions_destroyed():
    model = NeuralInterpreter(_tiny(n_scripts=3)).eval()
    x = torch.randn(2, 16, TOKEN_DIM)
    dropped = without_scripts(model, 1, seed=0)
    assert len(dropped.scripts) == 2 and len(model.scripts) == 3
    # the copy runs the other scripts in order: the model with the missing one skipped
    remaining = [s.codes for s in dropped.scripts]
    gone = [
        i
        for i, s in enumerate(model.scripts)
        if not any(torch.equal(s.codes, c) for c in remaining)
    ]
    assert len(gone) == 1
    skipped = NeuralInterpreter(_tiny(n_scripts=3)).eval()
    skipped.load_state_dict(model.state_dict())
    skipped.scripts = torch.nn.ModuleList(s for i, s in enumerate(skipped.scripts) if i != gone[0])
    torch.testing.assert_close(dropped(x), skipped(x))
    with pytest.raises(ValueError, match="drop 0 to 2"):
        without_scripts(model, 3)
    # iterations: the trained count reproduces the model, another count changes it
    torch.testing.assert_close(with_iterations(model, 2)(x), model(x))
    assert not torch.allclose(with_iterations(model, 1)(x), model(x))
    assert all(s.iterations == 2 for s in model.scripts)
    destroyed = with_destroyed_functions(model, seed=1)
    for old, new in zip(model.scripts, destroyed.scripts, strict=True):
        assert not torch.equal(old.codes, new.codes)
        assert not torch.equal(old.signatures, new.signatures)
        torch.testing.assert_close(old.locs.state_dict(), new.locs.state_dict())


def test_classification_adaptation_learns_a_small_support_set():
    torch.manual_seed(0)
    support, query = new_task_images(2, seed=0, n_queries=3)
    assert support.inputs.shape == (16, 16, TOKEN_DIM)
    assert support.labels.bincount().tolist() == [2] * 8 and len(query) == 24
    examples = ExampleSet(support, 8)
    model = NeuralInterpreter(_tiny(n_cls=3))
    before = accuracy_on(model, support)
    losses = adapt(model, examples, setting="all", steps=60, batch_size=16, lr=3e-3, progress=False)
    assert model.cls_tokens.shape[0] == 1 and model(support.inputs).shape == (16, 10)
    assert losses[-1] < 0.5 * losses[0]
    assert accuracy_on(model, support) > max(before, 0.5)
    too_many = ExampleSet(Batch(support.inputs, support.labels), 12)
    with pytest.raises(ValueError, match="12 classes"):
        adapt(model, too_many, steps=1, progress=False)
