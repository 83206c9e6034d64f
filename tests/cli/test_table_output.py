"""--format table (contract §4, §16): columns line up by display width, Chinese included;
--version prints the version."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli, delta, put
from wcwidth import wcswidth, wcwidth

import memory_store


def _cells(line: str) -> list[tuple[int, str]]:
    """(display column, character) for each character of ``line``."""
    out, col = [], 0
    for ch in line:
        out.append((col, ch))
        col += max(wcwidth(ch), 0)
    return out


def _check_aligned(table: str) -> int:
    """In every tabulate table of ``table``, each column lines up as its dashed rule draws it,
    in display columns: every non-empty cell starts where the dashes start (text), or every
    one ends where they end (numbers). Returns how many rows were checked."""
    lines = table.splitlines()
    checked = 0
    for i, rule in enumerate(lines):
        if not rule or set(rule) - {"-", " "} or "-" not in rule:
            continue
        runs = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
        rows = lines[i - 1 : i] if i else []
        for line in lines[i + 1 :]:
            if not line.strip():
                break
            rows.append(line)
        for k, (start, end) in enumerate(runs):
            left, right = [], []
            for line in rows:
                cells = _cells(line)
                stop = runs[k + 1][0] if k + 1 < len(runs) else max(end, wcswidth(line))
                inside = [(c, ch) for c, ch in cells if start <= c < stop and ch != " "]
                if not inside:
                    continue  # an empty cell
                last = inside[-1][0] + max(wcwidth(inside[-1][1]), 1)
                left.append(inside[0][0] == start)
                right.append(last == end)
            assert all(left) or all(right), (k, rows)
        checked += len(rows)
    return checked


@pytest.mark.parametrize("command", [["show"], ["context", "--subject-id", "obj-a"], ["log"]])
def test_tables_align_chinese_by_display_width(enabled: Path, command: list[str]) -> None:
    put(delta("relationship", field="stage", value="刚认识 just met"))
    put(
        delta(value="小林"),
        delta(field="job", value="室内设计师，在南京"),
        delta(field="diet", value="vegetarian"),
        delta(
            "event",
            field="conflict",
            value="因为迟到吵了一架 then made up",
            occurred_at="2026-05-01",
        ),
        delta("user", field="goal", value="长期关系 long term"),
    )
    r = cli("--format", "table", *command, check_envelope=False)
    assert r.code == 0 and r.stderr == ""
    assert "小林" in r.stdout or command == ["log"]
    assert _check_aligned(r.stdout) >= 3


def test_without_wcwidth_tabulate_would_misalign() -> None:
    """The check above is not vacuous: counting code points puts 小林's neighbour off by two."""
    import tabulate

    saved = tabulate.WIDE_CHARS_MODE
    tabulate.WIDE_CHARS_MODE = False
    try:
        text = tabulate.tabulate([["小林", "value"], ["Alex", "other"]], headers=["label", "value"])
    finally:
        tabulate.WIDE_CHARS_MODE = saved
    with pytest.raises(AssertionError):
        _check_aligned(text)


def test_version() -> None:
    r = cli("--version", check_envelope=False)
    assert r.code == 0 and r.stdout.strip() == f"memory-store {memory_store.__version__}"
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "--version"], capture_output=True, text=True
    )
    assert (
        proc.returncode == 0 and proc.stdout.strip() == f"memory-store {memory_store.__version__}"
    )
    assert proc.stderr == ""
    json.dumps(proc.stdout)  # plain text, not an envelope
