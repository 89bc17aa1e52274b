"""The app as a lab serves it: waitress on loopback, two visitors interleaving edits and typed
sentences, each seeing only their own (the server keeps no visitor's state)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from dash_client import DashPage  # noqa: E402


def _typed(page: DashPage, text: str, count: int) -> None:
    page.act("type", {("typed", "value"): text, ("typed", "n_submit"): count})


def _cut_in_drawing(page: DashPage) -> set[tuple[int, int]]:
    """The links (low end first) the page's drawn circuit marks as cut."""
    return {
        tuple(sorted((int(e["data"]["source"]), int(e["data"]["target"]))))
        for e in page.props[("graph", "elements")]
        if "source" in e.get("data", {}) and "cut" in e.get("classes", "")
    }


def test_two_visitors_interleaving_edits_and_typed_sentences_never_see_each_others(
    tiny_pairs_export,
):
    from circuitlab.app.factory import create_app
    from circuitlab.app.serving import make_server

    checkpoint, out = tiny_pairs_export
    dash_app = create_app(out / "nlvr2", root=out, checkpoint=[checkpoint])
    server = make_server(dash_app, host="127.0.0.1", port=0, threads=4)

    def run() -> None:
        try:
            server.run()
        except OSError:  # close() from this thread shuts the socket under the polling loop
            pass

    serving = threading.Thread(target=run, daemon=True)
    serving.start()
    try:
        base = f"http://127.0.0.1:{server.effective_port}"
        a, b = DashPage(base, timeout_s=60), DashPage(base, timeout_s=60)
        for page in (a, b):
            assert page.open("store=nlvr2").errors == 0
            assert page.props[("graph", "elements")], "the first circuit is drawn"
        _typed(a, "There are two dogs.", 1)
        _typed(b, "The left image shows one cat.", 1)
        _typed(a, "At least one image has a bird.", 2)
        assert a.props[("typed-sentences", "data")] == [
            "There are two dogs.",
            "At least one image has a bird.",
        ]
        assert b.props[("typed-sentences", "data")] == ["The left image shows one cat."]
        assert a.props[("circuit", "data")]["text"] == "At least one image has a bird."
        assert b.props[("circuit", "data")]["text"] == "The left image shows one cat."

        links = sorted(
            tuple(sorted((int(e["data"]["source"]), int(e["data"]["target"]))))
            for e in a.props[("graph", "elements")]
            if "source" in e.get("data", {})
        )
        assert len(links) >= 2
        a.act("cut", {("edits", "data"): [["cut", *links[0]]]})
        b.act("cut", {("edits", "data"): [["cut", *links[-1]]]})
        a.act("threshold", {("threshold", "value"): 0.5})  # A's page redrawn after B's edit
        assert b.props[("edits", "data")] == [["cut", *links[-1]]]
        assert a.props[("edits", "data")] == [["cut", *links[0]]]
        assert _cut_in_drawing(a) == {links[0]}
        assert _cut_in_drawing(b) == {links[-1]}
    finally:
        server.close()
        serving.join(timeout=10)
