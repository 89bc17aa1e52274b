"""An NFM network's store in the app (headless Chromium): it opens beside NAC stores and
shows each question's image, the graph of which layer reads which, and the reads."""

import shutil

import numpy as np
import pytest
from test_app_browser import no_console_errors, rendered_label_px, wait_for_url

from circuitlab.app.factory import create_app
from circuitlab.nfm.export import write_nfm_store
from circuitlab.train import load_model

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def mixed_root(tmp_path_factory, nlvr2_store, tiny_nfm_run):
    """A root holding the NLVR2 store (kind nac) and a small NFM network's (kind nfm)."""
    root = tmp_path_factory.mktemp("mixed-nfm")
    shutil.copytree(nlvr2_store, root / "nlvr2")
    model, config = load_model(tiny_nfm_run)
    write_nfm_store(model, config, tiny_nfm_run / "checkpoint.pt", root / "nfm", n_circuits=15)
    return root


def shown_reads(dash_duo) -> list:
    script = "return document.getElementById('nfm-heatmap').querySelector('.js-plotly-plot')"
    return dash_duo.driver.execute_script(script + ".data[0].z")


def test_an_nfm_store_shows_images_and_layer_reads(dash_duo, mixed_root):
    app = create_app(mixed_root / "nfm", root=mixed_root)
    assert app.circuit_stores.kinds == {"nfm": "nfm", "nlvr2": "nac"}
    view = app.circuit_stores.open("nfm")
    dash_duo.driver.set_window_size(1280, 900)
    dash_duo.start_server(app)
    dash_duo.wait_for_contains_text("#nfm-title", f"Input 0: {view.frame['text'][0]}")
    for hidden in ("#nac-body", "#ni-body", "#mn-body"):
        assert dash_duo.find_element(hidden).value_of_css_property("display") == "none"
    dash_duo.wait_for_element("#nfm-heatmap .heatmaplayer")
    np.testing.assert_allclose(shown_reads(dash_duo), view.attention[0], atol=1e-6)
    dash_duo.wait_for_element("#nfm-image .js-plotly-plot")
    nodes = dash_duo.driver.execute_script(
        "return document.getElementById('nfm-graph')._cyreg.cy.nodes().length"
    )
    assert nodes == 2 * 2 + 1  # two passes of two layers, and the null slot
    assert rendered_label_px(dash_duo, "nfm-graph") >= 10, rendered_label_px(dash_duo, "nfm-graph")

    # another question: the title and the reads follow
    dash_duo.find_elements("#nfm-inputs td[data-dash-column='text']")[3].click()
    dash_duo.wait_for_contains_text("#nfm-title", f"Input 3: {view.frame['text'][3]}")
    np.testing.assert_allclose(shown_reads(dash_duo), view.attention[3], atol=1e-6)

    dash_duo.select_dcc_dropdown("#store-choice", value="nlvr2")
    wait_for_url(dash_duo, "store=nlvr2")
    dash_duo.wait_for_contains_text("#edge-count", "links")
    assert dash_duo.find_element("#nfm-body").value_of_css_property("display") == "none"
    no_console_errors(dash_duo)
