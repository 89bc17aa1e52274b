"""Browser tests: real headless Chromium through dash[testing]'s dash_duo (pytest --headless is
in pyproject's addopts). Debian's chromium and chromium-driver come from scripts/setup.sh."""

import os
import socket
from pathlib import Path

import pytest

os.environ.setdefault("DASH_TEST_CHROMEPATH", "/usr/bin/chromium")
# seconds a browser test waits for the page to show something (dash_duo's default is 10): on a
# loaded 2-core CI machine a first draw has taken over 10 s; a wait ends as soon as it holds
WAIT = 30
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "app"


@pytest.fixture(autouse=True)
def free_dash_port(request: pytest.FixtureRequest) -> None:
    """Serve each browser test on a port the OS reports free. dash_duo otherwise counts up from
    58050, and a program already listening there (another test run on a shared machine, or the
    other xdist worker's browser test) answers its readiness probe, so the browser opens someone
    else's page. So browser tests can run on every worker at once."""
    if "dash_duo" not in request.fixturenames:
        return
    from dash.testing.application_runners import BaseDashRunner

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        BaseDashRunner._next_port = probe.getsockname()[1]


@pytest.fixture(autouse=True)
def patient_waits(request: pytest.FixtureRequest) -> None:
    """dash_duo's waits (wait_for_text_to_equal, wait_for_element, ...) wait up to WAIT s."""
    if "dash_duo" not in request.fixturenames:
        return
    from selenium.webdriver.support.wait import WebDriverWait

    duo = request.getfixturevalue("dash_duo")
    duo._wait_timeout = WAIT
    duo._wd_wait = WebDriverWait(duo.driver, WAIT)


def serve(dash_duo, app, query: str = "") -> None:
    """Serve ``app`` and open its page once, at ``query`` ("?id=3&..."). dash_duo.start_server
    alone first opens "/" and waits for it: a page load (Plotly and the renderer start anew) that
    a test opening its own URL throws away."""
    dash_duo.start_server(app, navigate=False)
    dash_duo._url = dash_duo.server.url  # what server_url returns; its setter would open "/"
    dash_duo.wait_for_page(url=f"{dash_duo.server.url}/{query}", timeout=WAIT)


@pytest.fixture(scope="session")
def nlvr2_store(demo_folder) -> Path:
    """A small real NLVR2 store: the shipped model's circuits of the first 150 sentences."""
    return demo_folder / "stores" / "nlvr" / "nlvr2"


@pytest.fixture
def screenshot():
    def save(dash_duo, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        dash_duo.driver.save_screenshot(str(path))
        return path

    return save
