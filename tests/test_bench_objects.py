"""The object-images claims benches' own logic: the few-shot head swap, the droppable share,
the throughput table's keys, and the recipes a RunSet reads."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from object_dropping import droppable, throughput  # noqa: E402
from object_few_shot import adapt, with_new_head  # noqa: E402
from object_runs import LADDER, OBJECTS  # noqa: E402

from circuitlab.config import NACConfig  # noqa: E402
from circuitlab.config_groups import ReadInConfig  # noqa: E402
from circuitlab.model import NAC  # noqa: E402
from circuitlab.task import Batch  # noqa: E402

SMALL = dict(
    input_dim=1, read_in=ReadInConfig(tokenizer="patches", max_tokens=16), n_classes=5,
    n_processors=6, n_readouts=2, dim=16, heads=2, head_dim=8, code_dim=8, sig_dim=8,
)  # fmt: skip


def test_a_new_head_keeps_every_other_weight() -> None:
    model = NAC(NACConfig(**SMALL))
    adapted = with_new_head(model, n_classes=3, seed=0)
    old, new = model.state_dict(), adapted.state_dict()
    for name, value in old.items():
        if not name.startswith("head."):
            assert torch.equal(new[name], value), name
    # the head's output layer answers 3 classes and a confidence
    assert old["head.linear.weight"].shape[0] == 6 and new["head.linear.weight"].shape[0] == 4
    assert adapted(torch.randn(2, 1, 16, 16)).shape == (2, 3)


def test_adapting_fits_the_support_set() -> None:
    torch.manual_seed(0)
    model = NAC(NACConfig(**SMALL))
    images = torch.randn(6, 1, 16, 16)
    support = Batch(images, torch.tensor([0, 1, 2, 0, 1, 2]))
    adapted = adapt(model, support, n_classes=3, steps=60, seed=0)
    with torch.no_grad():
        assert (adapted(images).argmax(-1) == support.labels).all()


def test_droppable_is_the_largest_share_before_the_first_loss_over_3_points() -> None:
    frame = pd.DataFrame(
        {"dropped": [0, 0.25, 0.5, 0.75, 0.875], "accuracy": [0.90, 0.89, 0.88, 0.85, 0.89]}
    )
    assert droppable(frame) == 0.5  # 0.875 is within again, but 0.75 lost 5 points
    assert droppable(frame.sample(frac=1, random_state=0)) == 0.5  # order of rows irrelevant
    assert droppable(frame.assign(accuracy=0.9)) == 0.875


def test_throughput_is_keyed_by_the_processors_kept() -> None:
    model = NAC(NACConfig(**{**SMALL, "n_processors": 16})).eval()
    speeds = throughput(model, torch.randn(4, 1, 16, 16))
    assert sorted(speeds) == list(range(1, 17))
    assert all(v > 0 for v in speeds.values())


@pytest.mark.parametrize("name", LADDER)
def test_every_ladder_rung_reads_its_recipe(name: str) -> None:
    config = OBJECTS.config(name, seed=2)
    assert config.seed == 2 and config.task == "object-images"
    assert config.model["n_processors"] == 128
    with pytest.raises(ValueError, match="unknown model"):
        OBJECTS.config("resnet", seed=0)


def test_merge_table_keeps_other_rows_and_replaces_reruns(tmp_path, monkeypatch) -> None:
    import common

    monkeypatch.setattr(common, "RESULTS", tmp_path)
    common.merge_table(
        [{"model": "a", "seed": 0, "acc": 0.5}], "t", "first", keys=["model", "seed"]
    )
    common.merge_table(
        [{"model": "a", "seed": 1, "acc": 0.7}, {"model": "b", "seed": 0, "acc": 0.2}],
        "t",
        "second session",
        keys=["model", "seed"],
    )
    merged = common.merge_table(
        [{"model": "a", "seed": 0, "acc": 0.9}], "t", "rerun", keys=["model", "seed"]
    )
    assert merged[["model", "seed", "acc"]].values.tolist() == [
        ["a", 0, 0.9],
        ["a", 1, 0.7],
        ["b", 0, 0.2],
    ]
    assert pd.read_csv(tmp_path / "t.csv").equals(merged)


def _merge_many(results: str, seed: int, start) -> None:  # noqa: ANN001 - a Barrier
    """100 rows of model ``seed`` merged one by one into results/t.csv (a process of its own),
    from when both processes are ready."""
    import contextlib
    import io

    import common

    common.RESULTS = Path(results)
    start.wait()
    for order in range(100):
        with contextlib.redirect_stdout(io.StringIO()):
            row = {"model": "m", "seed": seed, "order": order}
            common.merge_table([row], "t", "rows", keys=["model", "seed", "order"])


def test_two_processes_merging_at_once_keep_every_row(tmp_path) -> None:
    """Two dropping benches on two cores write one CSV order by order: none loses the other's."""
    import multiprocessing as mp

    context = mp.get_context("spawn")
    start = context.Barrier(2)
    workers = [context.Process(target=_merge_many, args=(str(tmp_path), s, start)) for s in (0, 1)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    merged = pd.read_csv(tmp_path / "t.csv")
    assert len(merged) == 200 and set(merged["seed"]) == {0, 1}
    assert not list(tmp_path.glob(".*partial"))  # written whole, renamed in


def test_seed_summary_is_the_mean_and_sample_sd_of_each_group(tmp_path, monkeypatch) -> None:
    import common

    monkeypatch.setattr(common, "RESULTS", tmp_path)
    frame = pd.DataFrame(
        {"model": ["a", "a", "a", "b"], "seed": [0, 1, 2, 0], "acc": [0.5, 0.7, 0.9, 0.4]}
    )
    summary = common.write_seed_summary(frame, ["model"], ["acc"], "s", "summary")
    a, b = summary.set_index("model").loc["a"], summary.set_index("model").loc["b"]
    assert a["seeds"] == 3 and a["mean_acc"] == pytest.approx(0.7)
    assert a["sd_acc"] == pytest.approx(0.2)  # sample sd of 0.5, 0.7, 0.9
    assert b["seeds"] == 1 and pd.isna(b["sd_acc"])
    assert pd.read_csv(tmp_path / "s.csv").shape == (2, 4)


def test_trained_runs_skips_what_is_not_trained_and_says_how_to_train(tmp_path, capsys) -> None:
    import json

    from common import RunSet

    runs = RunSet(tmp_path, dict(OBJECTS.models), how_to_train="make it")
    (tmp_path / "none-seed0").mkdir()
    (tmp_path / "none-seed0" / "summary.json").write_text(json.dumps({"steps": 1}))
    skipped = list(runs.trained_runs([("none", 1), ("planted_partition", 0)]))
    assert skipped == []
    out = capsys.readouterr().out
    assert "skipped none seed 1: not trained (make it)" in out
    assert "skipped planted_partition seed 0" in out
    assert runs.is_trained("none", 0) and not runs.is_trained("none", 1)


def test_group_means_of_the_target_itself_are_its_values() -> None:
    from prior_expressibility import group_means

    from circuitlab.prior_targets import target

    g = target("ring_of_cliques", 32, n_blocks=4, p_out=0.01)
    means = group_means(g, g)
    assert means == pytest.approx({"p_outside": 0.01, "p_inside": 0.9, "p_hubs": 1.0})
    assert set(group_means(target("erdos_renyi", 32), target("erdos_renyi", 32))) == {"p_outside"}


def test_fitting_signatures_brings_p_close_to_the_target() -> None:
    from prior_expressibility import fit_signatures

    from circuitlab.prior_targets import closest_permutation, target

    def matched_error(p, g):
        perm = closest_permutation(p, g)
        return float(((p[np.ix_(perm, perm)] - g) ** 2).mean())

    g = target("planted_partition", 24, n_blocks=3)
    start = fit_signatures(g, sig_dim=8, eps=0.25, steps=0)
    p = fit_signatures(g, sig_dim=8, eps=0.25, steps=800)
    assert p.shape == (24, 24) and np.allclose(np.diag(p), 1.0, atol=1e-5)
    assert np.allclose(p, p.T, atol=1e-6)
    assert matched_error(p, g) < 0.25 * matched_error(start, g)


def test_a_random_order_stops_after_its_first_loss_over_3_points(monkeypatch) -> None:
    """The full model is evaluated once; a random order stops at the share that loses more than
    3 points, a ranked order runs every share; the droppable share is the same either way."""
    from types import SimpleNamespace

    import object_dropping

    u = 16
    calls = []

    class Model:
        config = SimpleNamespace(n_processors=u)

        def drop_modules(self, k, order, seed):
            return SimpleNamespace(config=SimpleNamespace(n_processors=u - k), order=order)

    def metrics(model, batch):
        calls.append(model.config.n_processors)
        # loses 1.1 points per processor dropped past the first quarter
        return 0.0, 0.9 - 0.011 * max(0, u - model.config.n_processors - 4)

    monkeypatch.setattr(object_dropping, "batch_metrics", metrics)
    orders = [("connectivity", 0), ("random", 0)]
    kept = []  # each order's rows, handed over as soon as the order is measured
    object_dropping.accuracy_rows("none", 0, Model(), None, orders, kept.append)
    assert [{row["order"] for row in part} for part in kept] == [{"connectivity"}, {"random-0"}]
    rows = pd.DataFrame([row for part in kept for row in part])
    assert calls.count(u) == 1  # the full model once for both orders
    ranked = rows[rows.order == "connectivity"]
    random = rows[rows.order == "random-0"]
    assert len(ranked) == 16 and random["dropped"].max() == 7 / 16  # 3.3 points lost there
    assert droppable(random) == droppable(ranked) == 6 / 16


def test_summary_reads_the_speedup_at_the_droppable_share() -> None:
    from object_dropping import summarise

    dropped = [0.0, 0.25, 0.5, 0.75]
    frame = pd.DataFrame(
        {
            "model": "none",
            "seed": 0,
            "order": "connectivity",
            "dropped": dropped,
            "processors": [8, 6, 4, 2],
            "accuracy": [0.90, 0.89, 0.88, 0.70],
        }
    )
    speed = pd.DataFrame(
        {"architecture": "nac", "processors": [8, 6, 4, 2], "speedup": [1.0, 1.3, 2.0, 3.9]}
    )
    (row,) = summarise(frame, speed)
    assert row["droppable"] == 0.5 and row["processors_kept"] == 4 and row["speedup"] == 2.0
    assert row["full_accuracy"] == 0.90
    (untimed,) = summarise(frame, None)
    assert np.isnan(untimed["speedup"]) and untimed["droppable"] == 0.5


def test_an_order_beats_random_only_above_95_percent_of_the_random_orders() -> None:
    from object_dropping import order_ranks

    # 20 random orders: 18 below connectivity's 0.75, one tied, one above
    random = [0.5] * 18 + [0.75, 0.8125]
    summary = pd.DataFrame(
        {
            "model": "none",
            "seed": 0,
            "order": ["connectivity", "readout"] + [f"random-{i}" for i in range(20)],
            "droppable": [0.75, 0.875, *random],
        }
    )
    rows = {r["order"]: r for r in order_ranks(summary)}
    connectivity = rows["connectivity"]
    assert connectivity["random_orders"] == 20
    assert connectivity["above_share"] == 0.9 and connectivity["tied_share"] == 0.05
    assert connectivity["p_value"] == pytest.approx(3 / 21)
    assert not connectivity["beats_random"]  # 90 % of the orders, under the 95 % rule
    readout = rows["readout"]
    assert readout["above_share"] == 1.0 and readout["beats_random"]
    assert readout["p_value"] == pytest.approx(1 / 21)
    # above all of 3 random orders is not a test: too few to beat
    few = summary[~summary["order"].isin([f"random-{i}" for i in range(3, 20)])]
    assert not {r["order"]: r for r in order_ranks(few)}["readout"]["beats_random"]


@pytest.mark.parametrize(
    "name", ["none", "scale_free", "planted_partition", "ring_of_cliques", "erdos_renyi"]
)
def test_a_shipped_prior_model_is_what_its_recipe_trains(name: str) -> None:
    """checkpoints/priors/NAME came from its recipe with seed 0 (speed-only options aside), so
    `make demo`'s store shows the recipe the docs describe."""
    import dataclasses
    import json

    from circuitlab.run_config import SPEED_ONLY_FIELDS, TrainConfig

    shipped = Path(__file__).resolve().parents[1] / "checkpoints" / "priors" / name
    trained = json.loads((shipped / "config.json").read_text())
    recipe = dataclasses.asdict(OBJECTS.config(name, seed=0))
    trained = dataclasses.asdict(TrainConfig.from_dict(trained))
    for field in SPEED_ONLY_FIELDS:
        recipe.pop(field), trained.pop(field)
    assert recipe == trained


def test_a_fresh_measurement_forgets_its_model_and_seed_and_a_resumed_one_keeps_its_orders(
    tmp_path, monkeypatch
) -> None:
    import object_dropping

    monkeypatch.setattr(object_dropping, "RESULTS", tmp_path)
    rows = [
        {"model": m, "seed": s, "order": o, "dropped": 0.0, "accuracy": 0.9}
        for m, s, o in [("none", 0, "random-0"), ("none", 1, "random-0"), ("none", 1, "readout")]
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "object_dropping.csv", index=False)
    assert object_dropping.measured_orders("none", 1) == {"random-0", "readout"}
    assert object_dropping.forget("none", 1) == set()
    left = pd.read_csv(tmp_path / "object_dropping.csv")
    assert left[["model", "seed", "order"]].values.tolist() == [["none", 0, "random-0"]]
    assert object_dropping.measured_orders("none", 1) == set()
