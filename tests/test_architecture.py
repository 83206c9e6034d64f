"""The map is true (documentation/architecture.md#packages-and-modules): ``documentation/architecture.md`` names every package and
module that exists and nothing that does not, and each module's docstring says what it holds.

The map's module table (under "Every module") names each module by its path inside
``memory_store/``; the package table (under "Packages and modules") names each
sub-package. Any other ``*.py`` path the page mentions must exist too, so prose
cannot keep a module that is gone (but for the table of release 3's names and where
each went).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "memory_store"
MAP = ROOT / "documentation" / "architecture.md"


def _section(text: str, title: str) -> str:
    start = text.index(title)
    rest = text[start + len(title) :]
    end = re.search(r"^#{2,3} ", rest, re.M)
    return rest[: end.start()] if end else rest


def _first_cells(section: str) -> list[str]:
    return re.findall(r"^\| `([^`]+)` \|", section, re.M)


def _modules() -> set[str]:
    return {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}


def test_the_module_table_names_exactly_the_modules_that_exist() -> None:
    named = _first_cells(_section(MAP.read_text(encoding="utf-8"), "### Every module"))
    assert len(named) == len(set(named)), "a module is named twice"
    modules = {n for n in named if n.endswith(".py")}
    assert modules == _modules(), {
        "missing from the map": sorted(_modules() - modules),
        "named but absent": sorted(modules - _modules()),
    }
    for other in set(named) - modules:  # data folders (schemas/)
        assert (PACKAGE / other).is_dir(), other


def test_the_package_table_names_exactly_the_packages_that_exist() -> None:
    named = _first_cells(_section(MAP.read_text(encoding="utf-8"), "## Packages and modules"))
    packages = {p.parent.name + "/" for p in PACKAGE.glob("*/__init__.py")}
    assert set(named) == packages


OLD_NAMES = "### Where the flat package's modules went"


def test_every_python_path_the_page_names_exists() -> None:
    text = MAP.read_text(encoding="utf-8")
    text = text.replace(_section(text, OLD_NAMES), "")  # release 3's names, on purpose
    for path in set(re.findall(r"`([\w/]+\.py)(?:::\w+)?`", text)):
        if path.startswith(("tests/", "scripts/")):
            assert (ROOT / path).is_file(), path
        elif "/" in path or path in {p.name for p in PACKAGE.rglob("*.py")}:
            assert (PACKAGE / path).is_file() or any(PACKAGE.rglob(path)), path
        else:
            raise AssertionError(f"{path}: no module of that name")


def test_every_module_says_what_it_holds() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc and len(doc) >= 20, f"{path.relative_to(ROOT)} has no docstring"
        # A docstring naming a module by a path that no longer exists has drifted.
        for named in re.findall(r"``([\w/]+\.py)``", doc):
            where = ROOT / named if named.startswith(("scripts/", "tests/")) else None
            found = where.is_file() if where else any(PACKAGE.rglob(Path(named).name))
            assert found, (str(path.relative_to(ROOT)), named)
