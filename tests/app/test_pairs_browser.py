"""A pair-world model's stores in the app (headless Chromium): a stored pair drawn beside its
circuit, what a processor reads outlined in it, and generated pairs for an NLVR2 sentence."""

import base64

import pytest

from circuitlab.app.factory import create_app
from circuitlab.data.pair_scenes import pair_scene_from_json
from circuitlab.store import CircuitStore
from tests.app.conftest import serve
from tests.app.test_app_browser import no_console_errors, tap

pytestmark = pytest.mark.timeout(300)


def shown_svg(dash_duo, selector: str = "#example-scene") -> str:
    src = dash_duo.find_element(selector).get_attribute("src")
    return base64.b64decode(src.split(",", 1)[1]).decode()


def test_a_pair_is_drawn_beside_its_circuit_and_a_processor_outlines_what_it_reads(
    dash_duo, tiny_pairs_export, screenshot
):
    checkpoint, out = tiny_pairs_export
    row = CircuitStore.open(out / "pairs").frame.iloc[2]
    n_objects = sum(len(image) for image in pair_scene_from_json(row["scene"]).images)
    dash_duo.driver.set_window_size(1500, 2400)
    url = f"?store=pairs&id={row['id']}&mode=threshold"  # every processor drawn
    serve(dash_duo, create_app(out, checkpoint=checkpoint), url)
    dash_duo.wait_for_contains_text("#example-facts", "prediction")
    assert f"p(true) {row['p_true']:.2f}" in dash_duo.find_element("#example-facts").text
    svg = shown_svg(dash_duo)
    assert svg.count('class="object') == n_objects and "left image" in svg
    assert 'class="object read"' not in svg
    shown, natural = dash_duo.driver.execute_script(
        "const i = document.querySelector('#example-scene');return [i.clientWidth, i.naturalWidth];"
    )
    assert shown >= natural - 1  # drawn at its own size: its names at 10 px, not scaled down
    tap(dash_duo, "node[id='3']")  # a processor
    dash_duo.wait_for_contains_text("#module-reads", "reads on this scene", timeout=20)
    dash_duo.wait_for_contains_text("#example-facts", "outlined: what module 3 reads")
    reads = dash_duo.find_element("#module-reads").text
    assert " image " in reads  # objects named with their image: "... in the left image 0.31"
    assert 'class="object read"' in shown_svg(dash_duo)
    screenshot(dash_duo, "pair_example")
    # an NLVR2 sentence has no stored pair: three generated pairs with the model's answers
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/?store=nlvr2&id=0")
    dash_duo.wait_for_contains_text("#example-world", "generated-world scenes", timeout=20)
    answers = dash_duo.find_elements("#example-world .world-answer")
    assert len(answers) == 3 and all("truth unknown" in a.text for a in answers)
    images = dash_duo.find_elements("#example-world img")
    assert len(images) == 3
    first = base64.b64decode(images[0].get_attribute("src").split(",", 1)[1]).decode()
    assert "right image" in first and 'class="object' in first
    no_console_errors(dash_duo)
