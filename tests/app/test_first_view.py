"""A page's layout carries the graph its URL opens on (``callbacks.first_view``): drawn on the
server for the layout request (whose referrer is the page's URL), the same graph the
callbacks draw, and nothing where the callbacks must decide."""

import json
import shutil

import pytest

from circuitlab.app.factory import create_app
from circuitlab.app.store_view import is_prepared, prepare_store
from circuitlab.mn.export import write_mn_store
from circuitlab.store import CircuitStore
from circuitlab.train import load_model


def layout_for(app, page_url: str | None):
    """The layout the app serves to a page at ``page_url`` (None: a request without referrer)."""
    headers = {"Referer": page_url} if page_url else {}
    with app.server.test_request_context("/_dash-layout", headers=headers):
        return app.layout()


@pytest.fixture(scope="module")
def nlvr2_app(nlvr2_store):
    return create_app(nlvr2_store)


def test_a_fresh_page_carries_the_urls_circuit_drawn_as_the_store_draws_it(nlvr2_app):
    view = nlvr2_app.circuit_stores.view(None)
    circuit_id = int(view.frame["id"].iloc[3])
    layout = layout_for(nlvr2_app, f"http://127.0.0.1:8050/?id={circuit_id}")
    expected, n_edges = view.graph_elements({"index": 3}, 0.5, None, "module")
    assert layout["graph"].elements == expected and n_edges > 0
    assert layout["circuit"].data == {"index": 3}
    assert layout["circuit-title"].children.startswith(f"#{circuit_id}: ")
    count = layout["edge-count"].children  # what decides needs a model: the links with P > 0.5
    assert count.startswith(f"{view.n_modules} modules, {n_edges} links (P > 0.5); drawn by P, as ")
    # no model attached: the sentence box hidden from the start, as ``show_typing`` answers
    # (its leaving after the first draw moved the graph up 16 px under the pointer)
    assert layout["typed-group"].style == {"display": "none"}
    assert (
        layout["typed-unavailable"].children == f"no typed sentences here: {view.no_model_reason}"
    )
    # no id: the store's first circuit, as the callbacks open it
    first = layout_for(nlvr2_app, "http://127.0.0.1:8050/")
    assert first["circuit"].data == {"index": 0}
    assert first["graph"].elements == view.graph_elements({"index": 0}, 0.5, None, "module")[0]


@pytest.mark.parametrize(
    "query",
    ["?threshold=0.3", "?id=999999", "?id=0&cut=1-2", "?store=nowhere", "?typed=one%20dog"],
)
def test_settings_the_first_view_does_not_draw_are_left_to_the_callbacks(nlvr2_app, query):
    layout = layout_for(nlvr2_app, f"http://127.0.0.1:8050/{query}")
    assert layout["graph"].elements == [] and getattr(layout["circuit"], "data", None) is None
    assert layout["circuit-title"].children == "no circuit selected"


def test_a_layout_asked_for_without_a_page_draws_nothing(nlvr2_app):
    assert layout_for(nlvr2_app, None)["graph"].elements == []  # no referrer
    assert nlvr2_app.layout()["graph"].elements == []  # outside any request


def test_another_kinds_page_carries_its_graph_with_its_body_shown(
    tmp_path_factory, nlvr2_store, tiny_mn_run
):
    root = tmp_path_factory.mktemp("first-view-mn")
    shutil.copytree(nlvr2_store, root / "nlvr2")
    prepare_store(CircuitStore.open(root / "nlvr2"))  # as ``circuitlab export`` leaves it
    model, config = load_model(tiny_mn_run)
    write_mn_store(model, config, tiny_mn_run / "checkpoint.pt", root / "mn", n_circuits=20)
    app = create_app(root / "nlvr2", root=root)
    view = app.circuit_stores.open("mn")
    row_id = int(view.frame["id"].iloc[5])
    layout = layout_for(app, f"http://127.0.0.1:8050/?store=mn&id={row_id}")
    assert layout["mn-graph"].elements == view.graph_elements(5)
    assert layout["mn-title"].children.startswith(f"Input {row_id}: ")
    assert layout["mn-body"].style == {} and layout["nac-body"].style == {"display": "none"}
    assert layout["graph"].elements == []
    # the NAC store of the same root still opens on its own circuit, the mn body hidden
    nac = layout_for(app, "http://127.0.0.1:8050/?store=nlvr2")
    assert nac["graph"].elements and nac["mn-body"].style == {"display": "none"}


def without_app_cache(store: CircuitStore) -> None:
    """Drop the module layout and map ``prepare_store`` cached in ``store.json``, as a store
    exported with ``--no-app-cache`` has none."""
    path = store.path / "store.json"
    meta = json.loads(path.read_text())
    for key in ("layout", "embedding_tsne"):
        meta.get("analysis", {}).pop(key, None)
    path.write_text(json.dumps(meta, indent=2))


def test_a_store_without_its_layout_and_map_is_left_to_the_callbacks_until_opened(
    tmp_path, nlvr2_store
):
    # the default store opens (and caches both) as the app starts; another opens on its page
    for name in ("nlvr2", "other"):
        shutil.copytree(nlvr2_store, tmp_path / name)
    without_app_cache(CircuitStore.open(tmp_path / "other"))
    app = create_app(tmp_path / "nlvr2", root=tmp_path)
    # the layout request computes nothing: the page shows the callbacks' spinner
    first = layout_for(app, "http://127.0.0.1:8050/?store=other")
    assert first["graph"].elements == [] and getattr(first["circuit"], "data", None) is None
    assert not is_prepared(CircuitStore.open(tmp_path / "other"))
    # once the callbacks have opened it (and cached both), a fresh page carries its circuit
    view = app.circuit_stores.view("other")
    assert is_prepared(CircuitStore.open(tmp_path / "other"))
    again = layout_for(app, "http://127.0.0.1:8050/?store=other")
    assert again["graph"].elements == view.graph_elements({"index": 0}, 0.5, None, "module")[0]
