"""The app's stores: found under the root, keyed by folder, URL keys looked up (never joined
onto a path), stores opened on first use."""

import base64
import json
import shutil
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection

from circuitlab import Circuit, CircuitStore
from circuitlab.analysis.figures import embedding_plotly
from circuitlab.app import create_app
from circuitlab.app.callbacks.circuit import prior_summary
from circuitlab.app.callbacks.common import page_store
from circuitlab.app.callbacks.export import circuit_figure
from circuitlab.app.callbacks.map_view import summary_text
from circuitlab.app.callbacks.search import result_count
from circuitlab.app.example_view import GAP, scene_svg
from circuitlab.app.scene_kinds import example_summary
from circuitlab.app.store_statistics import within_z
from circuitlab.app.store_view import MAX_SENTENCE
from circuitlab.app.stores import AppStores, find_stores
from circuitlab.data.nlvr import BOX_SIZE, SceneObject


def test_stores_under_a_root_are_found_and_keyed_by_folder(nlvr2_store, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(nlvr2_store.parent, root / "run")
    (root / ".hidden").mkdir()
    shutil.copytree(nlvr2_store, root / ".hidden" / "nlvr2")
    assert find_stores(root) == [root / "run" / "nlvr", root / "run" / "nlvr2"]

    stores = AppStores(root)
    assert stores.keys == ["run/nlvr", "run/nlvr2"]
    assert stores.default == "run/nlvr"  # a folder of stores shows its first
    assert AppStores(root / "run" / "nlvr2", root=root).default == "run/nlvr2"
    assert AppStores(root / "run" / "nlvr2").keys == ["."]  # root defaults to the store

    assert stores.resolve(None) == ("run/nlvr", None)
    assert stores.resolve("run/nlvr2") == ("run/nlvr2", None)
    for bad in ("../run/nlvr2", str(root / "run" / "nlvr2"), ".hidden/nlvr2", "run"):
        key, problem = stores.resolve(bad)
        assert key == "run/nlvr" and f"no store {bad[:60]!r}" in problem
    with pytest.raises(KeyError, match="run/missing"):
        stores.view("run/missing")


def test_a_store_is_opened_once_on_first_use(nlvr2_store):
    stores = AppStores(nlvr2_store.parent)
    assert stores._views == {}
    view = stores.view("nlvr2")
    assert stores.view("nlvr2") is view and list(stores._views) == ["nlvr2"]
    assert view.store.path.resolve() == nlvr2_store.resolve()
    assert view.generate_circuit is None  # no checkpoint given


def test_paths_outside_the_root_or_without_stores_are_refused(nlvr2_store, tmp_path):
    with pytest.raises(ValueError, match="outside the app's root"):
        AppStores(nlvr2_store, root=tmp_path)
    with pytest.raises(FileNotFoundError, match="no circuit store"):
        AppStores(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a folder"):
        AppStores(tmp_path / "missing")


def test_the_checkpoint_serves_every_store_with_its_number_of_modules(nlvr2_store):
    stores = AppStores(nlvr2_store.parent, checkpoint="checkpoints/nlvr")
    for key in stores.keys:
        circuit = stores.view(key).generate_circuit("there is a yellow block")
        assert circuit.link_probability().shape == (stores.generator.n_modules,) * 2


def test_a_store_of_another_size_says_why_it_takes_no_sentences(nlvr2_store, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(nlvr2_store, root / "nlvr2")
    circuits = [Circuit(np.eye(4), ["processor"] * 4)] * 3
    CircuitStore.write(root / "small", circuits, pd.DataFrame({"text": ["a", "b", "c"]}))
    stores = AppStores(root, checkpoint="checkpoints/nlvr")
    assert stores.view("nlvr2").generate_circuit.generator is stores.generator
    small = stores.view("small")
    assert small.generate_circuit is None
    with pytest.raises(ValueError, match=f"{stores.generator.n_modules} modules .* have 4"):
        small.typed_circuit("there is a yellow block")


def test_a_typed_sentence_over_the_limit_is_refused_with_the_limit(nlvr2_store):
    view = AppStores(nlvr2_store, checkpoint="checkpoints/nlvr").view(".")
    with pytest.raises(ValueError, match=f"401 characters; at most {MAX_SENTENCE}"):
        view.typed_circuit("x" * 401)
    assert MAX_SENTENCE == 300


def test_a_broken_store_under_the_root_is_a_message_not_an_error(nlvr2_store, tmp_path):
    """A store that cannot be opened (NaN signatures written by hand) is named in the page and
    the default store is shown (issue 20, defect 4: the request used to fail with HTTP 500)."""
    root = tmp_path / "root"
    shutil.copytree(nlvr2_store, root / "good")
    shutil.copytree(nlvr2_store, root / "broken")
    signatures = np.load(root / "broken" / "signatures.npy", mmap_mode="r+")
    signatures[0, 0, 0] = np.nan
    signatures.flush()
    del signatures
    stores = AppStores(root / "good", root=root)
    key, problem = stores.resolve("broken")
    assert key == "good" and "store 'broken' cannot be opened" in problem and "NaN" in problem
    app = create_app(root / "good", root=root)
    output = next(k for k in app.callback_map if k.startswith("..store-key.data"))
    outputs = [
        {"id": part.rsplit(".", 1)[0], "property": part.rsplit(".", 1)[1]}
        for part in output.strip(".").split("...")
    ]
    response = app.server.test_client().post(
        "/_dash-update-component",
        json={
            "output": output,
            "outputs": outputs,
            "inputs": [{"id": "url-read", "property": "search", "value": "?store=broken"}],
            "state": [{"id": "store-key", "property": "data", "value": None}],
            "changedPropIds": ["url-read.search"],
        },
    )
    assert response.status_code == 200, response.data[:300]
    assert response.get_json()["response"]["store-key"]["data"] == "good"


def test_a_circuit_too_small_for_a_prior_fit_is_drawn_with_a_message(tmp_path):
    """Two modules: the graph is drawn and the prior-fit card says why there is no fit, where
    the request used to fail (LinkMatrixError inside the callback)."""
    circuits = [Circuit(np.eye(2), ["processor", "readout"])] * 3
    CircuitStore.write(tmp_path / "tiny", circuits, pd.DataFrame({"text": ["a", "b", "c"]}))
    app = create_app(tmp_path / "tiny")
    values = {
        "circuit": ("data", {"index": 0}),
        "threshold": ("value", 0.5),
        "mode": ("value", "threshold"),
        "top-k": ("value", 3),
        "color-by": ("value", "module"),
        "url-read": ("search", ""),
        "edits": ("data", []),
        "minimal-only": ("value", []),
        "view-notes": ("data", None),
    }

    def answer(first_output: str) -> dict:
        """The response of the callback whose outputs start with ``first_output``."""
        output = next(k for k in app.callback_map if k.startswith(f"..{first_output}"))
        outputs = [
            {"id": part.rsplit(".", 1)[0], "property": part.rsplit(".", 1)[1]}
            for part in output.strip(".").split("...")
        ]
        # the request names the callback's inputs in its own order (a new input fails by name)
        inputs = [
            {**spec, "value": values[spec["id"]][1]} for spec in app.callback_map[output]["inputs"]
        ]
        response = app.server.test_client().post(
            "/_dash-update-component",
            json={
                "output": output,
                "outputs": outputs,
                "inputs": inputs,
                "state": [{"id": "store-key", "property": "data", "value": "."}],
                "changedPropIds": ["circuit.data"],
            },
        )
        assert response.status_code == 200, response.data[:300]
        return response.get_json()["response"]

    assert answer("graph.elements")["circuit-title"]["children"].startswith("#0")
    fit = answer("prior-fit.children")["prior-fit"]["children"]
    assert "at least 3 nodes" in fit[0]


def test_the_exported_figure_is_drawn_the_way_up_the_app_draws_it(nlvr2_store):
    """Cytoscape's y axis points down, matplotlib's up: the module at the top of the app's
    drawing is at the top of the figure, the bottom one at the bottom."""
    view = AppStores(nlvr2_store).view(".")
    graph = view.visible_graph({"index": 0}, 0.5, None)
    figure = circuit_figure(view, graph)
    ax = figure.axes[0]
    figure.canvas.draw()
    drawn = {}  # module -> display y, from each role's node collection in drawing order
    collections = [c for c in ax.collections if isinstance(c, PathCollection)]
    roles = ["processor", "readout"]
    for role, collection in zip(roles, collections, strict=True):
        nodes = [i for i, d in graph.nodes(data=True) if d["role"] == role]
        heights = ax.transData.transform(collection.get_offsets())[:, 1]
        drawn.update(zip(nodes, heights, strict=True))
    modules = sorted(drawn)
    app_y = view.positions[modules, 1]  # cytoscape: larger is lower on the screen
    figure_y = np.array([drawn[m] for m in modules])  # matplotlib display: larger is higher
    assert modules[int(np.argmin(app_y))] == modules[int(np.argmax(figure_y))]
    assert modules[int(np.argmax(app_y))] == modules[int(np.argmin(figure_y))]


def test_search_lists_the_first_rows_and_counts_them_all(nlvr2_store):
    view = AppStores(nlvr2_store).view(".")
    rows, total = view.search(limit=10)
    assert len(rows) == 10 and total == len(view.frame) == 150
    assert result_count(len(rows), total) == "150 matching circuits (the first 10 listed)"
    word = str(view.frame["text"].iloc[3]).split()[1]
    rows, total = view.search(word)
    expected = view.frame["text"].str.contains(word, case=False, regex=False).sum()
    assert len(rows) == total == expected
    assert result_count(1, 1) == "1 matching circuit"


def test_the_map_gives_each_of_twelve_groups_its_own_colour():
    """NLVR2's 12 category groups used to share plotly's 10 default colours (two reds)."""
    groups = [f"group {k}" for k in range(12)]
    frame = pd.DataFrame({"x": range(24), "y": range(24), "id": range(24), "category": groups * 2})
    figure = embedding_plotly(frame, "category")
    colors = [trace.marker.color for trace in figure.data]
    assert [trace.name for trace in figure.data] == sorted(groups)
    assert len(set(colors)) == 12


def test_an_nlvr_scene_is_drawn_object_by_object():
    boxes = (
        (SceneObject(0, 0, 10, "circle", "Black"), SceneObject(70, 80, 20, "square", "Yellow")),
        (),
        (SceneObject(50, 10, 30, "triangle", "#0099ff"),),
    )
    svg = ElementTree.fromstring(scene_svg(boxes))
    tag = "{http://www.w3.org/2000/svg}"
    frames = svg.findall(f"{tag}rect[@class='box']")
    assert [float(r.get("x")) for r in frames] == [0, BOX_SIZE + GAP, 2 * (BOX_SIZE + GAP)]
    (circle,) = svg.findall(f"{tag}circle")
    assert (circle.get("cx"), circle.get("cy"), circle.get("r"), circle.get("fill")) == (
        "5",
        "5",
        "5",
        "Black",
    )
    (square,) = [r for r in svg.findall(f"{tag}rect") if r.get("class") != "box"]
    assert (square.get("x"), square.get("y"), square.get("width")) == ("70", "80", "20")
    (triangle,) = svg.findall(f"{tag}polygon")
    left = 2 * (BOX_SIZE + GAP) + 50  # the third box's object, apex up at its top middle
    assert triangle.get("points") == f"{left + 15},10 {left},40 {left + 30},40"


def test_the_example_panel_says_what_it_knows(nlvr2_store):
    nlvr_frame = CircuitStore.open(nlvr2_store.parent / "nlvr").frame
    row = nlvr_frame.iloc[0]
    uri, facts = example_summary(row)
    svg = base64.b64decode(uri.removeprefix("data:image/svg+xml;base64,")).decode()
    n_objects = sum(len(box) for box in json.loads(row["scene"]))
    assert svg.count("<circle") + svg.count("<polygon") + svg.count("<rect") == n_objects + 3
    assert facts.startswith(f"label {str(row['label']).lower()} · prediction ")
    assert f"p(true) {row['p_true']:.2f}" in facts
    uri, facts = example_summary(row.drop("scene"))
    assert uri is None and "export the store again" in facts
    nlvr2_row = CircuitStore.open(nlvr2_store).frame.iloc[0]
    uri, facts = example_summary(nlvr2_row)
    assert uri is None and "NLVR2 images are not shipped" in facts
    prior_row = nlvr2_row.drop("scene", errors="ignore").copy()
    prior_row["dataset"] = "object-images"  # one circuit per model: no example behind it
    uri, facts = example_summary(prior_row)
    assert uri is None and "not conditioned on examples" in facts and "NLVR2" not in facts


def test_relative_strength_factors_out_each_circuits_density(nlvr2_store):
    view = AppStores(nlvr2_store).view(".")
    z, strength = view.statistics.relative_strength(), view.statistics.module_strength()
    np.testing.assert_allclose(z.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(z.std(axis=1), 1, atol=1e-4)
    # the sentences where modules are most connected differ from module to module
    processors = [m for m, role in enumerate(view.store.roles) if role == "processor"]
    assert len({int(np.argmax(z[:, m])) for m in processors}) >= 10
    # circuits of ever higher density: by raw strength the densest is every module's most
    # connected; relative strength does not move
    step = np.ptp(strength) + 1.0
    view._strength = strength.astype(np.float64) + step * np.arange(len(view.frame))[:, None]
    assert {int(np.argmax(view._strength[:, m])) for m in processors} == {len(view.frame) - 1}
    np.testing.assert_allclose(view.statistics.relative_strength(), z, atol=1e-4)
    by_category = view.statistics.module_by_category(0)
    assert {c for c, _, _ in by_category} == set(view.categories())
    assert [v for _, v, _ in by_category] == sorted((v for _, v, _ in by_category), reverse=True)


def test_the_z_difference_ignores_density_and_sees_structure():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, (8, 8))
    p = (p + p.T) / 2
    np.fill_diagonal(p, 1.0)
    denser = np.clip(0.3 + 0.6 * p, 0, 1)  # the same structure, denser: an affine map of P
    np.fill_diagonal(denser, 1.0)
    np.testing.assert_allclose(within_z(denser), within_z(p), atol=1e-9)
    moved = p.copy()
    moved[0, 1] = moved[1, 0] = p[0, 1] + 0.5 if p[0, 1] < 0.5 else p[0, 1] - 0.5
    change = within_z(moved) - within_z(p)
    assert np.unravel_index(np.argmax(np.abs(np.triu(change, 1))), change.shape) == (0, 1)
    assert np.all(np.diag(within_z(p)) == 0)


def test_a_selection_is_summarised_against_the_rest(nlvr2_store):
    view = AppStores(nlvr2_store).view(".")
    tagged = view.statistics.category_rows()["spatial relation"]
    rows = np.flatnonzero(tagged)[:30].tolist()
    summary = view.statistics.selection_summary(rows, k=3)
    chosen = np.zeros(len(view.store), dtype=bool)
    chosen[rows] = True
    # reference: every circuit's P z-scored within itself, selection mean minus rest mean
    z = np.stack([within_z(view.store[r].link_probability()) for r in range(len(chosen))])
    difference = z[chosen].mean(0) - z[~chosen].mean(0)
    i, j, d = summary["stronger"][0]
    assert d == pytest.approx(difference[i, j], abs=1e-5)
    assert d == pytest.approx(difference[np.triu_indices(len(z[0]), 1)].max(), abs=1e-5)
    assert summary["weaker"][0][2] == pytest.approx(
        difference[np.triu_indices(len(z[0]), 1)].min(), abs=1e-5
    )
    # every selected circuit has the category; the rest some of the time
    category, share, rest = summary["categories"][0]
    assert (category, share) == ("spatial relation", 1.0) and rest == pytest.approx(
        tagged[~chosen].mean()
    )
    text = summary_text(summary)
    assert text.startswith("categories against the rest: spatial relation 100% (rest ")
    assert "links stronger in the selection: " in text and " sd)" in text
    assert view.statistics.selection_summary([]) == {"categories": [], "stronger": [], "weaker": []}


def test_a_prior_fit_with_no_runner_up_says_so_instead_of_an_infinite_gap():
    fit = {"family": "erdos_renyi", "best": "erdos_renyi", "params": {"p": 1.0}, "reading": "P"}
    lines = [line.children for line in prior_summary({**fit, "gap": float("inf")})]
    assert "no other family describes this graph" in lines
    finite = [line.children for line in prior_summary({**fit, "gap": 2.54})]
    assert "gap to runner-up: 2.5 nats" in finite


def test_the_prior_card_says_what_was_read_and_the_null_band():
    null = {
        "source": "random signatures (d_sig 16, eps 0.25), 20 draws",
        "observed": {"density": 0.25},
        "mean": {"density": 0.03},
        "sd": {"density": 0.0004},
        "z_scores": {"density": 146.6},
        "distinguishable": True,
    }
    fit = {"family": "erdos_renyi", "best": "erdos_renyi", "gap": 94.3, "params": {"p": 0.25}}
    lines = [str(line.children) for line in prior_summary({**fit, "reading": "P", "null": null})]
    assert lines[0] == "erdos_renyi" and lines[1].startswith("read: P")
    assert lines[2] == (
        "distinguishable from the null, random signatures (d_sig 16, eps 0.25), 20 draws: "
        "density 0.25 against 0.03 +- 0.0004 (z +146.6)"
    )


def test_a_fresh_page_draws_the_store_its_url_names_until_the_store_key_lands(nlvr2_store):
    """The circuit drawing reads the store key as State: on a first open it is still None, and
    the URL's store, not the default store, is the page's (a default-store circuit of the same
    row was drawn once)."""
    stores = AppStores(nlvr2_store.parent)
    other = next(k for k in stores.keys if k != stores.default)
    assert page_store(stores, None, f"?store={other}&id=3") == other
    assert page_store(stores, None, "") == stores.default
    assert page_store(stores, stores.default, f"?store={other}") == stores.default  # landed


def test_a_model_loads_in_the_background_and_a_bad_one_says_why_when_asked(
    nlvr2_store, tmp_path, capsys
):
    with pytest.raises(FileNotFoundError, match="no-such-run"):  # a missing path fails at once
        AppStores(nlvr2_store.parent, checkpoint=tmp_path / "no-such-run")
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"not a checkpoint")
    stores = AppStores(nlvr2_store.parent, checkpoint=broken)  # returns before loading
    (model,) = stores.models
    assert model.path == broken and len(model.sha256) == 64
    with pytest.raises(Exception) as failure:
        _ = model.generator
    assert f"the model {broken} did not load" in capsys.readouterr().err
    with pytest.raises(type(failure.value)):  # and again on every later use
        model("there is a yellow block")


def test_every_plot_waits_in_a_closed_slot_and_its_kind_says_when_it_opens(nlvr2_store):
    from dash import dcc

    from circuitlab.app.layout.parts import SLOT_CLOSED, SLOT_OPEN, plot_slot
    from circuitlab.app.panels import panels

    PLOTS = {kind: panel.plots for kind, panel in panels().items()}

    app = create_app(nlvr2_store)
    layout = app.layout()  # a function: each page's layout carries its first view
    slots = {c.id: c for c in layout._traverse() if isinstance(c, dcc.Tabs)}
    graphs = [c.id for c in layout._traverse() if isinstance(c, dcc.Graph)]
    assert sorted(graphs) == sorted(g for kind in PLOTS.values() for g in kind)
    for graph in graphs:
        slot = slots[plot_slot(graph)]
        assert slot.value == SLOT_CLOSED
        (tab,) = slot.children
        assert tab.value == SLOT_OPEN and tab.children.id == graph
    # the NAC's slots open once its circuit is drawn, the other kinds' with their body
    opened_by = {}
    for callback in app._callback_list:  # what the page's renderer is served
        for output in callback["output"].strip(".").split("..."):
            name, prop = output.split("@")[0].rsplit(".", 1)
            if prop == "value" and name.endswith("-slot"):
                opened_by[name] = [i["id"] for i in callback["inputs"]]
    for kind, kind_graphs in PLOTS.items():
        expected = ["graph"] if kind == "nac" else ["store-key"]
        assert all(opened_by[plot_slot(g)] == expected for g in kind_graphs), kind


def test_another_kinds_panels_never_run_on_a_nac_page(nlvr2_store):
    """Their callbacks wait for their kind's key (set only on a page of that kind) or their own
    panel's components, never run on a page's first load, and so never on a NAC page."""
    from circuitlab.app.layout.parts import kind_key

    app = create_app(nlvr2_store)
    for kind in ("ni", "mn", "nfm"):
        own = [
            callback
            for callback in app._callback_list  # what the page's renderer is served
            if all(out.startswith(f"{kind}-") for out in callback["output"].strip(".").split("..."))
            and not callback["output"].strip(".").startswith(kind_key(kind))
        ]
        assert len(own) == 3, kind
        for callback in own:
            inputs = {i["id"] for i in callback["inputs"]}
            assert "store-key" not in inputs
            assert all(i.startswith(f"{kind}-") for i in inputs), inputs
            assert callback["prevent_initial_call"], inputs


def test_the_exported_figure_draws_forced_and_cut_links_as_the_app_does(nlvr2_store):
    from matplotlib.collections import LineCollection
    from matplotlib.colors import to_hex

    from circuitlab.edits import CircuitEdit

    view = AppStores(nlvr2_store).view(".")
    graph = view.visible_graph({"index": 0}, 0.9, None)  # few links: forced ones are not drawn
    absent = [(i, j) for i in range(6) for j in range(i + 1, 6) if not graph.has_edge(i, j)]
    edit = CircuitEdit(forced=tuple(absent[:2]), cut=(absent[2],))
    figure = circuit_figure(view, graph, edit)
    by_colour = {}
    for collection in figure.axes[0].collections:
        if isinstance(collection, LineCollection):
            colour = to_hex(collection.get_edgecolor()[0])
            by_colour[colour] = by_colour.get(colour, 0) + len(collection.get_segments())
    assert by_colour.get("#2ca02c") == 2  # the forced links, green as on screen
    assert by_colour.get("#d62728") == 1  # the cut one, red


def test_the_prior_panel_draws_p_ordered_by_the_best_fits_blocks(nlvr2_store):
    import plotly.graph_objects as go

    from circuitlab.analysis.prior_verdict import best_prior, block_order, read_matrix
    from circuitlab.app.callbacks.circuit import degree_figure, matrix_figure

    view = AppStores(nlvr2_store).view(".")
    fit = view.prior_fit({"index": 4})
    verdict = best_prior(view.store[4])
    a, _ = read_matrix(view.store[4])
    order = block_order(a, verdict.fits[verdict.best].params())
    assert fit["order"] == order.tolist() and sorted(order.tolist()) == list(range(len(a)))
    np.testing.assert_allclose(fit["matrix"], a[np.ix_(order, order)], atol=5e-4)
    matrix = go.Figure(matrix_figure(fit))  # the dicts are valid Plotly figures (it validates)
    heatmap = matrix.data[0]
    assert list(heatmap.x) == [str(m) for m in order] and np.shape(heatmap.z) == a.shape
    assert verdict.best in matrix.layout.title.text
    degrees = go.Figure(degree_figure(fit))
    assert list(degrees.data[0].y) == fit["observed"] and degrees.data[1].name == verdict.best


@pytest.mark.parametrize("conditional", [True, False])
def test_a_store_of_unconditional_models_lists_them_without_sentence_boxes(tmp_path, conditional):
    """The priors store (one circuit per model) has no sentences to search, no examples and
    no map worth drawing: its page lists the models and hides those parts."""
    from circuitlab.app.callbacks.search import page_shape

    rng = np.random.default_rng(0)
    circuits = [Circuit(rng.normal(size=(6, 4)), ["processor"] * 5 + ["readout"])] * 3
    frame = pd.DataFrame({"text": ["none", "erdos_renyi", "scale_free"]})
    path = tmp_path / "store"
    CircuitStore.write(path, circuits, frame, config={"conditional": conditional})
    view = AppStores(path).view(".")
    assert view.has_sentences is conditional
    title, filters, example, map_row = page_shape(view)
    hidden = {"display": "none"}
    if conditional:
        assert title == "Find a sentence" and filters == example == map_row == {}
    else:
        assert title == "Models (one circuit each)"
        assert filters == example == map_row == hidden
