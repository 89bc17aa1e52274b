"""A Neural Interpreter's store in the app (headless Chromium): it opens like any other store,
beside NAC stores, and shows each input's routing per step and its function transitions."""

import shutil

import numpy as np
import pytest
from selenium.webdriver.support.wait import WebDriverWait
from test_app_browser import no_console_errors, wait_for_url

from circuitlab.app.factory import create_app
from circuitlab.ni.export import write_ni_store
from circuitlab.train import load_model

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def mixed_root(tmp_path_factory, nlvr2_store, tiny_ni_run):
    """A root holding the NLVR2 store (kind nac) and a small Neural Interpreter's (kind ni)."""
    root = tmp_path_factory.mktemp("mixed")
    shutil.copytree(nlvr2_store, root / "nlvr2")
    model, config = load_model(tiny_ni_run)
    write_ni_store(model, config, tiny_ni_run / "checkpoint.pt", root / "ni", n_circuits=40)
    return root


def heatmap_z(dash_duo) -> list:
    script = "return document.getElementById('ni-heatmap').querySelector('.js-plotly-plot')"
    plot = dash_duo.driver.execute_script(script + ".data[0].z")
    return plot


def test_a_neural_interpreter_store_shows_routing_per_step_and_transitions(dash_duo, mixed_root):
    app = create_app(mixed_root / "ni", root=mixed_root)
    assert app.circuit_stores.kinds == {"ni": "ni", "nlvr2": "nac"}
    view = app.circuit_stores.open("ni")
    dash_duo.driver.set_window_size(1500, 1800)
    dash_duo.start_server(app)
    dash_duo.wait_for_contains_text("#ni-title", "Input 0: x = ")
    assert dash_duo.find_element("#nac-body").value_of_css_property("display") == "none"
    dash_duo.wait_for_element("#ni-heatmap .heatmaplayer")
    np.testing.assert_allclose(heatmap_z(dash_duo), view.routing[0, 0], atol=1e-3)
    nodes = dash_duo.driver.execute_script(
        "return document.getElementById('ni-transitions')._cyreg.cy.nodes().length"
    )
    assert nodes == 3  # one per function
    # the map of the inputs is drawn on the first open, before any input is clicked
    drawn_map = (
        "const p = document.getElementById('ni-map').querySelector('.js-plotly-plot');"
        "return Boolean(p && p.data && p.data.length && p.data[0].x.length);"
    )
    WebDriverWait(dash_duo.driver, 30).until(lambda d: d.execute_script(drawn_map))

    # another step, then another input: the heatmap follows
    dash_duo.select_dcc_dropdown("#ni-step", value="script 1, iteration 1")
    dash_duo.wait_for_contains_text("#ni-heatmap", "script 1, iteration 1")
    np.testing.assert_allclose(heatmap_z(dash_duo), view.routing[0, 3], atol=1e-3)
    dash_duo.find_elements("#ni-inputs td[data-dash-column='text']")[2].click()
    dash_duo.wait_for_contains_text("#ni-title", f"Input 2: {view.frame['text'][2]}")
    np.testing.assert_allclose(heatmap_z(dash_duo), view.routing[2, 3], atol=1e-3)

    # the menu goes to the NAC store: its panels come back, the routing panel hides
    dash_duo.select_dcc_dropdown("#store-choice", value="nlvr2")
    wait_for_url(dash_duo, "store=nlvr2")
    dash_duo.wait_for_contains_text("#edge-count", "links")
    assert dash_duo.find_element("#ni-body").value_of_css_property("display") == "none"
    no_console_errors(dash_duo)
