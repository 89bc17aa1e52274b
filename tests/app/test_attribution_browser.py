"""The attribution view in the browser: links and modules coloured by their effect on the shown
example's answer, the strongest edits listed with the library's numbers, the minimal circuit
drawn alone, the numbers on hover."""

import numpy as np
from selenium.webdriver.support.ui import WebDriverWait
from test_app_browser import no_console_errors, open_nlvr_example

from circuitlab.app.callbacks.circuit import minimal_count
from circuitlab.app.stores import AppStores
from tests.app.conftest import WAIT

EDGES = "return document.getElementById('graph')._cyreg.cy.edges(arguments[0]).length"


def test_colour_by_attribution_shows_the_strongest_edits_and_the_minimal_circuit(
    dash_duo, nlvr2_store, screenshot
):
    row = open_nlvr_example(dash_duo, nlvr2_store, 2, "&color=attribution")
    dash_duo.wait_for_contains_text("#attribution-table", "p(answer) change", timeout=30)
    # the numbers are the library's, for this example with its stored circuit
    intervener = AppStores(nlvr2_store.parent, checkpoint="checkpoints/nlvr").intervener("nlvr")
    index = int(np.flatnonzero(intervener.view.frame["id"] == row["id"])[0])
    expected = intervener.attribution(index)
    edit, effect = expected.strongest()[0]
    first = dash_duo.find_elements("#attribution-table tbody tr")[0].text
    assert first == f"{edit} {-effect:+.3f}"
    table = dash_duo.find_element("#attribution-table").text
    assert f"minimal circuit: {len(expected.minimal)} links" in table
    drawn = dash_duo.driver.execute_script(EDGES, "edge")
    assert drawn > 0 and dash_duo.driver.execute_script(EDGES, "edge.attributed") == drawn
    effects = dash_duo.driver.execute_script(
        "return document.getElementById('graph')._cyreg.cy.edges().map(e => e.data('effect'))"
    )
    assert all(isinstance(e, int | float) for e in effects)
    # hovering a link reads its effect
    script = "document.getElementById('graph')._cyreg.cy.edges()[0].emit('mouseover')"
    dash_duo.driver.execute_script(script)
    dash_duo.wait_for_contains_text("#edge-hover", "; cut, p(answer) ")
    screenshot(dash_duo, "attribution")

    dash_duo.find_element("#minimal-only input").click()
    size = len(expected.minimal)
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: d.execute_script(EDGES, "edge") == size)
    # the count as minimal_count words it (this example's minimal circuit is empty)
    count = minimal_count(intervener.view.n_modules, size)
    dash_duo.wait_for_contains_text("#edge-count", count)
    screenshot(dash_duo, "attribution_minimal")
    no_console_errors(dash_duo)
