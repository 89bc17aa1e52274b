"""The app as a visitor meets it, timed in headless Chromium on a warm server: the first view
with a drawn circuit (browser-measured, from navigation start), and for a search (filter), a
click on another circuit and a threshold step, the server time of the callbacks each one
triggers (summed over its requests, measured inside the server) and the time until the browser
shows the result. Goals (issue "The app as an instrument"): first view < 2 s, server time of
each interaction < 300 ms.

Used by ``bench/app_latency.py --browser``; needs Debian's chromium and chromium-driver
(``scripts/setup.sh --browser``).
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path

import flask
import pandas as pd
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from werkzeug.serving import make_server

from circuitlab.app.factory import create_app

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
GOALS_MS = {"first view with a drawn circuit": 2000}
INTERACTION_GOAL_MS = 300
SETTLE_S = 0.5  # no callback request for this long: the interaction is over
DRAWN = """
const done = arguments[arguments.length - 1];
function check() {
    const graph = document.getElementById('graph');
    const cy = graph && graph._cyreg && graph._cyreg.cy;
    if (cy && cy.nodes().length > 0) { done(performance.now()); }
    else { requestAnimationFrame(check); }
}
check();
"""


class TimedServer:
    """The app served on a free local port in a thread, with each callback request's server
    time recorded in ``requests`` as (output, ms)."""

    def __init__(self, app) -> None:  # noqa: ANN001 - a dash.Dash
        self.requests: list[tuple[str, float]] = []
        server = app.server

        @server.before_request
        def _start() -> None:
            flask.g.started = time.perf_counter()

        @server.after_request
        def _stop(response: flask.Response) -> flask.Response:
            if flask.request.path.endswith("_dash-update-component"):
                output = (flask.request.get_json(silent=True) or {}).get("output", "?")
                self.requests.append((output, 1000 * (time.perf_counter() - flask.g.started)))
            return response

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
        self._server = make_server("127.0.0.1", 0, server, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}/"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def settle(self) -> None:
        """Wait until no callback request has arrived for SETTLE_S."""
        seen = -1
        while seen != len(self.requests):
            seen = len(self.requests)
            time.sleep(SETTLE_S)

    def close(self) -> None:
        self._server.shutdown()


def _browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_window_size(1500, 2400)
    driver.set_script_timeout(120)
    return driver


def _text(driver: webdriver.Chrome, selector: str) -> str:
    """The element's text read in the page (no element handle to go stale mid-render)."""
    script = "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';"
    return driver.execute_script(script, selector)


def _listed_only(driver: webdriver.Chrome, word: str) -> bool:
    """Whether the results table lists sentences and every one contains ``word``."""
    script = (
        "return Array.from(document.querySelectorAll(\"#results td[data-dash-column='text']\"))"
        ".map(e => e.innerText.toLowerCase());"
    )
    texts = driver.execute_script(script)
    return bool(texts) and all(word in t for t in texts)


def _interaction(
    server: TimedServer,
    driver: webdriver.Chrome,
    act: Callable[[], None],
    shown: Callable[[webdriver.Chrome], bool],
) -> tuple[float, float, float, str]:
    """(browser ms until ``shown``, server ms summed over the callbacks, slowest callback ms,
    the slowest callback's output) of one interaction ``act``."""
    server.settle()
    before = len(server.requests)
    start = time.perf_counter()
    act()
    WebDriverWait(driver, 30, poll_frequency=0.01).until(shown)
    browser_ms = 1000 * (time.perf_counter() - start)
    server.settle()
    requests = server.requests[before:]
    slowest = max(requests, key=lambda r: r[1], default=("", 0.0))
    return browser_ms, sum(ms for _, ms in requests), slowest[1], slowest[0]


def browser_latency(store: Path, checkpoint: Path | None = None, repeats: int = 5) -> pd.DataFrame:
    """The table: one row per step, medians over ``repeats``."""
    app = create_app(store, checkpoint=checkpoint)
    server, driver = TimedServer(app), _browser()
    try:
        driver.get(server.url)
        driver.execute_async_script(DRAWN)  # warm: the page, its scripts and caches served
        server.settle()
        views = []
        for _ in range(repeats):
            driver.get(server.url)
            views.append(driver.execute_async_script(DRAWN))
            server.settle()
        rows = [_row("first view with a drawn circuit", views, None, None)]
        texts = app.circuit_stores.view(app.circuit_stores.default).frame["text"]
        words = [w for w in dict.fromkeys(" ".join(texts.head(200)).lower().split()) if len(w) > 4]
        samples: dict[str, list[tuple[float, float, float, str]]] = {}
        for k in range(repeats):
            search = driver.find_element(By.CSS_SELECTOR, "#search")
            word = words[k]

            def type_word(search=search, word=word) -> None:
                search.clear()
                search.send_keys(word + "\n")

            samples.setdefault("search (filter)", []).append(
                _interaction(server, driver, type_word, lambda d, w=word: _listed_only(d, w))
            )
            title = _text(driver, "#circuit-title")
            cells = driver.find_elements(By.CSS_SELECTOR, "#results td[data-dash-column='text']")
            target = cells[min(k, len(cells) - 1)] if cells else None
            if target is not None and target.text not in title:
                samples.setdefault("another circuit", []).append(
                    _interaction(
                        server,
                        driver,
                        target.click,
                        lambda d, t=title: _text(d, "#circuit-title") != t,
                    )
                )
            thumb = driver.find_element(By.CSS_SELECTOR, "#threshold [role='slider']")
            key = Keys.ARROW_RIGHT if k % 2 == 0 else Keys.ARROW_LEFT
            counted = _text(driver, "#edge-count")

            def step(thumb=thumb, key=key) -> None:
                thumb.click()
                thumb.send_keys(key)

            samples.setdefault("threshold step", []).append(
                _interaction(
                    server, driver, step, lambda d, c=counted: _text(d, "#edge-count") != c
                )
            )
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        if errors:
            raise RuntimeError(f"the browser console holds errors: {errors[:3]}")
        for name, values in samples.items():
            row = _row(name, *([v[k] for v in values] for k in range(3)))
            row["slowest_output"] = statistics.mode(v[3] for v in values)[:60]
            rows.append(row)
        return pd.DataFrame(rows)
    finally:
        driver.quit()
        server.close()


def _row(
    name: str, browser: list[float], server: list[float] | None, slowest: list[float] | None
) -> dict:
    goal = GOALS_MS.get(name, INTERACTION_GOAL_MS)
    judged = statistics.median(browser if server is None else server)
    return {
        "step": name,
        "n": len(browser),
        "browser_ms": statistics.median(browser),
        "server_ms": None if server is None else statistics.median(server),
        "slowest_callback_ms": None if slowest is None else statistics.median(slowest),
        "goal_ms": goal,
        "met": judged < goal,
    }
