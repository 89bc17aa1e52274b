"""The attribution view in the browser: links and modules coloured by their effect on the shown
example's answer, the strongest edits listed with the library's numbers, the minimal circuit
drawn alone, the numbers on hover."""

import numpy as np
from selenium.webdriver.support.ui import WebDriverWait
from test_app_browser import no_console_errors, open_nlvr_example

from circuitlab.app.callbacks.drawing import minimal_count
from circuitlab.app.callbacks.faithfulness import PROMPT
from circuitlab.app.stores import AppStores
from tests.app.conftest import WAIT

EDGES = "return document.getElementById('graph')._cyreg.cy.edges(arguments[0]).length"
# the faithfulness plot's CSS display, read afresh each time (its slot re-renders it)
DISPLAY = (
    "const g = document.getElementById('faithfulness'); return g && getComputedStyle(g).display"
)


def test_colour_by_attribution_shows_the_strongest_edits_and_the_minimal_circuit(
    dash_duo, nlvr2_store, screenshot
):
    row = open_nlvr_example(dash_duo, nlvr2_store, 2, "&mode=threshold&color=attribution")
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


def test_what_decides_draws_reads_and_read_out_links_coloured_by_attribution(
    dash_duo, nlvr2_store, screenshot
):
    intervener = AppStores(nlvr2_store.parent, checkpoint="checkpoints/nlvr").intervener("nlvr")
    readouts = [m for m, role in enumerate(intervener.view.store.roles) if role == "readout"]
    for position in range(30):  # an example whose decisive circuit keeps reads and read-outs
        index = int(intervener.rows[position])
        decisive = intervener.decisive(index)
        kept = decisive.links[decisive.kept_links]
        if decisive.kept_reads.any() and np.isin(kept[:, 1], readouts).any():
            break
    else:
        raise AssertionError("no example among 30 whose decisive circuit reads and reads out")
    assert position == index  # the store's first rows all have scenes: position is the row
    open_nlvr_example(dash_duo, nlvr2_store, position, "&mode=decides")
    dash_duo.wait_for_contains_text("#edge-count", "decide the answer", timeout=30)
    n_links, n_reads = int(decisive.kept_links.sum()), int(decisive.kept_reads.sum())
    WebDriverWait(dash_duo.driver, WAIT).until(
        lambda d: d.execute_script(EDGES, "edge") == n_links + n_reads
    )
    assert dash_duo.driver.execute_script(EDGES, "edge.read") == n_reads
    assert dash_duo.driver.execute_script(EDGES, "edge.attributed") == n_links + n_reads
    tokens = "return document.getElementById('graph')._cyreg.cy.nodes('.token').length"
    assert dash_duo.driver.execute_script(tokens) == int(decisive.kept_reads.any(0).sum())
    into_readouts = " ".join(f"[target = '{m}']" for m in readouts).replace("] [", "], [")
    assert dash_duo.driver.execute_script(EDGES, into_readouts) > 0
    dash_duo.wait_for_contains_text("#edge-count", f"{decisive.hidden_reads} reads hidden")
    script = "document.getElementById('graph')._cyreg.cy.edges('.read')[0].emit('mouseover')"
    dash_duo.driver.execute_script(script)
    dash_duo.wait_for_contains_text("#edge-hover", " reads ")
    screenshot(dash_duo, "decisive")
    no_console_errors(dash_duo)


def test_the_example_cards_faithfulness_curve_is_measured_on_a_click_and_cleared_by_a_new_one(
    dash_duo, nlvr2_store, screenshot
):
    row = open_nlvr_example(dash_duo, nlvr2_store, 3, "")
    wait = WebDriverWait(dash_duo.driver, WAIT)
    wait.until(lambda d: d.execute_script(DISPLAY) == "none")  # drawn, nothing measured yet
    dash_duo.find_element("#faithfulness-run").click()
    dash_duo.wait_for_contains_text("#faithfulness-summary", "CPR", timeout=60)
    intervener = AppStores(nlvr2_store.parent, checkpoint="checkpoints/nlvr").intervener("nlvr")
    index = int(np.flatnonzero(intervener.view.frame["id"] == row["id"])[0])
    curve = intervener.faithfulness(index)  # the library's numbers for this example
    summary = dash_duo.find_element("#faithfulness-summary").text
    assert f"CPR {curve.cpr:.2f}" in summary and f"CMD {curve.cmd:.2f}" in summary
    wait.until(lambda d: d.execute_script(DISPLAY) == "block")
    traces = dash_duo.driver.execute_script(
        "return document.getElementById('faithfulness').querySelector('.js-plotly-plot')"
        ".data.map(t => t.name)"
    )
    assert traces[-1] == "decisive ranking" and "random: median" in traces
    screenshot(dash_duo, "faithfulness")
    # another circuit (the store's first; this one is its fourth): the card is cleared
    dash_duo.find_element("#results td[data-dash-column='text']").click()
    dash_duo.wait_for_text_to_equal("#faithfulness-summary", PROMPT, timeout=30)
    wait.until(lambda d: d.execute_script(DISPLAY) == "none")
    no_console_errors(dash_duo)
