"""The stores one app serves: every circuit store under its root, each opened the first time a
page asks for it. A page names its store by a key (its folder relative to the root, as the URL's
``?store=`` carries it), and a key is looked up among the stores found at start, never joined
onto a path: a URL cannot reach a folder outside the root."""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from circuitlab.app.intervention_view import Intervener
from circuitlab.app.panels import panel_of
from circuitlab.app.store_view import (
    MAX_EDGES,
    CircuitGenerator,
    StoreView,
    is_prepared,
    load_circuit_generator,
)
from circuitlab.app.world_view import WorldProbe
from circuitlab.circuit import Circuit
from circuitlab.files import checkpoint_file, file_sha256
from circuitlab.kinds import DEFAULT
from circuitlab.store import META, CircuitStore, CircuitStoreError

if TYPE_CHECKING:
    from circuitlab.app.panels.base import KindPanel

__all__ = ["AppStores", "Checkpoints", "find_stores"]

# imported in the background as the app starts: a first page's prior fit and neighbours need
# them, and importing them (~2 s) before the server listens would only delay it
FIRST_PAGE_IMPORTS = ("sklearn.cluster", "sklearn.decomposition", "scipy.stats")
LOADER_NICENESS = 19  # the loading thread's nice value (the lowest priority)
MAX_DEPTH = 3  # folders below the root searched for stores
MAX_STORES = 200


def store_kind(path: Path) -> str:
    """The model kind a store's store.json names (``circuitlab.kinds.DEFAULT`` when it names
    none, or cannot be read: opening it then says what is wrong)."""
    try:
        meta = json.loads((path / META).read_text())
    except (OSError, ValueError):
        return DEFAULT
    return meta.get("kind", DEFAULT) if isinstance(meta, dict) else DEFAULT


class AppModel:
    """A model the app was given: its checkpoint ``path``, the file's ``sha256`` (what a store
    exported from it records as ``checkpoint_sha256``) and its circuit ``generator``, which
    loads in the background from the moment the model is given (importing torch and reading
    the weights take seconds; the server listens meanwhile). ``generator`` waits for it; a
    model that cannot load raises its error there, and says so on stderr as soon as it fails.
    Calling the model is calling its generator (``StoreView.generate_circuit``)."""

    def __init__(self, path: Path, loader: ThreadPoolExecutor) -> None:
        self.path = path
        self.sha256 = file_sha256(path)
        self._generator: Future[CircuitGenerator] = loader.submit(load_circuit_generator, path)
        self._generator.add_done_callback(self._report_failure)

    def _report_failure(self, future: Future) -> None:
        if future.exception() is not None:
            print(
                f"circuitlab app: the model {self.path} did not load: {future.exception()}",
                file=sys.stderr,
            )

    @property
    def generator(self) -> CircuitGenerator:
        return self._generator.result()

    @property
    def ready(self) -> bool:
        """Whether the model has loaded (or failed to): asking for it no longer waits."""
        return self._generator.done()

    @property
    def n_modules(self) -> int:
        return self.generator.n_modules

    def __call__(self, text: str) -> Circuit:
        return self.generator(text)


Checkpoints = str | os.PathLike | Sequence[str | os.PathLike] | None


def load_models(checkpoint: Checkpoints, loader: ThreadPoolExecutor) -> list[AppModel]:
    """The app's models: none, one checkpoint (a run directory or its checkpoint.pt) or several,
    each loading on ``loader``'s threads. A path without a checkpoint fails here, at once."""
    if checkpoint is None:
        return []
    paths = [checkpoint] if isinstance(checkpoint, (str, os.PathLike)) else list(checkpoint)
    return [AppModel(checkpoint_file(path), loader) for path in paths]


def _lower_priority() -> None:
    """Lower this thread's CPU priority (Linux: ``setpriority`` on a thread id touches that
    thread only), so that loading in the background yields the cores to the browser and to the
    server's own threads drawing a first page; elsewhere nothing changes."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOADER_NICENESS)
    except (AttributeError, OSError):  # no setpriority (Windows), or not permitted
        pass


def _import_all(modules: Sequence[str]) -> None:
    for name in modules:
        importlib.import_module(name)


def find_stores(root: Path) -> list[Path]:
    """Store folders (holding ``store.json``) at most ``MAX_DEPTH`` folders below ``root``,
    sorted, hidden folders skipped.

    Parameters
    ----------
    root
        The folder searched.
    """
    found, frontier = [], [root]
    for _ in range(MAX_DEPTH + 1):
        found += [p for p in frontier if (p / META).is_file()]
        frontier = [
            child
            for folder in frontier
            for child in sorted(folder.iterdir())
            if child.is_dir() and not child.name.startswith(".")
        ]
    return sorted(found)[:MAX_STORES]


class AppStores:
    """The stores under ``root``, keyed by their folder relative to it, ``default`` first.

    ``path`` is a store (shown by default) or a folder of stores (the first shown by default);
    ``root`` defaults to ``path``. ``checkpoint``: one conditional NLVR or pair-world model, or
    several; each store gets the model it was exported from (the checkpoint's SHA-256 its
    store.json records), or, given one model, that model when its circuits have the store's
    number of modules. A store with a model takes typed sentences, interventions and probes.

    Parameters
    ----------
    path, root, checkpoint
        As above.
    max_edges
        The most links a drawn circuit may have.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        root: str | os.PathLike | None = None,
        checkpoint: Checkpoints = None,
        max_edges: int = MAX_EDGES,
    ) -> None:
        path = Path(path).resolve()
        self.root = Path(root).resolve() if root is not None else path
        if not path.is_relative_to(self.root):
            raise ValueError(f"{path} is outside the app's root {self.root}")
        if not path.is_dir():
            raise FileNotFoundError(f"{path} is not a folder: give a store or a folder of stores")
        stores = find_stores(self.root)
        if (path / META).is_file():
            default = path
        else:
            inside = [s for s in stores if s.is_relative_to(path)]
            if not inside:
                raise FileNotFoundError(
                    f"no circuit store (a folder with {META}) in {path}: "
                    "export one with `circuitlab export`"
                )
            default = inside[0]
        self.paths = {self._key(s): s for s in stores}
        self.paths.setdefault(self._key(default), default)
        self.default = self._key(default)
        self.kinds = {key: store_kind(p) for key, p in self.paths.items()}
        self.max_edges = max_edges
        # one thread: the libraries a first page needs, then the models, one after the other,
        # beside the server's own threads (which wait for what they need: module locks, futures)
        self._loader = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="load-model", initializer=_lower_priority
        )
        self._loader.submit(_import_all, FIRST_PAGE_IMPORTS)
        self.models = load_models(checkpoint, self._loader)
        self._views: dict[str, StoreView] = {}
        self._kind_views: dict[str, Any] = {}  # input panels' views (``KindPanel.view``)
        self._interveners: dict[str, Intervener] = {}
        self._worlds: dict[int, WorldProbe] = {}  # by id of the generator
        self._store_models: dict[str, AppModel] = {}  # the model each opened store got
        self._lock = threading.Lock()

    @property
    def generator(self) -> CircuitGenerator | None:
        """The first model's circuit generator (None without a model)."""
        return self.models[0].generator if self.models else None

    def _key(self, store: Path) -> str:
        return store.relative_to(self.root).as_posix()

    @property
    def keys(self) -> list[str]:
        return sorted(self.paths)

    def resolve(self, requested: str | None) -> tuple[str, str | None]:
        """The key a URL's ``store`` value names, and a message when it names no store here or
        one that cannot be opened (a broken store); then the default store is shown."""
        if requested is None or requested == "":
            return self.default, None
        if requested in self.paths:
            try:
                self.open(requested)
            except (CircuitStoreError, ValueError) as err:
                return self.default, f"store {requested!r} cannot be opened: {err}"
            return requested, None
        shown = ", ".join(self.keys[:10])
        return self.default, f"no store {requested[:60]!r} under the app's root (stores: {shown})"

    def kind(self, key: str | None) -> str:
        """The model kind of the store ``key`` (the default for None), a name in
        ``circuitlab.kinds.KINDS``."""
        return self.kinds.get(self.default if key is None else key, DEFAULT)

    def panel(self, key: str | None) -> KindPanel:
        """The page panel that shows the store ``key`` (``circuitlab.app.panels``)."""
        return panel_of(self.kind(key))

    def has_circuit_view(self, key: str | None) -> bool:
        """Whether the store ``key`` opens in the NAC's panels (``view``, a ``StoreView``),
        not in an input panel of another kind (``kind_view``)."""
        return not self.panel(key).is_input_panel

    def opens_at_once(self, key: str) -> bool:
        """Whether opening the store ``key`` takes no computing: it is open already, of a kind
        whose view computes nothing on opening, or a NAC store holding its module layout and
        map (``prepare_store``; exported with ``--no-app-cache`` it does not). A store that
        cannot be opened counts as opening at once: opening it fails fast."""
        if not self.has_circuit_view(key) or key in self._views:
            return True
        try:
            return is_prepared(CircuitStore.open(self.paths[key]))
        except (CircuitStoreError, ValueError):
            return True

    def open(self, key: str | None) -> Any:
        """The view of the store ``key`` whatever its kind (opened on first use)."""
        return (
            self.view(key) if self.has_circuit_view(key) else self.kind_view(key, self.panel(key))
        )

    def kind_view(self, key: str | None, panel: KindPanel) -> Any:
        """The view (``panel.view``) of the store ``key`` of ``panel``'s kind, opened on first
        use. Raises KeyError for a key that is not one of ``keys`` or names another kind."""
        key = self.default if key is None else key
        if key not in self.paths or self.kind(key) != panel.kind:
            raise KeyError(f"no store {key!r} of kind {panel.kind!r} under the app's root")
        with self._lock:
            if key not in self._kind_views:
                self._kind_views[key] = panel.view(CircuitStore.open(self.paths[key]))
            return self._kind_views[key]

    def view(self, key: str | None) -> StoreView:
        """The view of the NAC store ``key`` (the default for None), opened on first use.
        Raises KeyError for a key that is not one of ``keys``, or that names a store of
        another kind (whose panels are not the NAC's: ``open`` gives any kind's view)."""
        key = self.default if key is None else key
        if key not in self.paths:
            raise KeyError(f"no store {key!r} under the app's root")
        if not self.has_circuit_view(key):
            raise KeyError(f"store {key!r} is of kind {self.kind(key)!r}: it has no NAC view")
        with self._lock:  # the server answers on several threads; open each store once
            if key not in self._views:
                view = StoreView(CircuitStore.open(self.paths[key]), max_edges=self.max_edges)
                model = self._attach_model(view)
                if model is not None:
                    self._store_models[key] = model
                self._views[key] = view
            return self._views[key]

    def _attach_model(self, view: StoreView) -> AppModel | None:
        """Give ``view`` the model its store was exported from (see the class docstring) and
        return it, or say in ``view.no_model_reason`` why none fits."""
        if not self.models:
            return None
        made_by = view.store.meta.get("checkpoint_sha256")
        same = [m for m in self.models if m.sha256 == made_by]
        if not same and len(self.models) == 1 and self.models[0].n_modules == view.n_modules:
            same = self.models  # a store of this model exported from another copy of it
        if same:
            view.generate_circuit = same[0]  # its generator, loaded when first called
            return same[0]
        if len(self.models) == 1:
            view.no_model_reason = (
                f"the app's model makes circuits of {self.generator.n_modules} modules "
                f"and this store's have {view.n_modules}: typed sentences work on "
                "stores exported from the model given with --checkpoint"
            )
        else:
            view.no_model_reason = (
                f"none of the app's {len(self.models)} models made this store (its store.json "
                f"names checkpoint sha256 {str(made_by)[:12]}): typed sentences work on "
                "stores exported from a model given with --checkpoint"
            )
        return None

    def model_of(self, key: str | None) -> AppModel:
        """The model store ``key`` (the default for None) got; ValueError says why it got
        none."""
        key = self.default if key is None else key
        view = self.view(key)
        if key not in self._store_models:
            raise ValueError(view.no_model_reason)
        return self._store_models[key]

    def model_waits(self, key: str | None) -> bool:
        """Whether asking for the NAC store ``key``'s model (to run it: attribution, what
        decides) would wait for it to load; False for a store without a model.

        Parameters
        ----------
        key
            The store's key (None: the default store).
        """
        key = self.default if key is None else key
        self.view(key)
        model = self._store_models.get(key)
        return model is not None and not model.ready

    def intervener(self, key: str | None) -> Intervener:
        """The store's Intervener (made on first use). Raises ValueError saying why a store
        takes no interventions: no model given, a model of another size, no scenes."""
        view = self.view(key)
        try:
            model = self.model_of(key)
        except ValueError:
            raise ValueError(view.no_model_reason.replace("type sentences", "cut links")) from None
        key = self.default if key is None else key
        with self._lock:
            if key not in self._interveners:
                self._interveners[key] = Intervener(model.generator, view)
            return self._interveners[key]

    def world_probe(self, key: str | None = None) -> WorldProbe:
        """The model of store ``key`` (the default for None) on scenes of its generated world
        (ValueError, saying why, when the store has no model)."""
        generator = self.model_of(key).generator
        with self._lock:
            if id(generator) not in self._worlds:
                self._worlds[id(generator)] = WorldProbe(generator)
            return self._worlds[id(generator)]
