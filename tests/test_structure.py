"""The package's shape (contract §19): modules of one concern, no import cycle, small parts.

Read from the source with ``ast``: which module imports which (at module level
or inside a function, since a lazy import is still a dependency), and how long
each module, class and function is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memory_store"
MODULE_LINES = 450
CLASS_LINES = 300
FUNCTION_LINES = 80
# Data modules: policy tables and the command registry are declarations, not logic.
DATA_MODULES = {"policy"}


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.glob("*.py"))}


def _imports(tree: ast.Module) -> set[str]:
    """Sibling modules this module imports, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("memory_store."):
            found.add(node.module.split(".")[1])
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(tree) & set(modules) for name, tree in modules.items()}


def test_no_import_cycle() -> None:
    graph = _graph()
    graph.pop("__init__", None)  # the package re-exports; it is imported, never imports back
    for deps in graph.values():
        deps.discard("__init__")
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph.get(name, ())):
            if state.get(dep) == 1:
                cycle = path[path.index(dep) :] + [dep] if dep in path else [name, dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_faces_are_thin_and_the_core_never_imports_them() -> None:
    graph = _graph()
    faces = {"cli", "__main__", "server"}
    for name, deps in graph.items():
        if name not in faces:
            assert not deps & faces, f"{name} imports a face: {deps & faces}"


def _length(node: ast.AST) -> int:
    return node.end_lineno - node.lineno + 1  # type: ignore[attr-defined, operator]


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_modules_classes_and_functions_stay_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if path.stem not in DATA_MODULES:
        assert len(text.splitlines()) <= MODULE_LINES, f"{path.name} is over {MODULE_LINES} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            assert _length(node) <= CLASS_LINES, f"class {node.name} in {path.name}"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert _length(node) <= FUNCTION_LINES, f"{node.name}() in {path.name}"
