"""The app as a lab serves it: waitress on loopback, two visitors interleaving edits and typed
sentences, each seeing only their own (the server keeps no visitor's state)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

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


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # exited while listed
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_workers_answer_from_several_processes_and_stop_together_on_ctrl_c(tiny_pairs_export):
    """``--workers 2``: two processes serve one port, each page draws from whichever answers,
    and Ctrl-C stops the parent and both workers with status 0."""
    import signal
    import subprocess
    import tempfile
    import time

    from app_readme import _circuitlab, _wait_listening, free_port

    checkpoint, out = tiny_pairs_export
    port = free_port()
    command = [_circuitlab(), "app", str(out / "nlvr2"), "--root", str(out), "--checkpoint"]
    command += [str(checkpoint), "--port", str(port), "--workers", "2", "--threads", "2"]
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        _wait_listening(server, log, port)  # bound before the workers are forked
        deadline = time.monotonic() + 30
        while len(workers := _children(server.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(workers) == 2, workers
        pages = [DashPage(f"http://127.0.0.1:{port}", timeout_s=90) for _ in range(3)]
        for page in pages:
            assert page.open("store=nlvr2").errors == 0
            assert page.props[("graph", "elements")], "the first circuit is drawn"
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(Path(f"/proc/{w}").exists() for w in workers), "a worker outlived Ctrl-C"
        log.seek(0)
        assert "2 processes x 2 threads" in log.read()
    finally:
        if server.poll() is None:
            server.kill()


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_workers_never_outlive_their_server(tiny_pairs_export, stop):
    """A service manager's stop (SIGTERM) ends the workers with the server; so does the
    server's death by SIGKILL (the kernel signals each worker, Linux), where they would
    otherwise keep serving the port with nobody to stop them."""
    import signal
    import subprocess
    import time

    from app_readme import _circuitlab, free_port

    checkpoint, out = tiny_pairs_export
    command = [_circuitlab(), "app", str(out / "nlvr2"), "--root", str(out), "--checkpoint"]
    command += [str(checkpoint), "--port", str(free_port()), "--workers", "2"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(workers := _children(server.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(workers) == 2, workers
        time.sleep(1)  # the workers past their start, building the app
        server.send_signal(getattr(signal, stop))
        server.wait(timeout=30)
        if stop == "SIGTERM":
            assert server.returncode == 0
        deadline = time.monotonic() + 15
        while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(Path(f"/proc/{w}").exists() for w in workers), "an orphaned worker"
    finally:
        if server.poll() is None:
            server.kill()


def test_a_worker_that_cannot_build_the_app_stops_the_server_with_its_reason(tmp_path):
    import subprocess

    from app_readme import _circuitlab, free_port

    command = [_circuitlab(), "app", str(tmp_path / "nothing"), "--workers", "2"]
    done = subprocess.run(
        [*command, "--port", str(free_port())], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "a worker could not start" in done.stderr and "nothing" in done.stderr


def test_debug_refuses_workers(tmp_path):
    from typer.testing import CliRunner

    from circuitlab.cli import app

    result = CliRunner().invoke(app, ["app", str(tmp_path), "--workers", "2", "--debug"])
    assert result.exit_code == 2
    assert "--debug serves from one process" in result.output


def test_a_served_process_runs_torch_and_numpys_blas_on_one_thread():
    """The server's numerical work on one thread a request (the app's computations are small;
    pools of threads spin against each other under load). Checked in a fresh process: the limit
    is process-wide."""
    probe = (
        "import torch; from threadpoolctl import threadpool_info;"
        "from circuitlab.app.serving import one_thread_per_request;"
        "torch.set_num_threads(2);"
        "one_thread_per_request();"
        "blas = [p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'];"
        "import json; print(json.dumps([torch.get_num_threads(), blas]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    torch_threads, blas_threads = json.loads(done.stdout)
    assert torch_threads == 1
    assert blas_threads and set(blas_threads) == {1}


def test_torch_imported_after_the_limit_runs_on_one_thread_and_serving_does_not_import_it():
    """The limit is set before a model's loading imports torch (the server must not import torch
    itself: ~1 s between binding the port and answering the first visitor)."""
    probe = (
        "import sys; from threadpoolctl import threadpool_info;"
        "from circuitlab.app.serving import one_thread_per_request;"
        "one_thread_per_request();"
        "imported = 'torch' in sys.modules;"
        "import torch;"
        "import json; print(json.dumps([imported, torch.get_num_threads()]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    imported, torch_threads = json.loads(done.stdout)
    assert not imported
    assert torch_threads == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread priorities: Linux")
def test_models_load_on_a_thread_of_the_lowest_priority(nlvr2_store):
    """Loading in the background yields the cores to the browser and the first page's draw."""
    import threading

    from circuitlab.app.stores import LOADER_NICENESS, AppStores

    stores = AppStores(nlvr2_store)
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    loader = stores._loader.submit(
        lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    ).result()
    assert loader == LOADER_NICENESS == 19
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main  # this one only
