"""The package runs on the oldest Python ``requires-python`` names (3.10), not only on the
3.11 that CI runs: mypy checks the code as 3.10 (``[tool.mypy]``) and ruff writes it for
3.10 (``target-version``), but neither reads a regular expression. 3.11 added possessive
quantifiers (``++``, ``*+``) and atomic groups (``(?>…)``); on 3.10 such a pattern is a
``re.error`` the first time a value reaches it (every e-mail-like value was an
``INTERNAL_ERROR`` there). So every string constant of the package that parses as a
pattern using either is refused here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memory_store"
# 3.11's own pattern parser knows the two forms; on 3.10 the suite itself meets them.
_parser = pytest.importorskip("re._parser", reason="3.11's pattern parser")
_constants = pytest.importorskip("re._constants", reason="3.11's pattern parser")
NEWER = {_constants.POSSESSIVE_REPEAT, _constants.ATOMIC_GROUP}


def _uses_newer_syntax(items: object) -> bool:
    for op, arg in items:  # type: ignore[attr-defined]
        if op in NEWER:
            return True
        for part in arg if isinstance(arg, (tuple, list)) else (arg,):
            if isinstance(part, _parser.SubPattern) and _uses_newer_syntax(part):
                return True
            if isinstance(part, (tuple, list)):
                for sub in part:
                    if isinstance(sub, _parser.SubPattern) and _uses_newer_syntax(sub):
                        return True
    return False


def _patterns_needing_311(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = _parser.parse(node.value)
            except (re.error, RecursionError, OverflowError):
                continue  # not a pattern (prose, markup): nothing to check
            if _uses_newer_syntax(parsed):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    return found


def test_no_pattern_needs_a_newer_python_than_requires_python() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _patterns_needing_311(path)]
    assert found == []


def test_the_check_sees_a_possessive_quantifier_and_an_atomic_group(tmp_path: Path) -> None:
    # The check cannot go blind: both 3.11-only forms, inside a group too, are found.
    probe = tmp_path / "probe.py"
    probe.write_text(
        'A = r"[a-z]++@"\nB = r"x(?>ab|a)c"\nC = r"(?:(a*+)|b)"\nD = "plain text"\n',
        encoding="utf-8",
    )
    assert len(_patterns_needing_311(probe, tmp_path)) == 3
