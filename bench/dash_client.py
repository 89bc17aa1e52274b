"""A headless visitor of a Dash app over HTTP: what the browser's Dash renderer sends, without a
browser, so that many visitors can be driven at once (``bench/app_load.py``).

A ``DashPage`` reads the app's layout (``/_dash-layout``: every component's initial props) and its
callbacks (``/_dash-dependencies``), then plays the renderer: on page load it fires every callback
not marked ``prevent_initial_call``; when a visitor changes props (a click, a slider, a typed
sentence) it fires each server callback one of them feeds, applies the answer to the page's props
and goes on with the callbacks the new props feed, in rounds, until nothing changes. A round's
requests go out at once, as the renderer sends them (up to 6 in flight, a browser's connections to
one host), so an action takes as long as its slowest chain of callbacks, not the sum of them all.
Each request is ``POST /_dash-update-component`` with the body the renderer sends (output, outputs,
inputs, state, changedPropIds). Clientside callbacks run in the browser: the page opens the plot
slots as the app's does (the NAC panel's clientside callback in ``callbacks.bodies``); edits, which
the browser records from clicks, are set directly as props. Pattern-matching ids are not used by
the app and not supported.
"""

from __future__ import annotations

import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from circuitlab.app.layout.parts import SLOT_OPEN

Prop = tuple[str, str]  # (component id, property)
ROUNDS = 12  # a chain of callbacks longer than this is a loop
# a browser's HTTP/1.1 connections to one host: the renderer's requests in flight at once
BROWSER_CONNECTIONS = 6


class CallbackFailed(RuntimeError):
    """A callback request answered with an HTTP error (the server's traceback is in its log)."""


def _prop(spec: dict[str, str]) -> Prop:
    return spec["id"], spec["property"].split("@")[0]


def _outputs(output: str) -> list[Prop]:
    """A dependency's output string as (id, prop) pairs: "a.b" or "..a.b...c.d.." (a
    duplicate-allowed output carries "@hash" after its prop)."""
    parts = output.strip(".").split("...") if output.startswith("..") else [output]
    pairs = []
    for part in parts:
        ident, prop = part.rsplit(".", 1)
        pairs.append((ident, prop.split("@")[0]))
    return pairs


@dataclass
class Callback:
    output: str  # the key the server finds it by
    outputs: list[Prop]
    inputs: list[Prop]
    state: list[Prop]
    initial: bool  # fired on page load
    clientside: bool

    @classmethod
    def of(cls, spec: dict[str, Any]) -> Callback:
        return cls(
            spec["output"],
            _outputs(spec["output"]),
            [_prop(i) for i in spec["inputs"]],
            [_prop(s) for s in spec["state"]],
            not spec.get("prevent_initial_call", False),
            bool(spec.get("clientside_function")),
        )


def _components(node: Any, props: dict[Prop, Any], types: dict[str, str]) -> None:
    """Every component's props under ``node`` (a layout in Dash's JSON form), by (id, prop),
    and each id's component type."""
    if isinstance(node, list):
        for child in node:
            _components(child, props, types)
    elif isinstance(node, dict) and "props" in node and "type" in node:
        own = node["props"]
        if isinstance(own.get("id"), str):
            types[own["id"]] = node["type"]
            for name, value in own.items():
                if name not in ("children", "id"):
                    props[(own["id"], name)] = value
        _components(own.get("children"), props, types)


@dataclass
class Timed:
    """One visitor action: its kind, the seconds until the page settled, requests, errors."""

    kind: str
    seconds: float
    requests: int
    errors: int


@dataclass
class DashPage:
    """One visitor's page of the app at ``base`` (e.g. http://127.0.0.1:8050)."""

    base: str
    timeout_s: float = 60.0
    props: dict[Prop, Any] = field(default_factory=dict)
    callbacks: list[Callback] = field(default_factory=list)
    _connections: ThreadPoolExecutor | None = field(default=None, repr=False)

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=self.timeout_s) as answer:
            return json.loads(answer.read())

    def _post(self, body: dict[str, Any]) -> dict[str, Any] | None:
        request = urllib.request.Request(
            self.base + "/_dash-update-component",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                if answer.status == 204:  # PreventUpdate
                    return None
                return json.loads(answer.read())
        except urllib.error.HTTPError as err:
            if err.code == 204:
                return None
            raise CallbackFailed(f"{body['output']}: HTTP {err.code}") from err

    def open(self, search: str = "") -> Timed:
        """Load the page at ``?search`` (without its "?"): layout, callbacks, the initial
        callbacks and what they feed."""
        start = time.perf_counter()
        self.props, types = {}, {}
        _components(self._get("/_dash-layout"), self.props, types)
        self.callbacks = [Callback.of(spec) for spec in self._get("/_dash-dependencies")]
        # what the browser's dcc.Location components report of the page's address
        location = {"pathname": "/", "search": f"?{search}" if search else "", "hash": ""}
        for ident in [i for i, kind in types.items() if kind == "Location"]:
            for name, value in location.items():
                self.props[(ident, name)] = value
        first = [c for c in self.callbacks if c.initial and not c.clientside]
        requests, errors = self._run(first, set())
        return Timed("open a store", time.perf_counter() - start, requests, errors)

    def act(self, kind: str, changes: dict[Prop, Any]) -> Timed:
        """A visitor's action: ``changes`` made to the page (what a click or a key does), then
        every callback they feed, until the page settles."""
        start = time.perf_counter()
        self.props.update(changes)
        requests, errors = self._run([], set(changes))
        return Timed(kind, time.perf_counter() - start, requests, errors)

    def _run(self, pending: list[Callback], changed: set[Prop]) -> tuple[int, int]:
        requests = errors = 0
        for _ in range(ROUNDS):
            fired = pending + [
                c
                for c in self.callbacks
                if c not in pending and any(i in changed for i in c.inputs)
            ]
            if not fired:
                break
            # a callback whose input another fired callback writes waits for it (next round)
            written = {o for c in fired for o in c.outputs}
            now = [
                c for c in fired if not any(i in written and i not in c.outputs for i in c.inputs)
            ]
            now = now or fired
            pending = [c for c in fired if c not in now]
            trigger, changed = changed, set()
            for callback in now:
                if callback.clientside:
                    changed |= self._clientside(callback)
            bodies = [self._body(c, changed_ids(c, trigger)) for c in now if not c.clientside]
            requests += len(bodies)
            for answer in self._post_all(bodies):
                if isinstance(answer, Exception):
                    errors += 1
                    continue
                changed |= self._apply(answer)
        return requests, errors

    def _post_all(self, bodies: list[dict[str, Any]]) -> list[dict[str, Any] | None | Exception]:
        """The answers to ``bodies``, in order, sent at once as the renderer sends a round's
        callbacks (at most ``BROWSER_CONNECTIONS`` in flight); a failed request's error in its
        place."""

        def post(body: dict[str, Any]) -> dict[str, Any] | None | Exception:
            try:
                return self._post(body)
            except (CallbackFailed, OSError) as err:
                return err

        if len(bodies) <= 1:
            return [post(body) for body in bodies]
        if self._connections is None:
            self._connections = ThreadPoolExecutor(BROWSER_CONNECTIONS)
        return list(self._connections.map(post, bodies))

    def _body(self, callback: Callback, changed: list[str]) -> dict[str, Any]:
        def spec(p: Prop, value: bool = True) -> dict[str, Any]:
            out = {"id": p[0], "property": p[1]}
            if value:
                out["value"] = self.props.get(p)
            return out

        outputs = [spec(o, value=False) for o in callback.outputs]
        return {
            "output": callback.output,
            "outputs": outputs if callback.output.startswith("..") else outputs[0],
            "inputs": [spec(i) for i in callback.inputs],
            "state": [spec(s) for s in callback.state],
            "changedPropIds": changed,
        }

    def _apply(self, answer: dict[str, Any] | None) -> set[Prop]:
        """Write a callback's answer into the page; the props whose value changed."""
        if not answer:
            return set()
        changed = set()
        for ident, values in answer.get("response", {}).items():
            for name, value in values.items():
                if self.props.get((ident, name)) != value:
                    self.props[(ident, name)] = value
                    changed.add((ident, name))
        return changed

    def _clientside(self, callback: Callback) -> set[Prop]:
        """The app's clientside callback that opens the plot slots once a circuit is drawn;
        the others (edits recorded from clicks, a class name) are the visitor's to set."""
        slots = [o for o in callback.outputs if o[0].endswith("-slot") and o[1] == "value"]
        if not slots:
            return set()
        for slot in slots:
            self.props[slot] = SLOT_OPEN
        return set(slots)


def changed_ids(callback: Callback, changed: set[Prop]) -> list[str]:
    """The renderer's changedPropIds for ``callback``: its inputs that changed ("id.prop")."""
    return [f"{i}.{p}" for i, p in callback.inputs if (i, p) in changed]
