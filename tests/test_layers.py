"""The layers' import rules (docs/architecture.md): the core, then the analysis layer, then the
app, then the command line at the top (it wires them together); no layer imports one above it,
with no exception; the app and the export path never reach training code; no two files import
each other, directly or round a loop. Imports inside functions count: a late import is still a
dependency."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
# package folder -> the module prefix it maps to (pyproject's package-dir)
FOLDERS = {"circuitlab": "circuitlab", "analysis": "circuitlab.analysis", "app": "circuitlab.app"}


def module_files() -> dict[str, Path]:
    modules = {}
    for folder, prefix in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((prefix, *parts))] = path
    return modules


def import_graph(packages: bool = False) -> nx.DiGraph:
    """Module -> each circuitlab module it imports (``from pkg import name`` counts ``pkg.name``
    when that is a module, else ``pkg``). With ``packages``, also -> every package above an
    imported module, whose ``__init__`` Python runs first (what a process loads; package
    ``__init__`` files and their submodules then form loops, so cycles are read without it)."""
    modules = module_files()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{alias.name}"
                    if f"{node.module}.{alias.name}" in modules
                    else node.module
                    for alias in node.names
                ]
            for target in targets:
                if target in modules and target != name:
                    graph.add_edge(name, target)
                parts = target.split(".")
                for depth in range(1, len(parts)) if packages else ():
                    package = ".".join(parts[:depth])
                    if package in modules and package != name:
                        graph.add_edge(name, package)
    return graph


def in_layer(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


# the layers, bottom first; a module belongs to the last layer whose prefix it has
LAYERS = ("circuitlab", "circuitlab.analysis", "circuitlab.app", "circuitlab.cli")
ENTRY_POINTS = {"circuitlab.__main__": "circuitlab.cli"}  # `python -m circuitlab` is the CLI


def layer_of(module: str) -> int:
    module = ENTRY_POINTS.get(module, module)
    return max(k for k, layer in enumerate(LAYERS) if in_layer(module, layer))


def test_the_graph_sees_the_packages() -> None:
    graph = import_graph()
    assert {"circuitlab.train", "circuitlab.analysis.paths", "circuitlab.app"} <= set(graph)
    assert graph.has_edge("circuitlab.train", "circuitlab.loading")


def test_no_layer_imports_one_above_it() -> None:
    graph = import_graph()
    upward = [(a, b) for a, b in graph.edges if layer_of(b) > layer_of(a)]
    assert not upward, upward


def test_the_layers_are_what_the_architecture_says() -> None:
    assert layer_of("circuitlab.train") == 0
    assert layer_of("circuitlab.analysis.paths") == 1
    assert layer_of("circuitlab.app.serving") == 2
    assert layer_of("circuitlab.cli.serve") == layer_of("circuitlab.__main__") == 3
    graph = import_graph()
    assert graph.has_edge("circuitlab.cli.serve", "circuitlab.app.serving")  # seen, and allowed


def test_the_app_and_export_never_reach_training_code() -> None:
    graph = import_graph(packages=True)
    starts = [m for m in graph if in_layer(m, "circuitlab.app")] + ["circuitlab.export"]
    for start in starts:
        reached = nx.descendants(graph, start)
        assert "circuitlab.train" not in reached, (
            start,
            nx.shortest_path(graph, start, "circuitlab.train"),
        )


def test_no_file_cycles() -> None:
    cycles = [c for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert not cycles, cycles


# the product: what a user of the NAC, of a store, of the analysis layer or of the app loads
PRODUCT = ("circuitlab.model", "circuitlab.nn", "circuitlab.store", "circuitlab.circuit")
FRONTS = ("circuitlab.analysis", "circuitlab.app")


def in_any(module: str, layers: tuple[str, ...]) -> bool:
    return any(in_layer(module, layer) for layer in layers)


def test_the_product_never_imports_the_worlds():
    """The lab (circuitlab.worlds: the generated worlds and their tasks) stays out of the
    product: no module of the NAC, the store, the analysis layer or the app names it in an
    import, and the NAC and the store do not reach it at all."""
    graph = import_graph()
    assert any(in_layer(b, "circuitlab.worlds") for _, b in graph.edges)  # the graph sees it
    direct = [
        (a, b)
        for a, b in graph.edges
        if in_any(a, PRODUCT + FRONTS) and in_layer(b, "circuitlab.worlds")
    ]
    assert not direct, direct
    packaged = import_graph(packages=True)
    for start in [m for m in packaged if in_any(m, PRODUCT)]:
        worlds = [m for m in nx.descendants(packaged, start) if in_layer(m, "circuitlab.worlds")]
        assert not worlds, (start, worlds)
