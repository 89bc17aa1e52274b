"""Store-level analysis: cached embedding and layout, category separation, figures, the
analyze/figures commands and the notebooks."""

import json
import os
import subprocess
import sys
from pathlib import Path

import jupytext
import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from typer.testing import CliRunner

from circuitlab.analysis.embedding import (
    category_separation,
    circuit_features,
    embed,
    single_category_labels,
)
from circuitlab.analysis.figures import dropping_figure, save_figure
from circuitlab.analysis.layout import (
    MIN_DISTANCE,
    layout_from_similarity,
    module_colors,
    module_layout,
    spread_apart,
)
from circuitlab.analysis.prior_verdict import best_prior
from circuitlab.analysis.store_analysis import analyze_graphs
from circuitlab.circuit import Circuit
from circuitlab.cli import app
from circuitlab.store import CircuitStore

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.py"))
CATEGORIES = ["counting", "spatial", "negation"]


@pytest.fixture
def store(tmp_path) -> CircuitStore:
    """60 circuits of 12 modules in three categories; each category's signatures share a
    direction, so circuits of one category are alike."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((3, 12, 6))
    circuits, rows = [], []
    for i in range(60):
        c = i % 3
        signatures = centres[c] + 0.3 * rng.standard_normal((12, 6))
        circuits.append(Circuit(signatures, ["processor"] * 10 + ["readout"] * 2))
        cats = [CATEGORIES[c]] if i % 10 else [CATEGORIES[c], CATEGORIES[(c + 1) % 3]]
        rows.append({"text": f"sentence {i}", "label": "True", "categories": cats})
    return CircuitStore.write(tmp_path / "store", circuits, pd.DataFrame(rows))


def test_circuit_features_are_the_lower_triangle_of_p(store):
    features = circuit_features(store, batch=7)
    p = store[5].link_probability()
    rows, cols = np.tril_indices(12, k=-1)
    assert features.shape == (60, 66)
    np.testing.assert_allclose(features[5], p[rows, cols], rtol=1e-6)


def test_embedding_is_cached_in_the_store_and_recomputed_on_request(store):
    first = embed(store, "pca", seed=0)
    assert list(first.columns) == ["id", "x", "y"] and len(first) == 60
    reopened = CircuitStore.open(store.path)
    assert {"pca_x", "pca_y"} <= set(reopened.frame.columns)
    assert reopened.analysis_params("embedding_pca")["pca_dims"] == 64
    # a cached result comes back without recomputing: overwrite it and see the stale values
    reopened.add_analysis(
        "embedding_pca",
        reopened.analysis_params("embedding_pca"),
        pd.DataFrame({"pca_x": np.zeros(60), "pca_y": np.zeros(60)}),
    )
    assert (embed(reopened, "pca")["x"] == 0).all()
    fresh = embed(reopened, "pca", recompute=True)
    np.testing.assert_allclose(fresh["x"], first["x"], atol=1e-6)
    tsne = embed(reopened, "tsne", seed=0, perplexity=10)
    assert tsne[["x", "y"]].notna().all().all()
    assert reopened.analysis_params("embedding_tsne")["tsne_backend"] == "opentsne"
    again = embed(reopened, "tsne", seed=0, perplexity=10, recompute=True)
    np.testing.assert_array_equal(again, tsne)  # seeded: the same map every time
    # the backend is part of the cache key: asking for scikit-learn's recomputes
    other = embed(reopened, "tsne", seed=0, perplexity=10, tsne_backend="sklearn")
    assert reopened.analysis_params("embedding_tsne")["tsne_backend"] == "sklearn"
    assert not np.allclose(other[["x", "y"]], tsne[["x", "y"]])
    with pytest.raises(ValueError, match="unknown tsne_backend"):
        embed(reopened, "tsne", tsne_backend="bh")
    with pytest.raises(ValueError, match="unknown embedding method"):
        embed(reopened, "mds")


@pytest.mark.parametrize("backend", ["opentsne", "sklearn"])
def test_tsne_of_identical_circuits_is_one_point_not_nan(tmp_path, backend):
    same = CircuitStore.write(
        tmp_path / "same",
        [Circuit(np.eye(4), ["processor"] * 4)] * 5,
        pd.DataFrame({"x": range(5)}),
    )
    xy = embed(same, "tsne", tsne_backend=backend)[["x", "y"]].to_numpy()
    np.testing.assert_array_equal(xy, np.zeros((5, 2)))


@pytest.mark.parametrize("backend", ["opentsne", "sklearn"])
def test_tsne_keeps_each_circuit_among_its_category(store, backend):
    labels = single_category_labels(store.frame, CATEGORIES)
    xy = embed(store, "tsne", seed=0, perplexity=10, tsne_backend=backend)[["x", "y"]].to_numpy()
    xy, y = xy[labels.index], labels.to_numpy()
    nearest = np.linalg.norm(xy[:, None] - xy[None], axis=-1)
    np.fill_diagonal(nearest, np.inf)
    assert (y[nearest.argmin(1)] == y).mean() > 0.9


def test_categories_separate_in_circuit_space_and_not_in_unrelated_baseline(store):
    embedding = embed(store, "tsne", seed=0, perplexity=10)
    labels = single_category_labels(store.frame, CATEGORIES)
    assert len(labels) == 54  # every tenth circuit has two categories and is left out
    noise = np.random.default_rng(1).standard_normal((60, 8))
    table = category_separation(store, embedding, CATEGORIES, sentence_features=noise)
    by = table.set_index("representation")
    assert by.loc["circuit P (PCA)", "knn_accuracy"] > 0.9
    assert by.loc["sentence embedding", "knn_accuracy"] < 0.7
    assert by.loc["circuit P (PCA)", "silhouette"] > by.loc["sentence embedding", "silhouette"]
    np.testing.assert_allclose(table["chance"], 1 / 3)


def test_store_without_categories_is_refused_by_name(tmp_path):
    plain = CircuitStore.write(
        tmp_path / "plain",
        [Circuit(np.eye(4), ["processor"] * 4)] * 5,
        pd.DataFrame({"x": range(5)}),
    )
    with pytest.raises(ValueError, match="no 'categories' column"):
        single_category_labels(plain.frame)


def test_a_store_that_cannot_be_written_keeps_results_in_memory(store, monkeypatch):
    import circuitlab.store

    def refuse(target):
        raise PermissionError(f"read-only: {target.parent}")

    before = (store.path / "store.json").read_text()
    monkeypatch.setattr(circuitlab.store, "temporary_dir_beside", refuse)
    with pytest.warns(UserWarning, match="kept in memory only"):
        positions = module_layout(store)
    with pytest.warns(UserWarning, match="kept in memory only"):
        embedding = embed(store, "pca")
    assert positions.shape == (12, 2) and len(embedding) == 60
    assert {"pca_x", "pca_y"} <= set(store.frame.columns)
    assert (store.path / "store.json").read_text() == before
    np.testing.assert_allclose(module_layout(store), positions)  # served from memory


def test_module_layout_is_cached_and_stable(store):
    positions = module_layout(store, seed=0)
    assert positions.shape == (12, 2) and np.abs(positions).max() == pytest.approx(1.0)
    meta = json.loads((store.path / "store.json").read_text())
    np.testing.assert_allclose(meta["analysis"]["layout"]["positions"], positions)
    np.testing.assert_allclose(module_layout(CircuitStore.open(store.path)), positions)
    assert module_colors(25)[3] == module_colors(25)[23]  # tab20, cycled
    assert len(set(module_colors(20))) == 20


def test_dropping_figure_files(tmp_path):
    results = pd.DataFrame(
        {
            "model": ["NAC"] * 3 + ["Perceiver IO"] * 3,
            "dropped": [0, 0.5, 0.875] * 2,
            "accuracy": [0.8, 0.78, 0.7, 0.8, 0.6, 0.4],
            "throughput": [100, 180, 600, 100, 170, 500],
        }
    )
    paths = save_figure(dropping_figure(results), tmp_path, "dropping")
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths[2].read_bytes()[:4] == b"%PDF"
    with pytest.raises(ValueError, match="throughput"):
        dropping_figure(results.drop(columns="throughput"))
    one_row = dropping_figure(results)
    by_task = dropping_figure(results.assign(task=["toy"] * 3 + ["nlvr"] * 3))
    assert len(one_row.axes) == 2 and len(by_task.axes) == 4
    assert [ax.get_title() for ax in by_task.axes[::2]] == ["toy: accuracy", "nlvr: accuracy"]
    assert [len(ax.get_lines()) for ax in by_task.axes] == [1, 1, 1, 1]


def test_analyze_and_figures_commands(store, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", str(store.path), "--method", "pca", "--no-check"])
    assert result.exit_code == 0, result.output
    assert "prior verdicts" in result.output
    frame = CircuitStore.open(store.path).frame
    assert {"graph_density", "prior", "prior_gap", "pca_x"} <= set(frame.columns)
    # a second run reads the cache: stale values planted in the store come back unchanged
    cached = CircuitStore.open(store.path)
    params = cached.analysis_params("graphs")
    cached.add_analysis("graphs", params, pd.DataFrame({"graph_links": np.full(60, -1)}))
    assert (analyze_graphs(cached, threshold=0.5, check=False)["graph_links"] == -1).all()
    # the prior columns are the library's one reading, circuit by circuit
    for i in (0, 7):
        verdict = best_prior(store[i], check=False)
        assert frame["prior"].iloc[i] == verdict.family
        assert frame["prior_best"].iloc[i] == verdict.best
        assert frame["prior_null_z"].iloc[i] == pytest.approx(
            max(abs(z) for z in verdict.null.z_scores.values())
        )
    assert "random signatures" in cached.analysis_params("graphs")["prior_null"]
    # density is the share of module pairs with P > 0.5
    p = store.link_probabilities([0])[0]
    assert frame["graph_density"].iloc[0] == pytest.approx(np.triu(p > 0.5, 1).sum() / 66)
    out = tmp_path / "figs"
    result = runner.invoke(app, ["figures", str(store.path), "--out", str(out), "--method", "pca"])
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert {"prior_samples.png", "embedding_by_category.pdf", "degree_mean_circuit.svg"} <= names
    bad = runner.invoke(app, ["analyze", str(tmp_path / "nowhere")])
    assert bad.exit_code == 2 and "no such store directory" in bad.output


@pytest.mark.slow(24)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_tiny_settings_and_its_ipynb_is_in_sync(notebook, tmp_path):
    env = {
        **os.environ,
        "CIRCUITLAB_TINY": "1",
        "CIRCUITLAB_OUT": str(tmp_path / "out"),
        "MPLBACKEND": "Agg",
    }
    result = subprocess.run(
        [sys.executable, str(notebook)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    source = jupytext.read(notebook)
    generated = jupytext.read(notebook.with_suffix(".ipynb"))
    assert [c.source for c in generated.cells] == [c.source for c in source.cells], (
        f"{notebook.with_suffix('.ipynb').name} is stale: run `make notebooks`"
    )


def test_cached_analyses_are_recomputed_when_the_signatures_change(store):
    """A cache records the fingerprint of the data it came from (issue 20, defect 1): after the
    signatures change on disk, the layout, the map and the graph columns are computed afresh."""
    positions = module_layout(store, seed=0)
    embedding = embed(store, "pca")
    graphs = analyze_graphs(store, check=False)
    signatures = np.load(store.path / "signatures.npy", mmap_mode="r+")
    signatures[:] = np.random.default_rng(7).normal(size=signatures.shape)
    signatures.flush()
    del signatures
    changed = CircuitStore.open(store.path)
    assert changed.fingerprint != store.fingerprint
    assert changed.analysis_params("layout") is None
    assert not np.allclose(module_layout(changed, seed=0), positions)
    assert not np.allclose(embed(changed, "pca")[["x", "y"]], embedding[["x", "y"]])
    fresh = analyze_graphs(changed, check=False)
    assert not fresh["graph_links"].equals(graphs["graph_links"])
    reopened = CircuitStore.open(store.path)  # and the new results are the cached ones now
    np.testing.assert_allclose(module_layout(reopened, seed=0), module_layout(changed, seed=0))


def test_non_finite_analysis_results_are_never_written(store):
    before = (store.path / "store.json").read_text()
    with pytest.raises(ValueError, match="'layout' holds NaN or inf values; nothing was written"):
        store.add_analysis("layout", {"positions": [[float("nan"), 0.0]]})
    assert (store.path / "store.json").read_text() == before
    json.loads(before, parse_constant=lambda name: pytest.fail(f"{name} in store.json"))


def test_module_layout_keeps_modules_apart_and_close_pairs_close():
    """A spring layout puts modules linked far more to each other than to the rest on one
    spot; the layout keeps every two at least MIN_DISTANCE apart (the app's discs must not
    overlap and must stay clickable), and a pushed-apart pair stays nearer than the rest."""
    grid = np.stack(np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 4)), -1).reshape(-1, 2)
    xy = grid.copy()
    xy[1], xy[6], xy[11] = xy[0] + 0.01, xy[5] - [0.02, 0.0], xy[10]  # 10 and 11 coincide
    spread = spread_apart(xy, MIN_DISTANCE, seed=3)
    distance = np.linalg.norm(spread[:, None] - spread[None], axis=-1)
    np.fill_diagonal(distance, np.inf)
    assert distance.min() >= MIN_DISTANCE - 1e-9 and np.abs(spread).max() == pytest.approx(1.0)
    for a, b in [(0, 1), (5, 6), (10, 11)]:
        assert distance[a, b] < 0.2 and distance[a, b] == distance[a].min()
    # far from every crowded pair, the others keep their places up to one common rescaling
    untouched = [2, 3, 7, 12, 13, 14, 15]
    before, after = (pdist(p[untouched]) for p in (grid, spread))
    np.testing.assert_allclose(after / before, np.median(after / before), rtol=0.03)
    # a store-like similarity: four groups of eight modules linked within, barely across
    group = np.arange(32) // 8
    similarity = np.where(group[:, None] == group[None], 1.0, 0.001)
    crowded = layout_from_similarity(similarity, seed=0, min_distance=0)
    layout = layout_from_similarity(similarity, seed=0)
    assert pdist(crowded).min() < MIN_DISTANCE - 1e-9 <= pdist(layout).min()
    same_group = pdist(group[:, None]) == 0  # in pdist's pair order
    for positions in (crowded, layout):
        distance = pdist(positions)
        assert np.median(distance[same_group]) < np.median(distance[~same_group])
    # 100 modules fit MIN_DISTANCE apart; 400 get 0.6 of a square grid's spacing
    for u, closest in [(100, MIN_DISTANCE), (400, 1.2 / 19)]:
        many = spread_apart(np.zeros((u, 2)), MIN_DISTANCE)
        assert pdist(many).min() >= closest - 1e-9 and np.abs(many).max() == pytest.approx(1.0)
