"""The app in headless Chromium: search, threshold, module click, lasso, URL state, bad input.
Each test ends by checking the browser console has no errors."""

import base64
import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

from circuitlab.app.factory import create_app
from circuitlab.app.store_view import MAX_SENTENCE
from circuitlab.app.stores import AppStores
from circuitlab.store import CircuitStore
from tests.app.conftest import WAIT, serve

pytestmark = pytest.mark.timeout(300)


def start(dash_duo, store_path, query: str = "", checkpoint=None):
    app = create_app(store_path, checkpoint=checkpoint)
    # the whole page fits (no scrolling), from the first draw: a graph fitted in a smaller
    # window keeps that window's zoom
    dash_duo.driver.set_window_size(1500, 2400)
    serve(dash_duo, app, query)
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


def wait_for_url(dash_duo, part: str, timeout: float = WAIT):
    WebDriverWait(dash_duo.driver, timeout).until(lambda driver: part in driver.current_url)


def no_console_errors(dash_duo):
    errors = [e for e in dash_duo.get_logs() or [] if e.get("level") == "SEVERE"]
    assert errors == []


def open_first_result(dash_duo, text: str):
    search = dash_duo.find_element("#search")
    search.send_keys(text)
    search.send_keys("\n")
    dash_duo.wait_for_contains_text("#result-count", "matching circuit")
    dash_duo.wait_for_contains_text("#results", text, timeout=WAIT)
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
    assert nodes == store.meta["n_modules"]
    step_threshold(dash_duo, 8)  # 0.5 -> 0.9
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.9")
    assert edge_count(dash_duo) < at_half
    step_threshold(dash_duo, -16)  # -> 0.1
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.1")
    assert edge_count(dash_duo) >= at_half
    # the fit lands apart from the drawing and reads P itself, whatever the threshold
    dash_duo.wait_for_contains_text("#prior-fit", "read: P among")
    fit = dash_duo.find_element("#prior-fit").text
    assert "the null, random signatures" in fit
    assert "gap to runner-up" in fit or "no other family describes this graph" in fit
    # beside it, P ordered by the fitted blocks: one cell per pair of processors
    cells = "return document.querySelector('#prior-matrix .heatmaplayer image') !== null"
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: d.execute_script(cells))
    dash_duo.wait_for_contains_text("#prior-matrix", "fit's blocks")
    step_threshold(dash_duo, 8)  # back to 0.5: the graph first drawn
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.5")
    assert edge_count(dash_duo) == at_half
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
    dash_duo.wait_for_contains_text("#module-details", "module 5", timeout=WAIT)
    details = dash_duo.find_element("#module-details").text
    assert "strongest links" in details and "most connected (against" in details
    assert "connectivity by category (z)" in details
    assert "module=5" in dash_duo.driver.current_url
    no_console_errors(dash_duo)


def test_a_modules_knockout_cost_is_shown_by_category(dash_duo, nlvr2_store):
    dash_duo.driver.set_window_size(1500, 2400)
    serve(
        dash_duo,
        create_app(nlvr2_store.parent, checkpoint="checkpoints/nlvr"),
        "?store=nlvr&id=1&module=4",
    )
    dash_duo.wait_for_contains_text("#module-knockout", "over 256 examples", timeout=30)
    text = dash_duo.find_element("#module-knockout").text
    assert text.startswith("knocked out: accuracy ") and "hardest hit: " in text
    no_console_errors(dash_duo)


def test_lasso_points_fill_the_selection_table(dash_duo, nlvr2_store, screenshot):
    start(dash_duo, nlvr2_store)
    # the map renders once the circuit is drawn (its plot slot opens then): give it the time of both
    dash_duo.wait_for_element("#embedding .scatterlayer, #embedding .gl-container", timeout=30)
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
    dash_duo.wait_for_contains_text("#selection-count", "circuits", timeout=WAIT)
    rows = dash_duo.find_elements("#selection tbody tr")
    assert len(rows) > 1  # header row + at least one circuit
    dash_duo.wait_for_contains_text("#selection-summary", "links stronger in the selection")
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


@pytest.mark.slow(33)
def test_the_url_keeps_search_map_colour_compared_category_and_typed_sentence(
    dash_duo, nlvr2_store
):
    start(dash_duo, nlvr2_store, "?id=3", checkpoint="checkpoints/nlvr")
    dash_duo.wait_for_contains_text("#circuit-title", "#3:")
    search = dash_duo.find_element("#search")
    search.send_keys("bottle\n")
    wait_for_url(dash_duo, "q=bottle")
    dash_duo.select_dcc_dropdown("#embedding-color", value="split")
    wait_for_url(dash_duo, "map=split")
    frame = CircuitStore.open(nlvr2_store).frame
    category = sorted({c for cats in frame["categories"] for c in cats})[0]  # the menu's first
    dash_duo.select_dcc_dropdown("#compare-category", index=0)
    wait_for_url(dash_duo, "compare_category=")
    shared = dash_duo.driver.current_url

    # the link reproduces the view in a fresh page
    dash_duo.wait_for_page(url=shared)
    dash_duo.wait_for_contains_text("#circuit-title", "#3:")
    assert dash_duo.find_element("#search").get_attribute("value") == "bottle"
    dash_duo.wait_for_contains_text("#results", "bottle")
    dash_duo.wait_for_contains_text("#compare-summary", f"against the mean circuit of {category}")
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: "dev" in trace_names(d))  # by split

    # a typed sentence is in the URL, and a link to it generates its circuit again
    dash_duo.find_element("#typed").send_keys("There are exactly two towers.")
    dash_duo.find_element("#generate").click()
    dash_duo.wait_for_contains_text("#circuit-title", "typed: There are exactly two towers.")
    wait_for_url(dash_duo, "typed=There+are+exactly+two+towers.")
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?typed=There+are+no+towers.")
    dash_duo.wait_for_contains_text("#circuit-title", "typed: There are no towers.", timeout=30)
    assert edge_count(dash_duo) > 0
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: "typed" in trace_names(d))
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


def wait_for_file(folder: Path, pattern: str, timeout: float = WAIT) -> Path:
    """The first non-empty file in ``folder`` matching the glob ``pattern``."""
    end = time.time() + timeout
    while time.time() < end:
        done = [p for p in folder.glob(pattern) if p.stat().st_size > 0]
        if done:
            return done[0]
        time.sleep(0.2)
    raise AssertionError(f"no {pattern} file in {folder}: {list(folder.iterdir())}")


def test_type_a_sentence_and_see_a_new_circuit(dash_duo, nlvr2_store, screenshot):
    start(dash_duo, nlvr2_store, checkpoint="checkpoints/nlvr")
    typed = dash_duo.find_element("#typed")
    typed.send_keys("There is a yellow block on top of a tower.")
    dash_duo.find_element("#generate").click()
    dash_duo.wait_for_contains_text("#circuit-title", "typed: There is a yellow block", timeout=30)
    assert edge_count(dash_duo) > 0
    dash_duo.wait_for_element("#embedding .legend .traces:last-child", timeout=WAIT)
    assert "typed" in dash_duo.find_element("#embedding .legend").text
    screenshot(dash_duo, "typed_sentence")
    no_console_errors(dash_duo)


def trace_names(driver) -> list[str]:
    """The names of the map's traces, as the browser holds them."""
    script = (  # the map renders after the circuit: nothing yet until it has
        "const g = document.querySelector('#embedding .js-plotly-plot');"
        "return g && g.data ? g.data.map(t => t.name) : [];"
    )
    return driver.execute_script(script)


def another_browser():
    """A second, separate headless Chromium: another visitor of the same server."""
    options = Options()
    options.binary_location = os.environ["DASH_TEST_CHROMEPATH"]
    for argument in ("--headless=new", "--no-sandbox", "--window-size=1500,2400"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


@pytest.mark.slow(26)
def test_what_one_visitor_types_never_appears_for_another(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store, checkpoint="checkpoints/nlvr")
    dash_duo.find_element("#typed").send_keys("There is a yellow block on top of a tower.")
    dash_duo.find_element("#generate").click()
    dash_duo.wait_for_contains_text("#circuit-title", "typed: There is a yellow block", timeout=30)
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: "typed" in trace_names(d))
    other = another_browser()
    try:
        other.get(dash_duo.server_url)
        WebDriverWait(other, 30).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#embedding .js-plotly-plot .legend")
        )
        assert "typed" not in trace_names(other)
        box = other.find_element(By.ID, "typed")
        box.send_keys("There are two black circles.")
        other.find_element(By.ID, "generate").click()
        WebDriverWait(other, 30).until(lambda d: "typed" in trace_names(d))
        star_texts = "return document.querySelector('#embedding .js-plotly-plot').data"
        star_texts += ".filter(t => t.name === 'typed')[0].text"
        assert other.execute_script(star_texts) == ["There are two black circles."]
    finally:
        other.quit()
    # the first visitor's map, redrawn, still holds its own sentence only
    dash_duo.select_dcc_dropdown("#embedding-color", index=1)
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: "typed" in trace_names(d))
    assert dash_duo.driver.execute_script(star_texts) == [
        "There is a yellow block on top of a tower."
    ]
    no_console_errors(dash_duo)


def test_a_typed_sentence_is_answered_on_generated_world_scenes(dash_duo, nlvr2_store, screenshot):
    app = start(dash_duo, nlvr2_store, checkpoint="checkpoints/nlvr")
    known = app.circuit_stores.generator.task.val_pool[0].text  # the grammar's own sentence
    dash_duo.find_element("#typed").send_keys(known)
    dash_duo.find_element("#generate").click()
    dash_duo.wait_for_contains_text("#example-world", "truth from its logical form", timeout=30)
    answers = [e.text for e in dash_duo.find_elements("#example-world .world-answer")]
    assert len(answers) == 3 and all("model p(true) " in a for a in answers)
    assert all(a.endswith(("truth true", "truth false")) for a in answers)
    assert len(dash_duo.find_elements("#example-world img")) == 3
    screenshot(dash_duo, "world_answers")
    typed = dash_duo.find_element("#typed")
    typed.send_keys(Keys.CONTROL, "a")
    typed.send_keys("Two dogs are sitting on a red couch.")
    dash_duo.find_element("#generate").click()
    dash_duo.wait_for_contains_text("#example-world", "truth unknown", timeout=30)
    answers = [e.text for e in dash_duo.find_elements("#example-world .world-answer")]
    assert len(answers) == 3 and all(a.endswith("truth unknown") for a in answers)
    no_console_errors(dash_duo)


def test_a_slow_answer_shows_a_spinner_until_it_lands(dash_duo, nlvr2_store):
    app = start(dash_duo, nlvr2_store, checkpoint="checkpoints/nlvr")
    view = app.circuit_stores.view(".")
    generate = view.generate_circuit

    def slow(text):
        time.sleep(6)  # long enough for a loaded machine to show the spinner before it lands
        return generate(text)

    view.generate_circuit = slow
    dash_duo.find_element("#typed").send_keys("There is a black circle.")
    dash_duo.find_element("#generate").click()
    spinner = "#typed-loading [class*='spinner']"
    WebDriverWait(dash_duo.driver, 5.5).until(lambda d: d.find_elements(By.CSS_SELECTOR, spinner))
    dash_duo.wait_for_contains_text("#circuit-title", "typed: There is a black circle.", timeout=30)
    WebDriverWait(dash_duo.driver, WAIT).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, spinner)
    )
    no_console_errors(dash_duo)


@pytest.mark.slow(28)
def test_bad_typed_sentences_show_messages_and_stay_text(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store, checkpoint="checkpoints/nlvr")
    dash_duo.find_element("#generate").click()
    dash_duo.wait_for_contains_text("#typed-message", "type a sentence first")
    typed = dash_duo.find_element("#typed")
    typed.send_keys("<img src=x onerror=alert(1)> There are two towers.")
    dash_duo.find_element("#generate").click()
    # the first typed sentence loads the text encoder: slow on a busy machine
    dash_duo.wait_for_contains_text("#circuit-title", "<img src=x", timeout=60)
    assert dash_duo.driver.find_elements(By.CSS_SELECTOR, "#circuit-title img") == []
    typed.click()
    typed.send_keys(Keys.CONTROL, "a")
    typed.send_keys("word " * 79 + "words")  # 400 characters: refused in words, not cut
    assert len(typed.get_attribute("value")) == 400
    dash_duo.find_element("#generate").click()
    too_long = f"the sentence has 400 characters; at most {MAX_SENTENCE}"
    dash_duo.wait_for_contains_text("#typed-message", too_long, timeout=30)
    # URL settings this store cannot take are named, not dropped without a word
    query = "?id=2&module=999&compare_category=nope&map=nonexistent"
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/{query}")
    dash_duo.wait_for_contains_text("#graph-message", "module '999' is not a module in 0-")
    message = dash_duo.find_element("#graph-message").text
    assert "compare_category 'nope' is not a category" in message
    assert "map 'nonexistent' is not a column the map is coloured by" in message
    no_console_errors(dash_duo)


def test_export_csv_json_png_svg_and_figure(dash_duo, nlvr2_store):
    store = nlvr2_store.name  # the app serves this one store
    start(dash_duo, nlvr2_store, "?id=2&threshold=0.7")
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.7")
    links = edge_count(dash_duo)
    folder = Path(dash_duo.download_path)
    from circuitlab.app.callbacks.export import state_hash
    from circuitlab.edits import CircuitEdit

    # the store in the name (another store's #2 never overwrites it), and the drawn state's hash
    stem = f"{store}-circuit-2-{state_hash(CircuitEdit(), 'P > 0.7')}"
    dash_duo.find_element("#export-csv").click()
    table = pd.read_csv(wait_for_file(folder, f"{stem}.csv"))
    assert list(table.columns) == ["source", "target", "p", "source_role", "target_role", "edit"]
    assert len(table) == links and (table["p"] > 0.7).all() and table["edit"].isna().all()
    dash_duo.find_element("#export-json").click()
    payload = json.loads(wait_for_file(folder, f"{stem}.json").read_text())
    n_modules = CircuitStore.open(nlvr2_store).meta["n_modules"]
    assert len(payload["nodes"]) == n_modules and len(payload["links"]) == links
    assert payload["store"] == store and payload["view"] == "P > 0.7"
    dash_duo.find_element("#export-png").click()
    drawing = wait_for_file(folder, f"{stem}.png").read_bytes()
    assert drawing[:4] == b"\x89PNG"
    dash_duo.find_element("#export-svg").click()
    svg = wait_for_file(folder, f"{stem}.svg").read_text()
    assert "<svg" in svg and svg.count("<path") + svg.count("<circle") >= 18  # the modules
    dash_duo.find_element("#export-figure").click()
    assert wait_for_file(folder, f"{stem}-figure.png").read_bytes()[:4] == b"\x89PNG"
    assert (folder / f"{stem}.png").read_bytes() == drawing  # not overwritten by the figure
    # an edited circuit exports under its own name, its cut link (shown or not) and knocked
    # module marked
    i, j = 0, 1
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?id=2&threshold=0.7&cut={i}-{j}&knock=5")
    dash_duo.wait_for_text_to_equal("#edit-summary", "cut 1 links, knocked out 1 modules")
    dash_duo.find_element("#export-csv").click()
    edited_stem = (
        f"{store}-circuit-2-{state_hash(CircuitEdit(cut=((i, j),), knocked_out=(5,)), 'P > 0.7')}"
    )
    edited = pd.read_csv(wait_for_file(folder, f"{edited_stem}.csv"))
    marked = edited[edited["edit"] == "cut"]
    assert len(marked) == 1 and {int(marked["source"].iloc[0]), int(marked["target"].iloc[0])} == {
        i,
        j,
    }
    dash_duo.find_element("#export-json").click()
    payload = json.loads(wait_for_file(folder, f"{edited_stem}.json").read_text())
    assert payload["edit"]["knocked_out"] == [5]
    assert [n["module"] for n in payload["nodes"] if n["knocked_out"]] == [5]
    no_console_errors(dash_duo)


def test_compare_with_a_circuit_and_a_category_mean(dash_duo, nlvr2_store, screenshot):
    start(dash_duo, nlvr2_store, "?id=1&compare=2")
    dash_duo.wait_for_contains_text("#compare-summary", "against circuit #2")
    count = "return document.getElementById(arguments[0])._cyreg.cy.edges().length"
    assert dash_duo.driver.execute_script(count, "graph-b") > 0
    summary = dash_duo.find_element("#compare-summary").text
    stronger = int(summary.split("; ")[-1].split(" links stronger")[0])
    weaker = int(summary.split(", ")[-1].split(" weaker")[0])
    assert dash_duo.driver.execute_script(count, "graph-diff") == stronger + weaker
    assert "weaker by 0.5 sd or more of its circuit's links" in summary  # density factored out
    # the difference is drawn beside the circuit: level with it, to its right
    rect = "return document.getElementById(arguments[0]).getBoundingClientRect().toJSON()"
    circuit, difference = (dash_duo.driver.execute_script(rect, g) for g in ("graph", "graph-diff"))
    assert difference["left"] >= circuit["right"] and difference["top"] < circuit["bottom"]
    screenshot(dash_duo, "compare_z")
    dash_duo.find_element("#diff-scale input[value='p']").click()
    dash_duo.wait_for_contains_text("#compare-summary", "weaker by 0.05 or more in P")
    dash_duo.select_dcc_dropdown("#compare-category", index=0)
    dash_duo.wait_for_contains_text("#compare-summary", "against the mean circuit of")
    assert "compare=2" in dash_duo.driver.current_url
    screenshot(dash_duo, "compare")
    # nothing compared: no difference card
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?id=1")
    dash_duo.wait_for_contains_text("#compare-summary", "pick a circuit id")
    assert not dash_duo.find_element("#diff-card").is_displayed()
    no_console_errors(dash_duo)


def test_the_edge_guard_refuses_a_dense_view_and_says_what_to_do(dash_duo, nlvr2_store):
    dash_duo.driver.set_window_size(1500, 2400)
    serve(dash_duo, create_app(nlvr2_store, max_edges=20), "?id=0&threshold=0.1")
    dash_duo.wait_for_contains_text("#graph-message", "the view draws at most 20")
    assert "raise the threshold or use top-k" in dash_duo.find_element("#graph-message").text
    assert edge_count(dash_duo) == 0
    no_console_errors(dash_duo)


def test_the_url_and_the_menu_pick_a_store_under_the_root(dash_duo, nlvr2_store):
    root = nlvr2_store.parent
    frames = {k: CircuitStore.open(root / k).frame for k in ("nlvr", "nlvr2")}
    texts = {k: frame.set_index("id")["text"] for k, frame in frames.items()}
    shared = texts["nlvr"].index.intersection(texts["nlvr2"].index)
    cid = next(i for i in shared if texts["nlvr"][i] != texts["nlvr2"][i])
    app = create_app(root)
    assert app.circuit_stores.keys == ["nlvr", "nlvr2"]
    dash_duo.driver.set_window_size(1500, 2400)
    serve(dash_duo, app, f"?store=nlvr2&id={cid}")
    brand = "#navbar .navbar-brand"
    dash_duo.wait_for_text_to_equal(brand, "circuitlab: nlvr2")
    dash_duo.wait_for_contains_text("#circuit-title", f"#{cid}: {texts['nlvr2'][cid]}")
    assert not dash_duo.find_elements("#graph-message")  # a closed alert is not in the page
    wait_for_url(dash_duo, "store=nlvr2")  # the URL the page writes keeps the store

    # the menu opens the other store in a fresh page, named in the URL
    dash_duo.select_dcc_dropdown("#store-choice", value="nlvr")
    dash_duo.wait_for_text_to_equal(brand, "circuitlab: nlvr")
    assert "?store=nlvr" in dash_duo.driver.current_url
    first = frames["nlvr"]["id"].iloc[0]  # a fresh page opens on the store's first circuit
    dash_duo.wait_for_contains_text("#circuit-title", f"#{first}: {texts['nlvr'][first]}")

    # a store key that is not one of the root's (here a path out of it) is refused in the page
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?store=..%2F..%2Fetc&id={cid}")
    dash_duo.wait_for_contains_text("#graph-message", "no store '../../etc' under the app's root")
    dash_duo.wait_for_text_to_equal(brand, "circuitlab: nlvr")
    dash_duo.wait_for_contains_text("#circuit-title", f"#{cid}: {texts['nlvr'][cid]}")
    no_console_errors(dash_duo)


def rendered_label_px(dash_duo, graph_id: str) -> float:
    """The on-screen height of a module label: font size times the view's zoom."""
    script = (
        "const cy = document.getElementById(arguments[0])._cyreg.cy;"
        "return cy.zoom() * parseFloat(cy.nodes()[0].style('font-size'));"
    )
    return dash_duo.driver.execute_script(script, graph_id)


def hover(dash_duo, graph_id: str, kind: str):
    """Point at the first edge or node of a cytoscape view (cytoscape's own mouseover event)."""
    script = "document.getElementById(arguments[0])._cyreg.cy[arguments[1]]()[0].emit('mouseover')"
    dash_duo.driver.execute_script(script, graph_id, kind)


def overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_a_fresh_page_shows_a_readable_circuit_and_map(dash_duo, nlvr2_store, screenshot):
    store = CircuitStore.open(nlvr2_store)
    start(dash_duo, nlvr2_store)
    # the first view is a circuit, not an empty box
    first = store.frame["id"].iloc[0]
    dash_duo.wait_for_contains_text("#circuit-title", f"#{first}:")
    assert edge_count(dash_duo) > 0
    dash_duo.wait_for_text_to_equal("#result-count", f"{len(store)} matching circuits")
    # module labels are legible in the circuit and in both compare views
    assert rendered_label_px(dash_duo, "graph") >= 10
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?id=1&compare=2")
    dash_duo.wait_for_contains_text("#compare-summary", "against circuit #2")
    assert rendered_label_px(dash_duo, "graph-b") >= 10
    assert rendered_label_px(dash_duo, "graph-diff") >= 10
    # modules and difference links answer the pointer
    hover(dash_duo, "graph", "nodes")
    dash_duo.wait_for_contains_text("#edge-hover", "links in this view")
    hover(dash_duo, "graph", "edges")
    dash_duo.wait_for_contains_text("#edge-hover", ": p = ")
    hover(dash_duo, "graph-diff", "edges")
    dash_duo.wait_for_contains_text("#compare-hover", ": change ")
    # the top-k box shows, labelled, in top-k mode only
    assert not dash_duo.find_element("#top-k").is_displayed()
    dash_duo.find_element("#mode input[value='top-k']").click()
    dash_duo.wait_for_contains_text("#edge-count", "top-3 per module")
    assert dash_duo.find_element("#top-k").is_displayed()
    assert dash_duo.find_element("label[for='top-k']").text == "links per module, k"
    # the map: a colour per category group, and the legend clear of plotly's toolbar
    colors = dash_duo.driver.execute_script(
        "return document.querySelector('#embedding .js-plotly-plot').data.map(t => t.marker.color)"
    )
    assert len(colors) >= 2 and len(set(colors)) == len(colors)
    legend = dash_duo.find_element("#embedding .legend").rect
    toolbar = dash_duo.find_element("#embedding .modebar").rect
    assert not overlap(legend, toolbar)
    screenshot(dash_duo, "fresh_page")
    no_console_errors(dash_duo)


def open_nlvr_example(dash_duo, nlvr2_store, position: int, query: str = "", checkpoint=True):
    """The app on both test stores (with the shipped model unless ``checkpoint`` is False),
    showing the NLVR store's example at ``position``; returns its store row."""
    root = nlvr2_store.parent
    row = CircuitStore.open(root / "nlvr").frame.iloc[position]
    dash_duo.driver.set_window_size(1500, 2400)
    app = create_app(root, checkpoint="checkpoints/nlvr" if checkpoint else None)
    serve(dash_duo, app, f"?store=nlvr&id={row['id']}{query}")
    return row


def test_an_nlvr_circuit_shows_its_scene_label_and_prediction(dash_duo, nlvr2_store, screenshot):
    row = open_nlvr_example(dash_duo, nlvr2_store, 4, checkpoint=False)
    dash_duo.wait_for_contains_text("#example-facts", "prediction")
    facts = dash_duo.find_element("#example-facts").text
    assert facts.startswith(f"label {str(row['label']).lower()} · prediction ")
    assert f"p(true) {row['p_true']:.2f}" in facts
    image = dash_duo.find_element("#example-scene")
    assert image.is_displayed() and image.size["width"] > 100
    svg = base64.b64decode(image.get_attribute("src").split(",", 1)[1]).decode()
    n_objects = sum(len(box) for box in json.loads(row["scene"]))
    assert svg.count("<circle") + svg.count("<polygon") + svg.count("<rect") == n_objects + 3
    screenshot(dash_duo, "nlvr_example")
    # an NLVR2 sentence has no scene: the panel says so and shows no image
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?store=nlvr2&id=0")
    dash_duo.wait_for_contains_text("#example-facts", "NLVR2 images are not shipped")
    assert not dash_duo.find_element("#example-scene").is_displayed()
    no_console_errors(dash_duo)


def tap(dash_duo, selector: str):
    """A click on a cytoscape element of the main view (cytoscape's own tap event)."""
    script = "document.getElementById('graph')._cyreg.cy.$(arguments[0]).emit('tap')"
    dash_duo.driver.execute_script(script, selector)


def test_a_clicked_processor_shows_what_it_reads_outlined_in_the_scene(
    dash_duo, nlvr2_store, screenshot
):
    open_nlvr_example(dash_duo, nlvr2_store, 4, "&mode=threshold")  # every processor drawn
    dash_duo.wait_for_contains_text("#example-facts", "prediction")
    image = dash_duo.find_element("#example-scene")
    assert (
        'class="read"' not in base64.b64decode(image.get_attribute("src").split(",", 1)[1]).decode()
    )
    tap(dash_duo, "node[id='3']")  # a processor
    dash_duo.wait_for_contains_text("#module-reads", "reads on this scene", timeout=20)
    dash_duo.wait_for_contains_text("#example-facts", "outlined: what module 3 reads")
    svg = base64.b64decode(image.get_attribute("src").split(",", 1)[1]).decode()
    assert 'class="read"' in svg
    # "...: obj 0.41, obj 0.37, ...[; nothing (null token) 0.49]" (the null token's after ";")
    objects, _, null = dash_duo.find_element("#module-reads").text.split(": ", 1)[1].partition("; ")
    weights = [float(part.rsplit(" ", 1)[1]) for part in objects.split(", ")]
    assert weights == sorted(weights, reverse=True) and 0 < weights[0] <= 1
    assert not null or (null.startswith("nothing (null token) ") and 0 <= float(null[21:]) <= 1)
    screenshot(dash_duo, "module_reads")
    readout = list(CircuitStore.open(nlvr2_store).roles).index("readout")
    tap(dash_duo, f"node[id='{readout}']")  # a read-out reads nothing of the scene
    dash_duo.wait_for_contains_text("#module-title", f"module {readout} (readout)")
    assert dash_duo.find_elements("#module-reads") == []
    no_console_errors(dash_duo)


@pytest.mark.slow(55)
def test_cut_a_link_and_knock_out_a_module_and_see_the_answer_move(
    dash_duo, nlvr2_store, screenshot
):
    row = open_nlvr_example(dash_duo, nlvr2_store, 2, "&mode=threshold")  # P's links to cut
    before = f"p(true) {row['p_true']:.2f} -> {row['p_true']:.2f}, the answer holds"
    dash_duo.wait_for_contains_text("#intervention", before, timeout=30)
    unedited = dash_duo.find_element("#intervention").text
    assert "256 stored examples" in unedited and "+0.0 points" in unedited
    assert dash_duo.find_element("#edit-summary").text == "no edit"
    edge = dash_duo.driver.execute_script(
        "const e = document.getElementById('graph')._cyreg.cy.edges()[0];"
        "return [e.data('source'), e.data('target')]"
    )
    tap(dash_duo, f"edge[source='{edge[0]}'][target='{edge[1]}']")  # inspect mode: no edit
    time.sleep(0.5)
    assert dash_duo.find_element("#edit-summary").text == "no edit"

    dash_duo.find_element("#click-mode input[value='edit']").click()
    tap(dash_duo, f"edge[source='{edge[0]}'][target='{edge[1]}']")
    dash_duo.wait_for_text_to_equal("#edit-summary", "cut 1 links, knocked out 0 modules")
    i, j = sorted(int(e) for e in edge)
    wait_for_url(dash_duo, f"cut={i}-{j}")
    cut = "return document.getElementById('graph')._cyreg.cy.edges('.cut').length"
    assert dash_duo.driver.execute_script(cut) == 1
    roles = CircuitStore.open(nlvr2_store).roles
    processors = [str(m) for m, role in enumerate(roles) if role == "processor"]
    # knock out every processor (the answer must move), each click once the last one shows, as
    # a visitor clicks: taps faster than the page handles them coalesce into one
    for count, module in enumerate(processors, 1):
        tap(dash_duo, f"node[id='{module}']")
        summary = f"cut 1 links, knocked out {count} modules"
        dash_duo.wait_for_text_to_equal("#edit-summary", summary, timeout=30)
    # without its processors the model answers from the read-outs alone: the accuracy moves
    # (each click's model run queues on the server; on a busy machine the last ends late)
    WebDriverWait(dash_duo.driver, 60).until(
        lambda d: "+0.0 points" not in d.find_element(By.ID, "intervention").text
    )
    knocked = "return document.getElementById('graph')._cyreg.cy.nodes('.knocked').length"
    assert dash_duo.driver.execute_script(knocked) == len(processors)
    screenshot(dash_duo, "intervention")

    dash_duo.find_element("#edit-undo").click()
    undone = f"cut 1 links, knocked out {len(processors) - 1} modules"
    dash_duo.wait_for_text_to_equal("#edit-summary", undone)
    shared = dash_duo.driver.current_url
    dash_duo.find_element("#edit-reset").click()
    dash_duo.wait_for_text_to_equal("#edit-summary", "no edit")
    dash_duo.wait_for_contains_text("#intervention", before)
    # the drawing forgets the edit too: no link left dashed as cut, no module as knocked out
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: d.execute_script(cut) == 0)
    assert dash_duo.driver.execute_script(knocked) == 0

    # the edited circuit is shareable: its URL restores the edit
    dash_duo.wait_for_page(url=shared)
    undone = f"cut 1 links, knocked out {len(processors) - 1} modules"
    dash_duo.wait_for_text_to_equal("#edit-summary", undone)
    # the drawing follows the summary in a callback of its own: wait for it
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: d.execute_script(cut) == 1)
    no_console_errors(dash_duo)


def test_force_a_link_and_take_in_another_circuit(dash_duo, nlvr2_store):
    open_nlvr_example(dash_duo, nlvr2_store, 2, "&mode=threshold&threshold=0.95")
    dash_duo.wait_for_contains_text("#intervention", "the answer holds", timeout=30)
    dash_duo.find_element("#click-mode input[value='force']").click()
    tap(dash_duo, "node[id='2']")
    dash_duo.wait_for_contains_text("#edit-summary", "forcing a link from module 2")
    tap(dash_duo, "node[id='9']")
    dash_duo.wait_for_text_to_equal(
        "#edit-summary", "cut 0 links, knocked out 0 modules, forced 1 links"
    )
    wait_for_url(dash_duo, "force=2-9")
    forced = "return document.getElementById('graph')._cyreg.cy.edges('.forced').length"
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: d.execute_script(forced) == 1)
    # a click on the same two ends again restores the link
    tap(dash_duo, "node[id='9']")
    tap(dash_duo, "node[id='2']")
    dash_duo.wait_for_text_to_equal("#edit-summary", "no edit")
    # another sentence's circuit, taken in through the compare box: the scene answered with it
    other = CircuitStore.open(nlvr2_store.parent / "nlvr").frame["id"].iloc[7]
    dash_duo.find_element("#compare-id").send_keys(f"{other}\n")
    dash_duo.wait_for_contains_text("#swap-outcome", f"this scene with circuit #{other}: p(true)")
    assert "with its signatures (the graph)" in dash_duo.find_element("#swap-outcome").text
    no_console_errors(dash_duo)


def map_trace(driver, name: str) -> dict | None:
    """The map's trace called ``name`` (x, y, customdata), as the browser holds it; None until
    the map has rendered (after the circuit, which a fresh page's layout already carries)."""
    script = (
        "const g = document.querySelector('#embedding .js-plotly-plot');"
        "if (!g || !g.data) { return null; }"
        "const t = g.data.filter(t => t.name === arguments[0])[0];"
        "return t ? {x: Array.from(t.x), y: Array.from(t.y), rows: t.customdata} : null;"
    )
    return driver.execute_script(script, name)


def test_the_map_marks_the_circuit_its_neighbours_and_the_search(dash_duo, nlvr2_store, screenshot):
    view = AppStores(nlvr2_store).view(".")
    start(dash_duo, nlvr2_store, "?id=7")
    dash_duo.wait_for_contains_text("#circuit-title", "#7:")
    row = view.index_of(7)
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: map_trace(d, "shown"))
    shown = map_trace(dash_duo.driver, "shown")
    tsne = view.map_frame("tsne")
    assert shown["rows"] == [row]
    assert shown["x"][0] == pytest.approx(tsne["x"].iloc[row])

    # its nearest circuits are listed, and open on a click
    nearest = view.nearest(row)
    dash_duo.wait_for_contains_text("#neighbours", view.frame["text"].iloc[nearest[0]][:20])
    dash_duo.find_element("#neighbours td[data-dash-column='text']").click()
    first = int(view.frame["id"].iloc[nearest[0]])
    dash_duo.wait_for_contains_text("#circuit-title", f"#{first}:")

    # the search's hits are ringed on the map
    dash_duo.find_element("#search").send_keys("bottle\n")
    dash_duo.wait_for_contains_text("#results", "bottle")
    WebDriverWait(dash_duo.driver, WAIT).until(lambda d: map_trace(d, "search hits"))
    rows, total = view.search("bottle")
    assert sorted(map_trace(dash_duo.driver, "search hits")["rows"]) == sorted(rows["index"])
    screenshot(dash_duo, "map_projector")

    # the PCA map, on demand
    dash_duo.find_element("#map-method input[value='pca']").click()
    dash_duo.wait_for_contains_text("#map-title", "PCA of P")
    shown = map_trace(dash_duo.driver, "shown")
    assert shown["x"][0] == pytest.approx(view.map_frame("pca")["x"].iloc[nearest[0]], rel=1e-5)
    no_console_errors(dash_duo)


def test_a_store_no_model_made_offers_no_sentence_box_and_says_why(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store)  # no --checkpoint: nothing can read a typed sentence
    dash_duo.wait_for_contains_text("#typed-unavailable", "start the app with --checkpoint")
    assert not dash_duo.find_element("#typed-group").is_displayed()
    no_console_errors(dash_duo)


def test_a_row_of_a_new_search_opens_its_circuit_even_if_that_cell_was_active(
    dash_duo, nlvr2_store
):
    store = CircuitStore.open(nlvr2_store)
    word = store.frame["text"].iloc[7].split()[2]
    start(dash_duo, nlvr2_store)
    open_first_result(dash_duo, word)
    first = dash_duo.find_element("#circuit-title").text
    # another circuit opened another way: a neighbour
    dash_duo.wait_for_element("#neighbours td[data-dash-column='text']", timeout=WAIT).click()
    WebDriverWait(dash_duo.driver, WAIT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "#circuit-title").text != first
    )
    # the same rows again from a new search (another spelling): the first row's cell, active
    # before, must open its circuit again
    search = dash_duo.find_element("#search")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(word.upper() + "\n")
    time.sleep(1.0)  # the new list lands
    dash_duo.find_element("#results td[data-dash-column='text']").click()
    WebDriverWait(dash_duo.driver, WAIT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "#circuit-title").text == first
    )
    no_console_errors(dash_duo)


def test_hovering_never_moves_the_graph_under_the_pointer(dash_duo, nlvr2_store):
    """Nothing above the graph changes height once the page is drawn, so the first click lands
    where the pointer is: not the hover line (its text appearing on the first hover pushed the
    graph down ~21 px), not the threshold slider (its code loads after the first draw: 34 px),
    not the sentence box (hidden by a callback on a store without a model: 16 px up)."""
    start(dash_duo, nlvr2_store, "?id=3")
    top = "return document.getElementById('graph').getBoundingClientRect().top"
    first = dash_duo.driver.execute_script(top)  # the page as the server drew it
    dash_duo.wait_for_contains_text("#edge-count", "links")
    dash_duo.wait_for_element("#threshold [role='slider']")
    WebDriverWait(dash_duo.driver, WAIT).until(lambda _: dash_duo.redux_state_rqs == [])
    # every callback answered: the sentence box hidden, as show_typing has it without a model
    assert dash_duo.find_element("#typed-group").is_displayed() is False
    assert dash_duo.driver.execute_script(top) == first
    script = "document.getElementById('graph')._cyreg.cy.edges()[0].emit('mouseover')"
    dash_duo.driver.execute_script(script)
    dash_duo.wait_for_contains_text("#edge-hover", "link ")
    assert dash_duo.driver.execute_script(top) == first
    no_console_errors(dash_duo)
