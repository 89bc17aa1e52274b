"""A Modular Network's store in the app (headless Chromium): it opens beside NAC stores and
shows each input's path on the layered module graph, its controller's probabilities and module
usage by class."""

import shutil

import numpy as np
import pytest
from test_app_browser import no_console_errors, wait_for_url

from circuitlab.analysis.paths import node, usage_by_label
from circuitlab.app.factory import create_app
from circuitlab.mn.export import write_mn_store
from circuitlab.train import load_model

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def mixed_root(tmp_path_factory, nlvr2_store, tiny_mn_run):
    """A root holding the NLVR2 store (kind nac) and a small Modular Network's (kind mn)."""
    root = tmp_path_factory.mktemp("mixed-mn")
    shutil.copytree(nlvr2_store, root / "nlvr2")
    model, config = load_model(tiny_mn_run)
    write_mn_store(model, config, tiny_mn_run / "checkpoint.pt", root / "mn", n_circuits=40)
    return root


def picked_nodes(dash_duo) -> list[str]:
    script = "return document.getElementById('mn-graph')._cyreg.cy"
    return sorted(dash_duo.driver.execute_script(script + ".nodes('.picked').map(n => n.id())"))


def expected_nodes(path: np.ndarray) -> list[str]:
    return sorted({node(layer, int(m)) for layer, picks in enumerate(path) for m in picks})


def test_a_modular_network_store_shows_paths_and_usage(dash_duo, mixed_root):
    app = create_app(mixed_root / "mn", root=mixed_root)
    assert app.circuit_stores.kinds == {"mn": "mn", "nlvr2": "nac"}
    view = app.circuit_stores.open("mn")
    dash_duo.driver.set_window_size(1500, 1800)
    dash_duo.start_server(app)
    dash_duo.wait_for_contains_text("#mn-title", "Input 0: digit ")
    for hidden in ("#nac-body", "#ni-body"):
        assert dash_duo.find_element(hidden).value_of_css_property("display") == "none"
    nodes = dash_duo.driver.execute_script(
        "return document.getElementById('mn-graph')._cyreg.cy.nodes().length"
    )
    assert nodes == 2 * 3  # layers x modules
    assert picked_nodes(dash_duo) == expected_nodes(view.paths[0])
    dash_duo.wait_for_element("#mn-usage .heatmaplayer")
    z = dash_duo.driver.execute_script(
        "return document.getElementById('mn-usage').querySelector('.js-plotly-plot').data[0].z"
    )
    labels = view.frame["label"].astype(str).to_numpy()
    np.testing.assert_allclose(z, usage_by_label(view.paths, labels, 3).to_numpy(), atol=1e-6)

    # another input: the title and the highlighted path follow
    dash_duo.find_elements("#mn-inputs td[data-dash-column='text']")[2].click()
    dash_duo.wait_for_contains_text("#mn-title", f"Input 2: {view.frame['text'][2]}")
    assert picked_nodes(dash_duo) == expected_nodes(view.paths[2])

    # the menu goes to the NAC store: its panels come back, the path panel hides
    dash_duo.select_dcc_dropdown("#store-choice", value="nlvr2")
    wait_for_url(dash_duo, "store=nlvr2")
    dash_duo.wait_for_contains_text("#edge-count", "links")
    assert dash_duo.find_element("#mn-body").value_of_css_property("display") == "none"
    no_console_errors(dash_duo)
