"""Pins, groups and notes in the browser: pinned by clicks, grouped and noted with the page's
controls, saved beside the store and restored from the URL after a reload, exported and
imported into a fresh page as the same view, and carried by the circuit's JSON export."""

import json
import shutil
from pathlib import Path

from selenium.webdriver.support.ui import WebDriverWait
from test_app_browser import no_console_errors, start, tap, wait_for_file

from circuitlab.app.view_drawing import GROUP_PREFIX
from circuitlab.app.view_notes import ViewNotes, load_view
from circuitlab.store import CircuitStore
from tests.app.conftest import WAIT

CY = "document.getElementById('graph')._cyreg.cy"
# -1 while the page (after a reload) has no graph yet
COUNT = (
    "const g = document.getElementById('graph');"
    "return g && g._cyreg ? g._cyreg.cy.$(arguments[0]).length : -1"
)
GROUP = f"node[id='{GROUP_PREFIX}counting']"
BETWEEN_MODULES = "/^[0-9]+$/.test(e.data('source')) && /^[0-9]+$/.test(e.data('target'))"
NOTE = "reads how many"


def _count(dash_duo, selector: str) -> int:
    return dash_duo.driver.execute_script(COUNT, selector)


def _until(dash_duo, condition) -> None:
    WebDriverWait(dash_duo.driver, WAIT).until(lambda _: condition())


def _type(dash_duo, selector: str, text: str) -> None:
    box = dash_duo.find_element(selector)
    box.clear()
    box.send_keys(text)


def _group_and_note(dash_duo) -> None:
    """In pin mode: pin modules 1 and 2 by clicks, group them as "counting" and write a note on
    the group."""
    dash_duo.find_element("#click-mode input[value='pin']").click()
    for module in (1, 2):
        tap(dash_duo, f"node[id='{module}']")
    _until(dash_duo, lambda: _count(dash_duo, "node.pinned") == 2)
    _type(dash_duo, "#group-name", "counting")
    dash_duo.find_element("#group-make").click()
    _until(dash_duo, lambda: _count(dash_duo, GROUP) == 1)
    assert _count(dash_duo, "node[id='1'], node[id='2']") == 0  # drawn as the group's node
    tap(dash_duo, GROUP)
    dash_duo.wait_for_text_to_equal("#note-target-line", "note on group counting:")
    _type(dash_duo, "#note-text", NOTE)
    dash_duo.find_element("#note-save").click()
    _until(dash_duo, lambda: _count(dash_duo, f"{GROUP}.noted") == 1)


def _shows_the_view(dash_duo) -> None:
    """The group's node with its note on hover."""
    _until(dash_duo, lambda: _count(dash_duo, f"{GROUP}.noted") == 1)
    dash_duo.driver.execute_script(f"{CY}.$(arguments[0]).emit('mouseover')", GROUP)
    dash_duo.wait_for_contains_text("#edge-hover", "group counting (modules 1, 2)")
    dash_duo.wait_for_contains_text("#edge-hover", f"note: {NOTE}")


def test_a_saved_view_of_pins_groups_and_notes_survives_a_reload(dash_duo, nlvr2_store, tmp_path):
    store = shutil.copytree(nlvr2_store, tmp_path / "nlvr2")
    before = sorted(p.name for p in store.iterdir())
    start(dash_duo, store, "?id=2&mode=threshold")
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.5")
    _group_and_note(dash_duo)
    link = dash_duo.driver.execute_script(
        f"return {CY}.edges().filter(e => {BETWEEN_MODULES})[0].id()"
    )
    tap(dash_duo, f"edge[id='{link}']")  # a link between two modules, pinned
    _until(dash_duo, lambda: _count(dash_duo, "edge.pinned") == 1)
    _type(dash_duo, "#view-name", "lab-1")
    dash_duo.find_element("#view-save").click()
    dash_duo.wait_for_contains_text("#notes-message", "saved as lab-1")
    _until(dash_duo, lambda: "view=lab-1" in dash_duo.driver.current_url)
    n_modules = CircuitStore.open(store).meta["n_modules"]
    saved = ViewNotes.from_json(load_view(store, "lab-1"), n_modules)
    assert saved.groups == (("counting", (1, 2)),) and dict(saved.notes) == {"group counting": NOTE}
    assert saved.pinned_links == (tuple(sorted(int(m) for m in link.split("-"))),)
    assert sorted(p.name for p in store.iterdir()) == sorted([*before, "views"])
    dash_duo.driver.refresh()  # a fresh page on the URL: the view comes from the saved file
    _shows_the_view(dash_duo)
    assert _count(dash_duo, f"edge[id='{link}'].pinned") == 1
    assert dash_duo.find_element("#notes-message").text == "opened the saved view lab-1"
    # a change makes it another view than the one saved: the URL no longer names it; a click
    # on the group puts its name in the group box, to ungroup it
    tap(dash_duo, GROUP)
    dash_duo.wait_for_text_to_equal("#note-target-line", "note on group counting:")
    assert dash_duo.find_element("#group-name").get_attribute("value") == "counting"
    assert dash_duo.find_element("#note-text").get_attribute("value") == NOTE
    dash_duo.find_element("#group-remove").click()
    _until(dash_duo, lambda: _count(dash_duo, GROUP) == 0)
    _until(dash_duo, lambda: "view=" not in dash_duo.driver.current_url)
    no_console_errors(dash_duo)


def test_an_exported_view_imported_into_a_fresh_page_draws_the_same(dash_duo, nlvr2_store):
    start(dash_duo, nlvr2_store, "?id=2&mode=threshold")
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.5")
    _group_and_note(dash_duo)
    tap(dash_duo, "node[id='5']")  # pinned too, then only the pinned subgraph drawn
    dash_duo.find_element("#pinned-only input").click()
    dash_duo.wait_for_contains_text("#edge-count", "only the 3 pinned modules' subgraph")
    drawn = sorted(dash_duo.driver.execute_script(f"return {CY}.nodes().map(n => n.id())"))
    assert drawn == sorted([f"{GROUP_PREFIX}counting", "5"])
    folder = Path(dash_duo.download_path)
    dash_duo.find_element("#export-json").click()  # the circuit's export carries the view
    circuit = json.loads(wait_for_file(folder, "*-circuit-2-*.json").read_text())
    assert circuit["notes"]["groups"] == {"counting": [1, 2]}
    group = next(n for n in circuit["nodes"] if n["id"] == f"{GROUP_PREFIX}counting")
    assert group["members"] == [1, 2] and group["note"] == NOTE
    assert sorted(n["id"] for n in circuit["nodes"]) == drawn
    dash_duo.find_element("#view-export").click()
    exported = wait_for_file(folder, "*-view-*.json")
    dash_duo.wait_for_page(url=f"{dash_duo.server.url}/?id=2&mode=threshold", timeout=WAIT)
    dash_duo.wait_for_contains_text("#edge-count", "P > 0.5")
    assert _count(dash_duo, GROUP) == 0  # a fresh page: no view
    upload = dash_duo.find_element("#view-upload input[type='file']")
    upload.send_keys(str(exported))
    dash_duo.wait_for_text_to_equal("#notes-message", "imported")
    _shows_the_view(dash_duo)
    dash_duo.wait_for_contains_text("#edge-count", "only the 3 pinned modules' subgraph")
    assert dash_duo.find_element("#pinned-only input").is_selected()
    again = sorted(dash_duo.driver.execute_script(f"return {CY}.nodes().map(n => n.id())"))
    assert again == drawn
    no_console_errors(dash_duo)
