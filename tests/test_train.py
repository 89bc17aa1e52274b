"""Training end to end: learning the toy task, exact resume after SIGKILL, export, CLI."""

import csv
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from circuitlab import CircuitStore
from circuitlab.app.store_view import StoreView
from circuitlab.model import NAC
from circuitlab.train import (
    TrainConfig,
    cosine_with_warmup,
    make_optimizer,
    parameter_groups,
    train,
    warm_start,
)
from circuitlab.worlds.tasks import ToySets

TINY_MODEL = dict(
    n_processors=8,
    n_readouts=2,
    dim=32,
    depth=1,
    heads=2,
    head_dim=8,
    code_dim=8,
    sig_dim=8,
    generator_dim=32,
)
ROOT = Path(__file__).resolve().parents[1]


def tiny_conditional_config(
    task: str, task_options: dict, steps: int, batch_size: int, every: int, eval_size: int = 64
) -> TrainConfig:
    """A conditional TINY_MODEL run of ``task``, evaluated (on ``eval_size`` examples) and
    checkpointed every ``every`` steps."""
    return TrainConfig(
        task=task,
        conditional=True,
        task_options=task_options,
        steps=steps,
        batch_size=batch_size,
        eval_every=every,
        eval_size=eval_size,
        checkpoint_every=every,
        model=dict(TINY_MODEL),
    )


def _rows(run_dir: Path) -> list[dict]:
    with (run_dir / "metrics.csv").open() as f:
        return list(csv.DictReader(f))


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "circuitlab", *args]


def _marked_colour_count(x: torch.Tensor) -> torch.Tensor:
    """k: how many other tokens share the marked token's colour, recomputed from the tokens."""
    colour, marked = x[..., :4].argmax(-1), x[..., 8].argmax(-1)
    own = colour[torch.arange(len(x)), marked]
    return (colour == own[:, None]).sum(1) - 1


def test_unconditional_labels_count_the_marked_tokens_colour():
    task = ToySets()
    batch = task.sample(512, seed=3)
    assert torch.all(batch.inputs[..., 8].sum(1) == 1)  # exactly one marked token
    torch.testing.assert_close(batch.labels, _marked_colour_count(batch.inputs))
    assert (torch.bincount(batch.labels, minlength=4).float() / 512).min() > 0.18  # balanced
    assert torch.equal(task.sample(8, seed=3).inputs, task.sample(8, seed=3).inputs)
    assert not torch.equal(task.sample(8, seed=3).inputs, task.sample(8, seed=4).inputs)


def test_conditional_labels_answer_the_sentences_threshold():
    task = ToySets(conditional=True)
    batch = task.sample(2048, seed=5)
    words = batch.conditioning
    threshold = 1 + ((words >= 14).any(1).long() + (words >= 17).any(1).long())  # 11.. 14.. 17..
    torch.testing.assert_close(
        batch.labels, (_marked_colour_count(batch.inputs) >= threshold).long()
    )
    assert abs(batch.labels.float().mean().item() - 0.5) < 0.05
    # the scenes do not depend on the threshold: k is uniform for every t
    for t in (1, 2, 3):
        k = _marked_colour_count(batch.inputs[threshold == t])
        assert (torch.bincount(k, minlength=4).float() / len(k)).min() > 0.18


def test_schedule_warms_up_then_decays_to_zero():
    assert cosine_with_warmup(0, 10, 100) == pytest.approx(0.1)
    assert cosine_with_warmup(9, 10, 100) == pytest.approx(1.0)
    assert cosine_with_warmup(55, 10, 100) == pytest.approx(0.5)
    assert cosine_with_warmup(100, 10, 100) == pytest.approx(0.0)


# steps of the shipped unconditional toy recipe the test trains: it reaches 1.000 by step 900 of
# 1,200 (both toy recipes in full, 3,000 and 4,000 steps: bench/toy_recipes.py)
TOY_TEST_STEPS = 1200


@pytest.mark.slow(126)
def test_the_shipped_toy_recipe_learns_the_task(tmp_path):
    """The shipped unconditional toy config, through the CLI on one thread, its schedule cut to
    TOY_TEST_STEPS steps: >= 95 % validation accuracy, a row per step."""
    run = tmp_path / "toy-sets"
    command = _cli("train", "--config", str(ROOT / "configs" / "toy-sets.yaml"))
    command += ["--steps", str(TOY_TEST_STEPS), "--out", str(run), "--no-progress"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["val_acc"] >= 0.95, summary
    assert summary["torch_threads"] == 1
    rows = _rows(run)
    assert len(rows) == TOY_TEST_STEPS and rows[-1]["val_acc"] != ""


def _tiny_args(out: Path, steps: int = 40) -> list[str]:
    model = [f"-m {k}={v}" for k, v in TINY_MODEL.items()]
    return [
        "train",
        "--out",
        str(out),
        "--steps",
        str(steps),
        "--checkpoint-every",
        "10",
        "--eval-every",
        "20",
        "--eval-size",
        "128",
        "--batch-size",
        "32",
        "--conditional",
        "--prior",
        "planted_partition",
        "--no-progress",
        *" ".join(model).split(),
        "-m",
        "prior_rematch_every=7",
        "-m",
        "prior_params={n_blocks: 2}",
    ]


@pytest.mark.slow(25)
def test_resume_after_sigkill_matches_an_uninterrupted_run(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    subprocess.run(_cli(*_tiny_args(straight)), check=True, env=env, capture_output=True)

    proc = subprocess.Popen(
        _cli(*_tiny_args(killed)), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while time.time() < deadline and not _checkpointed_past(killed, 10):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    step_at_kill = torch.load(killed / "checkpoint.pt", weights_only=False)["step"]
    assert 10 <= step_at_kill < 40, "the run should have been killed mid-way"

    subprocess.run(
        _cli("train", "--out", str(killed), "--resume", "--no-progress"),
        check=True,
        env=env,
        capture_output=True,
    )
    a, b = _rows(straight), _rows(killed)
    assert [r["step"] for r in b] == [str(s) for s in range(1, 41)]
    for ra, rb in zip(a, b, strict=True):
        for key in ("loss", "task_loss", "structure_loss", "train_acc", "val_loss", "val_acc"):
            if ra[key] or rb[key]:
                assert float(ra[key]) == pytest.approx(float(rb[key]), abs=1e-4), (ra["step"], key)
    sa = torch.load(straight / "checkpoint.pt", weights_only=False)["model"]
    sb = torch.load(killed / "checkpoint.pt", weights_only=False)["model"]
    for name in sa:
        torch.testing.assert_close(sa[name], sb[name], rtol=0, atol=1e-4)


def _checkpointed_past(run_dir: Path, step: int) -> bool:
    path = run_dir / "checkpoint.pt"
    try:
        return path.exists() and torch.load(path, weights_only=False)["step"] >= step
    except Exception:  # caught mid-rename or mid-write by the other process
        return False


def test_cli_export_and_info(tmp_path):
    run = tmp_path / "run"
    args = [*_tiny_args(run, steps=10), "--signature-lr-scale", "10"]
    subprocess.run(_cli(*args), check=True, capture_output=True)
    assert json.loads((run / "summary.json").read_text())["steps"] == 10
    assert json.loads((run / "config.json").read_text())["signature_lr_scale"] == 10
    store_path = tmp_path / "store"
    subprocess.run(
        _cli("export", str(run), "--out", str(store_path), "--n-circuits", "20"),
        check=True,
        capture_output=True,
    )
    store = CircuitStore.open(store_path)
    assert len(store) == 20 and store.frame["text"].nunique() == 20
    assert set(store.frame["label"]) == {"at least 1", "at least 2", "at least 3"}
    assert store.signatures.shape == (20, 10, 8)
    assert store.config["n_processors"] == 8
    # the app's first open computes nothing: export cached its layout and map in the store
    assert store.analysis_params("layout") is not None
    assert store.analysis_params("embedding_tsne") is not None
    written = (store_path / "store.json").read_bytes()
    StoreView(store)
    assert (store_path / "store.json").read_bytes() == written
    info = subprocess.run(_cli("info", str(store_path)), check=True, capture_output=True, text=True)
    assert "circuits=20" in info.stdout and "at least 2" in info.stdout


@pytest.mark.slow(21)
def test_cli_errors_name_the_problem(tmp_path):
    run = tmp_path / "run"
    bad = subprocess.run(
        _cli("train", "--out", str(run), "-m", "graph=sparse", "--steps", "1"),
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "graph" in bad.stderr
    missing = subprocess.run(
        _cli("train", "--out", str(run), "--resume"), capture_output=True, text=True
    )
    assert missing.returncode == 2 and "no checkpoint" in missing.stderr
    subprocess.run(_cli(*_tiny_args(run, steps=2)), check=True, capture_output=True)
    again = subprocess.run(_cli(*_tiny_args(run, steps=2)), capture_output=True, text=True)
    assert again.returncode == 2 and "--resume" in again.stderr


@pytest.mark.parametrize(
    ("config_text", "args", "message"),
    [
        ("steps: [1\n", [], "not valid YAML"),
        ("steps: abc\n", [], "TrainConfig.steps must be int, got 'abc'"),
        ("", ["-m", "dim=abc"], "NACConfig.dim must be int, got 'abc'"),
        ("model:\n  n_procesors: 8\n", [], "unknown NACConfig fields ['n_procesors']"),
        ("", ["--prior", "nonsense"], "NACConfig.prior must be None or one of"),
        ("", ["-m", "n_processors=0"], "n_processors must be positive"),
        ("base: gone.yaml\n", [], "does not exist (the base of"),
        ("base: config.yaml\n", [], "config bases form a cycle"),
    ],
    ids=["yaml", "steps-text", "dim-text", "typo", "prior", "no-processors", "no-base", "cycle"],
)
def test_a_bad_config_is_named_before_a_run_directory_exists(tmp_path, config_text, args, message):
    from typer.testing import CliRunner

    from circuitlab.cli import app

    config = tmp_path / "config.yaml"
    config.write_text(config_text)
    run = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["train", "--config", str(config), "--out", str(run), "--no-progress", *args]
    )
    assert result.exit_code == 2, result.output
    words = " ".join(result.output.replace("│", " ").split())  # typer boxes wrapped lines
    assert message in words, result.output
    assert not run.exists()


def test_a_corrupt_config_json_on_resume_is_named(tmp_path):
    from typer.testing import CliRunner

    from circuitlab.cli import app

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{not json")
    result = CliRunner().invoke(app, ["train", "--out", str(run), "--resume"])
    assert result.exit_code == 2 and "config.json is not valid JSON" in result.output


def test_ctrl_c_checkpoints_the_current_step(tmp_path):
    run = tmp_path / "run"
    args = _tiny_args(run, steps=400)
    args[args.index("--checkpoint-every") + 1] = "1000"  # only the interrupt will checkpoint
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(_rows_if_any(run)) < 5:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    saved = torch.load(run / "checkpoint.pt", weights_only=False)["step"]
    assert "checkpoint saved at step" in err
    assert saved == len(_rows(run)) and 5 <= saved < 400


def _rows_if_any(run_dir: Path) -> list[dict]:
    try:
        return _rows(run_dir)
    except (FileNotFoundError, KeyError):
        return []


@pytest.mark.slow(26)
def test_torchrun_two_cpu_processes_keep_identical_parameters(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    args = _tiny_args(tmp_path / "ddp", steps=12)
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    subprocess.run([*launch, "-m", "circuitlab", *args], check=True, env=env, capture_output=True)
    summary = json.loads((tmp_path / "ddp" / "summary.json").read_text())
    assert summary["world_size"] == 2
    first, second = summary["parameter_checksums"]
    assert first == second  # bit-identical copies on both ranks
    assert [r["step"] for r in _rows(tmp_path / "ddp")] == [str(s) for s in range(1, 13)]

    # two ranks of 16 examples see the same global batch as one process of 32: before the
    # first update the logged loss is the same (kernel samples differ on rank 1, so only
    # the task data are shared and the match is loose)
    subprocess.run(
        _cli(*_tiny_args(tmp_path / "single", steps=12)), check=True, env=env, capture_output=True
    )
    single = json.loads((tmp_path / "single" / "summary.json").read_text())
    assert single["world_size"] == 1 and len(single["parameter_checksums"]) == 1
    ddp_first = float(_rows(tmp_path / "ddp")[0]["task_loss"])
    single_first = float(_rows(tmp_path / "single")[0]["task_loss"])
    assert abs(ddp_first - single_first) < 0.05


@pytest.mark.parametrize("conditional", [False, True])
def test_out_of_distribution_scenes_are_larger_with_the_same_rule(conditional):
    task = ToySets(conditional=conditional)
    batch = task.out_of_distribution(1024, seed=7)
    assert batch.inputs.shape == (1024, 16, task.input_dim)
    assert torch.all(batch.inputs[..., 8].sum(1) == 1)
    k = _marked_colour_count(batch.inputs)
    assert k.max() == 3  # extra objects are distractors: counts keep the training range
    if conditional:
        assert abs(batch.labels.float().mean().item() - 0.5) < 0.06
    else:
        torch.testing.assert_close(batch.labels, k)
    assert torch.equal(task.out_of_distribution(1024, seed=7).inputs, batch.inputs)
    assert task.out_of_distribution(8, seed=7, scale=1.5).inputs.shape[1] == 12
    for scale in (0, 1, 1.05):  # 1.05 x 8 rounds to 8: no extra object
        with pytest.raises(ValueError, match="scale"):
            task.out_of_distribution(4, seed=7, scale=scale)


@pytest.mark.slow(21)
def test_compiled_training_matches_eager_and_resumes_either_way(tmp_path, monkeypatch):
    """``compile=True`` through train(): the traced step (Dynamo + AOTAutograd, as torch.compile
    runs it) computes eager's numbers, saves the plain model's names and resumes either way.
    Traced with the aot_eager backend, which skips inductor's C++ code generation (2-3 minutes
    on a cold cache); inductor's own numbers against eager: bench/compile_parity.py."""
    plain_compile = torch.compile
    monkeypatch.setattr(torch, "compile", lambda net: plain_compile(net, backend="aot_eager"))

    def config(compiled: bool) -> TrainConfig:
        return TrainConfig(
            steps=6,
            eval_every=3,
            eval_size=64,
            checkpoint_every=3,
            warmup_steps=2,
            batch_size=16,
            device="cpu",
            compile=compiled,
            model=dict(TINY_MODEL),
        )

    eager, compiled = tmp_path / "eager", tmp_path / "compiled"
    train(config(False), eager, progress=False)
    train(config(True), compiled, progress=False)
    for ra, rb in zip(_rows(eager), _rows(compiled), strict=True):
        for key in ("loss", "structure_loss", "val_loss"):
            if ra[key]:
                assert float(ra[key]) == pytest.approx(float(rb[key]), abs=1e-4), (ra["step"], key)
    sa = torch.load(eager / "checkpoint.pt", weights_only=False)["model"]
    sb = torch.load(compiled / "checkpoint.pt", weights_only=False)["model"]
    assert sa.keys() == sb.keys()  # the plain model's names, no torch.compile prefix
    # AdamW moves a weight by up to lr a step whatever the gradient's size, so rounding-level
    # differences in near-zero gradients can show as up to steps * lr in the weights
    for name in sa:
        torch.testing.assert_close(sa[name], sb[name], rtol=0, atol=6 * 1e-3)

    # compile is speed-only: the run resumes without it, and so does a config.json written
    # before the field existed; another option still refuses
    assert train(config(False), compiled, resume=True, progress=False)["steps"] == 6
    saved = json.loads((compiled / "config.json").read_text())
    del saved["compile"]
    (compiled / "config.json").write_text(json.dumps(saved))
    assert train(config(False), compiled, resume=True, progress=False)["steps"] == 6
    with pytest.raises(ValueError, match="seed"):
        train(dataclasses.replace(config(False), seed=1), compiled, resume=True, progress=False)


def test_signature_learning_rate_scale_moves_only_the_signatures_faster():
    model = NAC(TrainConfig(model=dict(TINY_MODEL)).model_config(ToySets()))
    (single,) = parameter_groups(model, 1e-3, 1.0)
    assert len(single["params"]) == sum(p.requires_grad for p in model.parameters())
    rest, signatures = parameter_groups(model, 1e-3, 10.0)
    assert signatures["params"] == [model.generator.signatures] and signatures["lr"] == 1e-2
    assert rest["lr"] == 1e-3 and len(rest["params"]) == len(single["params"]) - 1
    frozen = NAC(TrainConfig(model=dict(TINY_MODEL, graph="frozen")).model_config(ToySets()))
    assert len(parameter_groups(frozen, 1e-3, 10.0)) == 1  # nothing to speed up
    with pytest.raises(ValueError, match="signature_lr_scale"):
        TrainConfig(signature_lr_scale=0)


def test_the_logic_contrast_joins_the_structure_loss_and_needs_contrast_sentences():
    from circuitlab.train import forward_losses

    task = ToySets(conditional=True)
    config = TrainConfig(conditional=True, model=dict(TINY_MODEL, logic_contrast_weight=1.0))
    model = NAC(config.model_config(task))
    batch = task.sample(8, seed=0)
    with pytest.raises(ValueError, match="contrast_per_batch"):
        forward_losses(model, model, task, batch)
    batch.contrast = torch.cat([batch.conditioning[:2]] * 3)  # logic "changes" that change nothing
    batch.contrast_mask = None  # toy-sets conditioning has no padding
    torch.manual_seed(0)
    _, _, structure = forward_losses(model, model, task, batch)
    torch.manual_seed(0)
    expected = model.structure_loss(
        model(
            batch.inputs,
            batch.conditioning,
            conditioning_mask=batch.conditioning_mask,
            input_mask=batch.input_mask,
            return_circuit=True,
        )[1]
    )
    contrast = model.logic_contrast_loss(batch.contrast, batch.contrast_mask)
    assert contrast > 0
    torch.testing.assert_close(structure, expected + contrast)


def test_the_optimizer_option_builds_radam_with_the_same_groups():
    config = TrainConfig(model=dict(TINY_MODEL), optimizer="radam", signature_lr_scale=10.0)
    model = NAC(config.model_config(ToySets()))
    optimizer = make_optimizer(model, config)
    assert isinstance(optimizer, torch.optim.RAdam)
    assert optimizer.defaults["decoupled_weight_decay"] is True
    assert [g["lr"] for g in optimizer.param_groups] == [1e-3, 1e-2]
    adamw = make_optimizer(model, dataclasses.replace(config, optimizer="adamw"))
    assert type(adamw) is torch.optim.AdamW
    with pytest.raises(ValueError, match="optimizer must be one of"):
        TrainConfig(optimizer="sgd")


def test_init_from_starts_a_new_run_from_a_checkpoints_weights(tmp_path):
    config = TrainConfig(
        steps=4,
        eval_every=4,
        eval_size=32,
        checkpoint_every=4,
        warmup_steps=1,
        batch_size=16,
        device="cpu",
        model=dict(TINY_MODEL),
    )
    train(config, tmp_path / "first", progress=False)
    saved = torch.load(tmp_path / "first" / "checkpoint.pt", weights_only=False)["model"]

    torch.manual_seed(123)
    fresh = NAC(config.model_config(ToySets()))
    assert any(not torch.equal(fresh.state_dict()[k], saved[k]) for k in saved)
    warm_start(fresh, tmp_path / "first", "cpu")
    for name, value in fresh.state_dict().items():
        assert torch.equal(value, saved[name]), name

    # a run that starts there (at a vanishing learning rate) ends where the first one stopped,
    # at its own step count, with the warm start recorded in its config.json
    second = dataclasses.replace(config, steps=2, lr=1e-12, init_from=str(tmp_path / "first"))
    assert train(second, tmp_path / "second", progress=False)["steps"] == 2
    state = torch.load(tmp_path / "second" / "checkpoint.pt", weights_only=False)
    assert state["step"] == 2
    for name, value in state["model"].items():
        torch.testing.assert_close(value, saved[name], rtol=0, atol=1e-9)
    recorded = json.loads((tmp_path / "second" / "config.json").read_text())
    assert recorded["init_from"] == str(tmp_path / "first")

    wider = NAC(TrainConfig(model=dict(TINY_MODEL, dim=16)).model_config(ToySets()))
    with pytest.raises(ValueError, match="'dim': \\(32, 16\\)"):
        warm_start(wider, tmp_path / "first", "cpu")

    # a kernel width the config fixes (a buffer, not a parameter) is this run's, not the
    # checkpoint's: a continuation at another eps trains at that eps
    wider_kernel = NAC(TrainConfig(model=dict(TINY_MODEL, eps=0.4)).model_config(ToySets()))
    with pytest.warns(UserWarning, match="keep its values.*log_eps.*'kernel.eps': \\(1.0, 0.4\\)"):
        warm_start(wider_kernel, tmp_path / "first", "cpu")
    widths = [float(m.eps) for m in wider_kernel.modules() if hasattr(m, "log_eps")]
    assert widths and all(w == pytest.approx(0.4) for w in widths)
    for name, value in wider_kernel.state_dict().items():
        if not name.endswith("log_eps"):
            assert torch.equal(value, saved[name]), name

    # an option that adds parameters: the rest is loaded, the new ones keep their start
    sigmoid = NAC(
        TrainConfig(model=dict(TINY_MODEL, read_in_weights="sigmoid")).model_config(ToySets())
    )
    with pytest.warns(UserWarning, match="read_in.offset.*'read_in.weights': \\('softmax'"):
        warm_start(sigmoid, tmp_path / "first", "cpu")
    for name, value in sigmoid.state_dict().items():
        if name in saved:
            assert torch.equal(value, saved[name]), name
        else:
            assert name.endswith("offset") and not value.any(), name
