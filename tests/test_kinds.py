"""The model-kind registry (circuitlab.kinds): a new kind is one module and one registration,
and the rest of the package asks the registry instead of naming kinds."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

from circuitlab import kinds
from circuitlab.checkpoint import model_from_checkpoint, read_checkpoint, save_checkpoint
from circuitlab.kinds import KINDS, ModelKind, kind_of, model_kind
from circuitlab.loading import build_model
from circuitlab.run_config import TrainConfig
from circuitlab.store import CircuitStore
from circuitlab.worlds.tasks import ToySets

ROOT = Path(__file__).resolve().parents[1]
# the layers whose code must ask the registry
ASKING = ("circuitlab", "analysis", "app")


@dataclasses.dataclass
class TinyConfig:
    input_dim: int = 3
    n_classes: int = 2
    width: int = 4

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> TinyConfig:
        return cls(**values)


class TinyNet(nn.Module):
    """Mean-pooled tokens through one hidden layer: the smallest model a kind can have."""

    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.config = config
        self.hidden = nn.Linear(config.input_dim, config.width)
        self.out = nn.Linear(config.width, config.n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(x.mean(1))))


def tiny_config_for_task(options: dict[str, Any], task: Any) -> TinyConfig:
    return TinyConfig(input_dim=task.input_dim, n_classes=task.n_classes, **options)


def write_tiny_store(model, config, checkpoint, out, *, n_circuits, seed, overwrite):  # noqa: ANN001, ANN201
    """The hidden layer's weights as the one 'circuit' of the store."""
    weights = model.hidden.weight.detach().numpy()[None]
    frame = pd.DataFrame({"text": ["the model"]})
    arrays = {"weights": (weights, ["sample", "unit", "feature"])}
    return CircuitStore.write_arrays(out, "tiny", arrays, frame, model.config.to_dict())


def tiny_summary(store: CircuitStore) -> str:
    return f"a tiny store of {len(store)} circuit(s)"


class TinyView:
    """What the app shows of a tiny store: its one row, its hidden units as a graph."""

    def __init__(self, store: CircuitStore) -> None:
        self.store = store
        self.frame = store.frame.reset_index(drop=True).assign(id=lambda f: range(len(f)))

    def rows(self) -> list[dict]:
        return self.frame[["id", "text"]].to_dict("records")

    def units(self, index: int) -> list[dict]:
        weights = self.store.array("weights")[index]
        return [{"data": {"id": f"u{u}", "label": f"{w.sum():.2f}"}} for u, w in enumerate(weights)]

    def map_figure(self, index: int) -> dict:
        return {"data": [{"type": "scatter", "x": [0], "y": [0]}], "layout": {}}


def tiny_body():  # noqa: ANN201
    import dash_cytoscape as cyto
    from dash import html

    from circuitlab.app.layout.parts import inputs_table, kind_body, plot

    graph = cyto.Cytoscape(id="tiny-graph", elements=[])
    table = inputs_table("tiny-inputs", ("id", "text"))
    return kind_body("tiny-body", [html.H6(id="tiny-title"), table, graph, plot("tiny-map", "9em")])


def tiny_panel():  # noqa: ANN201
    from circuitlab.app.panels.base import KindPanel, input_title

    return KindPanel(
        kind="tiny",
        prefix="tiny",
        body=tiny_body,
        plots=("tiny-map",),
        first_graph="tiny-graph",
        title_id="tiny-title",
        view=TinyView,
        shown=(("tiny-graph", "elements"),),
        show=lambda view, index: (view.units(index),),
        title=lambda view, index: input_title(view.frame, index),
        first_elements=lambda view, index: view.units(index),
    )


TINY = ModelKind(
    name="tiny",
    title="tiny network",
    config=f"{__name__}:TinyConfig",
    model=f"{__name__}:TinyNet",
    config_for_task=f"{__name__}:tiny_config_for_task",
    exporter=f"{__name__}:write_tiny_store",
    circuit_array="weights",
    store_summary=f"{__name__}:tiny_summary",
    app_panel=f"{__name__}:TINY_PANEL",
)


def __getattr__(name: str) -> Any:  # the panel is built on first use: it imports dash
    if name == "TINY_PANEL":
        return tiny_panel()
    raise AttributeError(name)


@pytest.fixture
def tiny_kind(monkeypatch):
    monkeypatch.setitem(KINDS, "tiny", TINY)
    return TINY


def test_a_registered_kind_trains_saves_loads_and_exports_through_the_registry(tmp_path, tiny_kind):
    config = TrainConfig(model_kind="tiny", model={"width": 5})
    model = build_model(config, ToySets())
    assert isinstance(model, TinyNet) and model.config.width == 5
    assert kind_of(model) is tiny_kind
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    save_checkpoint(
        tmp_path / "checkpoint.pt",
        model=model,
        optimizer=optimizer,
        scheduler=scheduler,
        train_config=dataclasses.asdict(config),
        step=0,
        elapsed_s=0.0,
    )
    state = read_checkpoint(tmp_path / "checkpoint.pt")
    assert state["model_kind"] == "tiny"
    loaded = model_from_checkpoint(state)
    for name, value in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], value)
    stores = tiny_kind.export(loaded, config, tmp_path / "checkpoint.pt", tmp_path / "store",
                              n_circuits=1, seed=0, overwrite=False)  # fmt: skip
    store = CircuitStore.open(tmp_path / "store")
    assert set(stores) == {""} and store.kind == "tiny"
    np.testing.assert_array_equal(store.array("weights")[0], model.hidden.weight.detach().numpy())


def test_a_registered_kind_gets_its_own_page_in_the_app(tmp_path, tiny_kind):
    from circuitlab.app import create_app
    from circuitlab.app.callbacks.first_view import first_view
    from circuitlab.app.page import page

    config = TrainConfig(model_kind="tiny", model={"width": 5})
    model = build_model(config, ToySets())
    tiny_kind.export(model, config, tmp_path / "checkpoint.pt", tmp_path / "stores" / "tiny",
                     n_circuits=1, seed=0, overwrite=False)  # fmt: skip
    app = create_app(tmp_path / "stores")
    stores = app.circuit_stores
    assert stores.kind("tiny") == "tiny" and not stores.has_circuit_view("tiny")
    first = first_view(stores, "?store=tiny")
    view = stores.open("tiny")
    assert isinstance(view, TinyView) and first["kind"] == "tiny"
    assert first["elements"] == view.units(0) and len(first["elements"]) == 5
    assert first["title"] == "Input 0: the model"
    root = page(stores.keys, first)
    assert root["tiny-graph"].elements == view.units(0) and root["tiny-body"].style == {}
    assert root["nac-body"].style == {"display": "none"}
    own = [c for c in app._callback_list if c["output"].strip(".").startswith("tiny-")]
    assert len(own) == 3  # fill the table, choose the row, draw it
    shown = next(c for c in own if "tiny-graph.elements" in c["output"])
    assert {i["id"] for i in shown["inputs"]} == {"tiny-input"}


def test_an_unknown_kind_is_named_with_the_kinds_there_are():
    with pytest.raises(ValueError, match=r"model kind 'tiny'.*\['nac', 'ni', 'mn', 'nfm'\]"):
        model_kind("tiny")
    with pytest.raises(ValueError, match="model_kind must be one of"):
        TrainConfig(model_kind="tiny")
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(KINDS["nac"])


def test_every_built_in_kind_names_classes_and_functions_that_exist():
    for kind in KINDS.values():
        assert dataclasses.is_dataclass(kind.config_class())
        assert issubclass(kind.model_class(), nn.Module)
        for path in (kind.config_for_task, kind.exporter, kind.store_summary):
            if path is not None:
                assert callable(kinds.base.load(path)), path


def _kind_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each string constant in ``path`` that is a kind's name, docstrings
    left out."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in KINDS and id(node) not in docstrings
    ]


def test_no_kind_is_named_outside_its_registry_module():
    found = []
    for layer in ASKING:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if path.is_relative_to(ROOT / "circuitlab" / "kinds") or path.is_symlink():
                continue
            found += [f"{path.relative_to(ROOT)}:{line} {text!r}" for line, text in
                      _kind_strings(path)]  # fmt: skip
    assert found == []
