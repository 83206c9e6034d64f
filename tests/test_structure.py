"""The package's shape (documentation/architecture.md#which-package-may-import-which): concern packages, layer rules, no import cycle, small parts.

Read from the source with ``ast``: which module imports which (at module level or
inside a function, since a lazy import is still a dependency; relative imports of
any depth resolved against the module's own package), and how long each module,
class and function is. Every ``.py`` file under ``memory_store/`` is read, in every
sub-package: a new folder is seen without being listed here, and a rule that
finds no module to check fails rather than passing blind.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memory_store"
TOP = "memory_store"
MODULE_LINES = 450
CLASS_LINES = 300
FUNCTION_LINES = 80
# Data modules: word lists are declarations, not logic, and grow with the languages they
# cover; policy.py is held to the usual size.
DATA_MODULES = {"memory_store.sensitive_terms"}

# The rooms (documentation/architecture.md#packages-and-modules). The faces are what a person or a host talks to (the command line, the MCP
# server, the person's page); nothing else imports them.
FACES = {"memory_store.cli", "memory_store.mcp", "memory_store.page", "memory_store.__main__"}
PACKAGES = {"cli", "mcp", "page", "commands", "recall", "writes", "review", "storage"}
ONE_MODULE_CONCERNS = {"consent", "erasure", "subjects", "transfer", "doctor", "skill", "hosts"}
LEAVES = {"errors", "policy", "sensitive_terms"}
FACADE = "memory_store.store"


def _name_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {_name_of(p): p for p in sorted(PACKAGE.rglob("*.py"))}


SOURCES = _sources()


def _package_of(name: str) -> str:
    """The package a module's relative imports start from (a package's own name)."""
    path = SOURCES[name]
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _resolve(name: str, node: ast.ImportFrom) -> set[str]:
    """The package modules one ``from … import …`` statement loads."""
    if node.level == 0:
        if not (node.module or "").startswith(TOP):
            return set()
        base = node.module or ""
    else:
        package = _package_of(name).split(".")
        base_parts = package[: len(package) - node.level + 1]
        base = ".".join(base_parts + ([node.module] if node.module else []))
    found: set[str] = set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in SOURCES:
            found.add(sub)  # a submodule imported by name (``from . import rows``)
        elif base in SOURCES:
            found.add(base)  # a name the module defines (``from .storage import Session``)
    return found


def _imports(name: str, tree: ast.Module) -> set[str]:
    """The package modules this module imports, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found |= _resolve(name, node)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in SOURCES}
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    return {
        name: _imports(name, ast.parse(path.read_text(encoding="utf-8")))
        for name, path in SOURCES.items()
    }


GRAPH = _graph()


def _in(package: str) -> set[str]:
    """Every module of one sub-package, its entry module included."""
    prefix = f"{TOP}.{package}"
    return {m for m in SOURCES if m == prefix or m.startswith(prefix + ".")}


def test_the_tree_has_the_rooms_of_the_contract() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert packages == PACKAGES
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == {"__init__", "__main__", "store"} | ONE_MODULE_CONCERNS | LEAVES
    for package in PACKAGES:
        assert len(_in(package)) >= 2, f"{package}/ holds a single module: it is a module"


def test_the_graph_sees_every_sub_package() -> None:
    # The rules below are only as good as the graph: it must hold edges into and
    # out of every package, or a rule would pass for want of anything to check.
    for package in PACKAGES:
        members = _in(package)
        assert any(GRAPH[m] for m in members), package
        assert any(GRAPH[m] & members for m in SOURCES if m not in members), package


def test_no_import_cycle() -> None:
    graph = {name: set(deps) for name, deps in GRAPH.items()}
    graph.pop(TOP, None)  # the package re-exports the facade; nothing imports it back
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


def _face_of(name: str) -> str | None:
    return next((f for f in FACES if name == f or name.startswith(f + ".")), None)


# The edges into a face, each a command that starts one: ``memory-store mcp`` (the
# command line starts the server), ``review --serve`` (the command line serves the page)
# and ``open-page`` / ``memory_open_page`` (the command's record starts the page's
# process, for both faces). Named module by module: no other part may reach the page.
FACE_STARTS = {
    ("memory_store.cli", "memory_store.mcp"),
    ("memory_store.cli.serving", "memory_store.page.server"),
    ("memory_store.commands.host", "memory_store.page.launch"),
}


def test_nothing_imports_a_face() -> None:
    for name, deps in GRAPH.items():
        own = _face_of(name)
        for dep in deps:
            face = _face_of(dep)
            if face is None or face == own:
                continue
            if (own, face) in FACE_STARTS or (name, dep) in FACE_STARTS:
                continue
            assert name == f"{TOP}.__main__" and face == "memory_store.cli", (
                f"{name} imports the face {dep}"
            )


def test_the_page_reaches_the_store_through_the_facade() -> None:
    # The third face is typed against MemoryStore: it may use the facade, the rendering
    # it shares with the review file, the command registry and the leaves, never a
    # concern (consent, erasure, transfer…) or the storage below them.
    allowed = {FACADE} | _in("review") | _in("commands") | {f"{TOP}.{m}" for m in LEAVES}
    page = _in("page")
    assert len(page) >= 5, page
    for name in page:
        beyond = GRAPH[name] - page - allowed
        assert not beyond, f"{name} imports {beyond}"
    into = {(n, d) for n, deps in GRAPH.items() if n not in page for d in deps & page}
    assert into == {e for e in FACE_STARTS if e[1].startswith(f"{TOP}.page")}, into


def test_storage_imports_neither_recall_nor_writes_nor_the_facade() -> None:
    forbidden = _in("recall") | _in("writes") | {FACADE} | ONE_MODULE_IMPORTS
    for name in _in("storage"):
        assert not GRAPH[name] & forbidden, f"{name} imports {GRAPH[name] & forbidden}"


ONE_MODULE_IMPORTS = {f"{TOP}.{m}" for m in ONE_MODULE_CONCERNS}


def test_recall_and_writes_do_not_import_each_other() -> None:
    recall, writes = _in("recall"), _in("writes")
    for name in recall:
        assert not GRAPH[name] & writes, f"{name} imports {GRAPH[name] & writes}"
    for name in writes:
        assert not GRAPH[name] & recall, f"{name} imports {GRAPH[name] & recall}"


def _module_level_imports(name: str) -> set[str]:
    tree = ast.parse(SOURCES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            found |= _resolve(name, node)
    return found


def test_commands_do_not_import_writes_when_imported() -> None:
    # The registry is read on every call; the write path (jsonschema) is paid by writes.
    writes = _in("writes")
    for name in _in("commands"):
        assert not _module_level_imports(name) & writes, name


def test_the_leaves_import_nothing_of_the_package() -> None:
    for leaf in LEAVES:
        assert GRAPH[f"{TOP}.{leaf}"] == set(), leaf


def test_only_the_facade_and_the_faces_import_the_one_module_concerns_of_the_store() -> None:
    # consent, erasure, transfer… are reached through MemoryStore; the core below them
    # (storage, recall, writes) never reaches up to one of them.
    core = _in("storage") | _in("recall") | _in("writes")
    for name in core:
        assert not GRAPH[name] & ONE_MODULE_IMPORTS, f"{name} imports {GRAPH[name]}"


def _length(node: ast.AST) -> int:
    return node.end_lineno - node.lineno + 1  # type: ignore[attr-defined, operator]


@pytest.mark.parametrize("name", sorted(SOURCES), ids=str)
def test_modules_classes_and_functions_stay_small(name: str) -> None:
    path = SOURCES[name]
    text = path.read_text(encoding="utf-8")
    if name not in DATA_MODULES:
        assert len(text.splitlines()) <= MODULE_LINES, f"{name} is over {MODULE_LINES} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            assert _length(node) <= CLASS_LINES, f"class {node.name} in {name}"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert _length(node) <= FUNCTION_LINES, f"{node.name}() in {name}"
