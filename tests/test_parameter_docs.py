"""Public names document their parameters: each parameter of a function (each field of a
dataclass, each argument of a class's ``__init__``) is named in its docstring's ``Parameters``
section (numpydoc; ``a, b`` documents two). Every name the API reference shows does; every
public module declares ``__all__`` (what other modules may import from it), and the classes
and functions in those ``__all__`` that do not yet are listed in ``UNDOCUMENTED``: the test
fails when a name outside the list misses a parameter and when a listed one no longer does,
so the list only shrinks."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from api_reference import PACKAGES  # noqa: E402

# the names of modules' __all__ still to document (numpydoc Parameters): remove each as its
# docstring is written
UNDOCUMENTED: set[str] = {
    "circuitlab.data.clip_features.compute_features",
    "circuitlab.data.clip_features.load_features",
    "circuitlab.data.grammar.Count",
    "circuitlab.data.grammar.article",
    "circuitlab.data.grammar.balanced_scene",
    "circuitlab.data.grammar.both_labels_common",
    "circuitlab.data.grammar.distinct_sentences",
    "circuitlab.data.grammar.quantity",
    "circuitlab.data.grammar.random_quantity",
    "circuitlab.data.listops.draw",
    "circuitlab.data.listops.evaluate",
    "circuitlab.data.listops.parse",
    "circuitlab.data.listops.to_tokens",
    "circuitlab.data.minimal_pairs.logic_variant",
    "circuitlab.data.minimal_pairs.minimal_pairs",
    "circuitlab.data.minimal_pairs.nlvr2_minimal_pairs",
    "circuitlab.data.minimal_pairs.nlvr2_minimal_pairs_by_kind",
    "circuitlab.data.minimal_pairs.wording_variant",
    "circuitlab.data.nlvr.NLVRExample",
    "circuitlab.data.nlvr.SceneObject",
    "circuitlab.data.nlvr.nlvr_frame",
    "circuitlab.data.nlvr.read_annotations",
    "circuitlab.data.nlvr.read_nlvr",
    "circuitlab.data.nlvr.read_nlvr2",
    "circuitlab.data.nlvr.resolve",
    "circuitlab.data.nlvr.scene_from_json",
    "circuitlab.data.nlvr.scene_json",
    "circuitlab.data.nlvr2_vocab.NounForms",
    "circuitlab.data.nlvr2_vocab.object_nouns",
    "circuitlab.data.nlvr2_vocab.word_coverage",
    "circuitlab.data.nlvr2_vocab.words",
    "circuitlab.data.object_images.ObjectClass",
    "circuitlab.data.object_images.draw_images",
    "circuitlab.data.object_images.make_classes",
    "circuitlab.data.object_images.primitive_sdf",
    "circuitlab.data.pair_tokens.noun_vectors",
    "circuitlab.data.pair_tokens.pair_tokens",
    "circuitlab.data.pair_tokens.scale_noun_vectors",
    "circuitlab.data.pair_world.PairExample",
    "circuitlab.data.pair_world.PairObject",
    "circuitlab.data.pair_world.PairScene",
    "circuitlab.data.pair_world.PairSentence",
    "circuitlab.data.pair_world.PairWorld",
    "circuitlab.data.pair_world.noun_forms",
    "circuitlab.data.pair_world.noun_split",
    "circuitlab.data.pair_world.pair_scene_from_json",
    "circuitlab.data.pair_world.pair_scene_json",
    "circuitlab.data.pair_world.pool_nouns",
    "circuitlab.data.pair_world.random_pair",
    "circuitlab.data.pair_world.random_pair_sentence",
    "circuitlab.data.pair_world.read_pair_examples",
    "circuitlab.data.pair_world.world_nouns",
    "circuitlab.data.pair_world.write_pair_examples",
    "circuitlab.data.pair_world_extra.random_pair_disjunction",
    "circuitlab.data.pair_world_extra.random_pair_extra_sentence",
    "circuitlab.data.scene_tokens.scene_tokens",
    "circuitlab.data.sentence_parts.Vocabulary",
    "circuitlab.data.sentence_parts.content",
    "circuitlab.data.sentence_parts.skeleton",
    "circuitlab.data.sort_of_clevr.Scene",
    "circuitlab.data.sort_of_clevr.SortOfClevr",
    "circuitlab.data.sort_of_clevr.answer",
    "circuitlab.data.sort_of_clevr.encode_question",
    "circuitlab.data.sort_of_clevr.render",
    "circuitlab.data.tagger.tag",
    "circuitlab.data.tagger.tag_all",
    "circuitlab.data.tagger.tagger_scores",
    "circuitlab.data.text.MiniLMEncoder",
    "circuitlab.data.text.SplitEncoder",
    "circuitlab.data.text.WordEncoder",
    "circuitlab.data.text.make_encoder",
    "circuitlab.data.text.pad_tokens",
    "circuitlab.data.world.Noun",
    "circuitlab.data.world.Placed",
    "circuitlab.data.world.Scene",
    "circuitlab.data.world.Sentence",
    "circuitlab.data.world.WorldExample",
    "circuitlab.data.world.WorldGenerator",
    "circuitlab.data.world.random_scene",
    "circuitlab.data.world.random_sentence",
    "circuitlab.data.world.scattered_scene",
    "circuitlab.data.world.sentence_from_forms",
    "circuitlab.data.world.tower_scene",
    "circuitlab.data.world_extra.random_extra_sentence",
    "circuitlab.tasks.base.check_inputs",
    "circuitlab.tasks.base.check_share",
    "circuitlab.tasks.base.hide_text_inputs",
    "circuitlab.tasks.base.objects_and_text_batch",
    "circuitlab.tasks.base.sample_rows",
    "circuitlab.tasks.base.trim_text",
    "circuitlab.tasks.boolean.corners",
    "circuitlab.tasks.boolean.fuzzy_evaluate",
    "circuitlab.tasks.boolean.r_squared",
    "circuitlab.tasks.boolean.truth_tables",
    "circuitlab.tasks.digit_renditions.new_task_images",
    "circuitlab.tasks.digit_renditions.patch_tokens",
    "circuitlab.tasks.digit_renditions.render",
    "circuitlab.tasks.digits.split_digits",
    "circuitlab.tasks.listops.encode",
    "circuitlab.tasks.nlvr.sentence_pool",
    "circuitlab.tasks.pairs.add_noun_noise",
}


def documented_names(doc: str) -> set[str]:
    """The names a numpydoc ``Parameters`` section of ``doc`` documents."""
    lines = inspect.cleandoc(doc or "").split("\n")
    names: set[str] = set()
    for k, line in enumerate(lines[:-1]):
        if line.strip() == "Parameters" and set(lines[k + 1].strip()) == {"-"}:
            indent = len(line) - len(line.lstrip())
            section = lines[k + 2 :]
            for n, entry in enumerate(section):
                if n + 1 < len(section) and re.fullmatch(r"-+", section[n + 1].strip()):
                    break  # the next section's header
                if entry.strip() and len(entry) - len(entry.lstrip()) == indent:
                    head = entry.strip().split(" : ")[0]
                    names |= {name.strip().lstrip("*") for name in head.split(",")}
    return names


def parameters(obj: object) -> list[str]:
    """What a caller passes: a dataclass's init fields, a class's own ``__init__``'s
    arguments, a function's arguments (self and cls left out)."""
    if inspect.isclass(obj):
        if getattr(obj, "_is_protocol", False):
            return []  # a Protocol is not built: its implementations are
        if dataclasses.is_dataclass(obj):
            return [f.name for f in dataclasses.fields(obj) if f.init]
        init = obj.__dict__.get("__init__")
        if init is None:
            return []
        obj = init
    signature = inspect.signature(obj)
    return [name for name in signature.parameters if name not in ("self", "cls")]


@functools.cache
def public_names() -> dict[str, object]:
    """Every class and function in the ``__all__`` of the packages the API reference shows,
    by its dotted name there."""
    found = {}
    for package, _ in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) or inspect.isfunction(value):
                found[f"{package}.{name}"] = value
    return found


def missing(obj: object) -> list[str]:
    """The parameters of ``obj`` its docstring (or its own ``__init__``'s) does not name."""
    named = documented_names(inspect.getdoc(obj) or "")
    if inspect.isclass(obj) and "__init__" in obj.__dict__:
        named |= documented_names(inspect.getdoc(obj.__init__) or "")
    return [name for name in parameters(obj) if name not in named]


@pytest.mark.parametrize("name", sorted(public_names()))
def test_a_public_name_documents_each_parameter(name):
    lacking = missing(public_names()[name])
    assert not lacking, f"{name}'s docstring has no Parameters entry for {lacking}"


LAYERS = {"circuitlab": "circuitlab", "analysis": "circuitlab.analysis", "app": "circuitlab.app"}


def public_modules() -> dict[str, Path]:
    """Every module of the three layers whose path has no part starting with "_" (packages'
    ``__init__`` aside), by its import name."""
    found = {}
    for folder, package in LAYERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if path.name == "__init__.py" or any(part.startswith("_") for part in parts):
                continue
            found[".".join((package, *parts))] = path
    return found


def test_every_public_module_declares_all_of_names_it_has():
    for name, path in public_modules().items():
        tree = ast.parse(path.read_text())
        declared = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(getattr(target, "id", None) == "__all__" for target in node.targets)
        ]
        assert len(declared) == 1, f"{name} declares no __all__"
        listed = ast.literal_eval(declared[0])
        defined = {
            target.id
            for node in tree.body
            for target in (
                [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
            )
            if isinstance(target, ast.Name)
        } | {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        }
        imported = {  # a module may re-export (circuitlab.train: from loading, predict, ...)
            alias.asname or alias.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert set(listed) <= defined | imported, f"{name}.__all__ lists {set(listed) - defined}"


@functools.cache
def module_names() -> dict[str, object]:
    """The classes and functions of every public module's ``__all__``, by dotted name."""
    found = {}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            defined_here = getattr(value, "__module__", None) == module_name  # not re-exported
            if (inspect.isclass(value) or inspect.isfunction(value)) and defined_here:
                found[f"{module_name}.{name}"] = value
    return found


@pytest.mark.parametrize("name", sorted(module_names()))
def test_a_modules_public_name_documents_each_parameter(name):
    lacking = missing(module_names()[name])
    if name in UNDOCUMENTED:
        assert lacking, f"{name} documents every parameter now: remove it from UNDOCUMENTED"
    else:
        assert not lacking, f"{name}'s docstring has no Parameters entry for {lacking}"


def test_the_parameters_section_is_read_as_numpydoc():
    doc = """Summary.

    Parameters
    ----------
    a, b
        Two at once.
    c : int
        Typed.
    **options
        Keywords.

    Returns
    -------
    d
        Not a parameter.
    """
    assert documented_names(doc) == {"a", "b", "c", "options"}
