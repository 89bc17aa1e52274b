"""The app in headless Chromium: search, threshold, module click, lasso, URL state, bad input.
Each test ends by checking the browser console has no errors."""

import time

import pytest
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from circuitlab.app.factory import create_app
from circuitlab.store import CircuitStore

pytestmark = pytest.mark.timeout(300)


def start(dash_duo, store_path, query: str = ""):
    app = create_app(store_path)
    dash_duo.start_server(app)
    dash_duo.driver.set_window_size(1500, 1900)  # the whole page fits: no scrolling
    if query:
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}/{query}")
    dash_duo.wait_for_element("#graph")
    return app


def edge_count(dash_duo) -> int:
    text = dash_duo.find_element("#edge-count").text
    return int(text.split(" links")[0].split(", ")[-1])


def step_threshold(dash_duo, steps: int):
    """Move the slider by ``steps`` of 0.05 with the keyboard, as a user would."""
    thumb = dash_duo.find_element("#threshold [role='slider']")
    thumb.click()
    key = Keys.ARROW_RIGHT if steps > 0 else Keys.ARROW_LEFT
    thumb.send_keys(key * abs(steps))


def click_at(dash_duo, x: float, y: float):
    """A real mouse click at viewport coordinates (x, y)."""
    actions = ActionBuilder(dash_duo.driver)
    actions.pointer_action.move_to_location(int(x), int(y)).click()
    actions.perform()


def no_console_errors(dash_duo):
    errors = [e for e in dash_duo.get_logs() or [] if e.get("level") == "SEVERE"]
    assert errors == []


def open_first_result(dash_duo, text: str):
    search = dash_duo.find_element("#search")
    search.send_keys(text)
    search.send_keys("\n")
    dash_duo.wait_for_contains_text("#result-count", "matching circuits")
    dash_duo.wait_for_contains_text("#results", text, timeout=10)
    dash_duo.find_element("#results td[data-dash-column='text']").click()
    dash_duo.wait_for_contains_text("#edge-count", "links")


def test_search_a_sentence_and_see_its_graph_then_move_the_threshold(
    dash_duo, nlvr2_store, screenshot
):
    store = CircuitStore.open(nlvr2_store)
    word = store.frame["text"].iloc[7].split()[2]
    start(dash_duo, nlvr2_store)
    open_first_result(dash_duo, word)
    assert word.lower() in dash_duo.find_element("#circuit-title").text.lower()
    at_half = edge_count(dash_duo)
    assert at_half > 0
    nodes = dash_duo.driver.execute_script(
        "return document.getElementById('graph')._cyreg.cy.nodes().length"
    )
    assert nodes == 18
    step_threshold(dash_duo, 8)  # 0.5 -> 0.9
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.9")
    assert edge_count(dash_duo) < at_half
    step_threshold(dash_duo, -16)  # -> 0.1
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.1")
    assert edge_count(dash_duo) >= at_half
    assert "gap to runner-up" in dash_duo.find_element("#prior-fit").text
    screenshot(dash_duo, "circuit_view")
    no_console_errors(dash_duo)


def test_click_a_module_and_see_its_details(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store, "?id=3")
    dash_duo.wait_for_contains_text("#circuit-title", "#3:")
    time.sleep(0.5)
    x, y = dash_duo.driver.execute_script(
        "const cy = document.getElementById('graph')._cyreg.cy; cy.resize();"
        "const box = cy.container().getBoundingClientRect();"
        "const p = cy.$('#5').renderedPosition(); return [box.left + p.x, box.top + p.y];"
    )
    click_at(dash_duo, x, y)
    dash_duo.wait_for_contains_text("#module-details", "module 5", timeout=10)
    details = dash_duo.find_element("#module-details").text
    assert "strongest links" in details and "most connected in" in details
    assert "module=5" in dash_duo.driver.current_url
    no_console_errors(dash_duo)


def test_lasso_points_fill_the_selection_table(dash_duo, nlvr2_store, screenshot):
    start(dash_duo, nlvr2_store)
    dash_duo.wait_for_element("#embedding .scatterlayer, #embedding .gl-container", timeout=15)
    time.sleep(1)
    plot = dash_duo.find_element("#embedding .nsewdrag")
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", plot)
    left, top, w, h = dash_duo.driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]",
        plot,
    )
    edges = [
        ((0.1, 0.1), (0.9, 0.1)),
        ((0.9, 0.1), (0.9, 0.9)),
        ((0.9, 0.9), (0.1, 0.9)),
        ((0.1, 0.9), (0.1, 0.12)),
    ]
    path = [
        (a[0] + (b[0] - a[0]) * t / 10, a[1] + (b[1] - a[1]) * t / 10)
        for a, b in edges
        for t in range(1, 11)
    ]
    actions = ActionBuilder(dash_duo.driver)
    pointer = actions.pointer_action
    pointer.move_to_location(int(left + 0.1 * w), int(top + 0.1 * h)).pointer_down()
    for fx, fy in path:  # a lasso is a path: many small moves
        pointer.move_to_location(int(left + fx * w), int(top + fy * h))
    pointer.pointer_up()
    actions.perform()
    dash_duo.wait_for_contains_text("#selection-count", "circuits", timeout=10)
    rows = dash_duo.find_elements("#selection tbody tr")
    assert len(rows) > 1  # header row + at least one circuit
    screenshot(dash_duo, "embedding_selection")
    no_console_errors(dash_duo)


def test_url_state_is_restored(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store, "?id=12&threshold=0.8&module=4&color=community")
    dash_duo.wait_for_contains_text("#circuit-title", "#12:")
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.8")
    dash_duo.wait_for_contains_text("#module-details", "module 4")
    checked = dash_duo.find_element("#color-by input[value='community']")
    assert checked.is_selected()
    no_console_errors(dash_duo)


def test_bad_url_input_shows_a_message_and_no_injected_html(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store, "?id=%3Cb%3Ex%3C/b%3E&threshold=7")
    dash_duo.wait_for_contains_text("#graph-message", "no circuit with id")
    message = dash_duo.find_element("#graph-message").text
    assert "'<b>x</b>'" in message  # shown as text, not rendered
    assert "threshold '7' is not a number in [0, 1]" in message
    assert dash_duo.driver.find_elements(By.CSS_SELECTOR, "#graph-message b") == []
    assert "Traceback" not in dash_duo.driver.page_source
    no_console_errors(dash_duo)
