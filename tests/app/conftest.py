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


def _composite_class(chromium: dict):
    from dash.testing.composite import DashComposite

    class OneChromium(DashComposite):
        """dash_duo over the worker's one Chromium (kept in ``chromium``): starting one is
        ~1.5 s and quitting it as long, in each of ~30 browser tests. After each test it is
        emptied (other tabs closed, a blank page, no cookies, the console read out, its first
        window size back); each test gets its own download folder and serves on its own port,
        so no page storage is shared. If emptying fails it is quit, and the next test starts a
        fresh one."""

        def get_webdriver(self):
            if "driver" not in chromium:
                driver = super().get_webdriver()
                chromium.update(driver=driver, size=driver.get_window_size())
            driver = chromium["driver"]
            behaviour = {"behavior": "allow", "downloadPath": self.download_path}
            driver.execute_cdp_cmd("Page.setDownloadBehavior", behaviour)
            return driver

        def __exit__(self, exc_type, exc_val, traceback):
            driver = self.driver
            try:
                for handle in driver.window_handles[1:]:
                    driver.switch_to.window(handle)
                    driver.close()
                driver.switch_to.window(driver.window_handles[0])
                driver.get("about:blank")
                driver.delete_all_cookies()
                driver.get_log("browser")
                driver.set_window_size(chromium["size"]["width"], chromium["size"]["height"])
            except Exception:  # noqa: BLE001 - whatever went wrong, the next test gets a fresh one
                chromium.clear()
                super().__exit__(exc_type, exc_val, traceback)

    return OneChromium


@pytest.fixture(scope="session")
def _chromium():
    """This worker's one Chromium for dash_duo, quit when the session ends."""
    chromium: dict = {}
    yield chromium
    if "driver" in chromium:
        chromium["driver"].quit()


@pytest.fixture
def dash_duo(request, dash_thread_server, tmpdir, _chromium):
    """dash[testing]'s dash_duo (the same options), on the worker's one Chromium."""
    with _composite_class(_chromium)(
        server=dash_thread_server,
        browser=request.config.getoption("webdriver"),
        remote=request.config.getoption("remote"),
        remote_url=request.config.getoption("remote_url"),
        headless=request.config.getoption("headless"),
        options=request.config.hook.pytest_setup_options(),
        download_path=tmpdir.mkdir("download").strpath,
        percy_assets_root=request.config.getoption("percy_assets"),
        percy_finalize=request.config.getoption("nopercyfinalize"),
        pause=request.config.getoption("pause"),
    ) as duo:
        yield duo


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
