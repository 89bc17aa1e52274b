"""Screenshots of the app for docs/app-tour.md, taken from the `make demo` app with its
checkpoints attached: one per screen of the tour, in headless Chromium.

    make demo                       # once: writes stores/ (the app needs nothing else)
    python scripts/app_tour.py      # serves the app on a free port, writes docs/figures/tour_*.png

Each screen is a URL of the app (the app keeps a view's state in its URL), opened in a fresh
browser and shot once the circuit is drawn. Needs Debian's chromium and chromium-driver
(scripts/setup.sh --browser installs them).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from app_readme import README_ARGS, free_port  # noqa: E402  (make demo's serve line)

FIGURES = ROOT / "docs" / "figures"
# name -> (query of the app's URL, text that shows the screen is ready, in which element)
SCREENS = {
    "circuit": ({"store": "pairs/nlvr2", "id": 12}, "#edge-count", "links"),
    "typed": (
        {"store": "pairs/nlvr2", "typed": "There are exactly two dogs in the image on the left."},
        "#circuit-title",
        "typed",
    ),
    "scene": ({"store": "nlvr/nlvr", "id": 2}, "#intervention", "stored examples"),
    "priors": ({"store": "priors", "id": 1}, "#prior-fit", "nats"),
    "attribution": (
        {"store": "nlvr/nlvr", "id": 2, "color": "attribution"},
        "#attribution-table",
        "p(answer) change",
    ),
    # the saved view TOUR_VIEW, written beside the store for the shot and removed after it
    "notes": (
        {"store": "nlvr/nlvr", "id": 2, "mode": "threshold", "view": "tour"},
        "#edge-count",
        "grouped",
    ),
}


def tour_view(store: Path) -> Path:
    """The notes screen's saved view in ``store``: modules 3 and 7 pinned, 1, 2 and 5 grouped
    with a note (names that claim nothing of what the modules do)."""
    from circuitlab.app.view_notes import ViewNotes, save_view

    view = ViewNotes().toggle_pin(1).toggle_pin(2).toggle_pin(5)
    view = view.with_group("my group", view.pinned).toggle_pin(3).toggle_pin(7)
    view = view.with_note("group my group", "notes show on hover")
    return save_view(store, "tour", view.to_json("nlvr/nlvr", None))


def serve(port: int) -> subprocess.Popen:
    command = [str(ROOT / ".venv" / "bin" / "circuitlab"), *README_ARGS, "--port", str(port)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the app did not start on port {port}")


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--window-size=1600,1000"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def shoot(driver, port: int, name: str, query: dict, element: str, text: str) -> Path:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"http://127.0.0.1:{port}/?{urlencode(query)}")
    WebDriverWait(driver, 120).until(
        lambda d: text in d.find_element(By.CSS_SELECTOR, element).text
    )
    time.sleep(3)  # the graph's layout and the map settle
    path = FIGURES / f"tour_{name}.png"
    driver.save_screenshot(str(path))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", nargs="+", default=list(SCREENS), choices=list(SCREENS))
    args = parser.parse_args()
    missing = [s for s in ("pairs/nlvr2", "nlvr/nlvr") if not (ROOT / "stores" / s).is_dir()]
    if missing:
        raise SystemExit(f"no stores/{missing[0]}: run make demo first")
    port = free_port()
    app = serve(port)
    try:
        for name in args.screens:
            # a fresh browser per screen: a page opened on another store in the same browser
            # keeps the last store's circuit in its browser-side state (noted as an app bug)
            driver = browser()
            saved = tour_view(ROOT / "stores" / "nlvr" / "nlvr") if name == "notes" else None
            try:
                query, element, text = SCREENS[name]
                print(f"wrote {shoot(driver, port, name, query, element, text)}")
            finally:
                driver.quit()
                if saved is not None:
                    saved.unlink()
                    if not any(saved.parent.iterdir()):
                        saved.parent.rmdir()
    finally:
        app.terminate()
    sys.exit(0)


if __name__ == "__main__":
    main()
