"""--format table (documentation/commands.md#one-envelope-semantic-exit-codes, documentation/variables.md#commands-handed-to-the-person-name-the-store, documentation/mcp.md#the-tools): columns line up by display width, Chinese
included; tables fit the terminal's width by wrapping long values, never cutting them and
never breaking an id (a person pastes it into `forget`), and a pipe gets every value on
one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support import cli, delta, ok, put, run_cli
from wcwidth import wcswidth, wcwidth


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


# ---------------------------------------------------------------- tables that fit


LONG = "在读书会认识的室内设计师，喜欢周末去看展览，also likes long walks by the river"


@pytest.fixture
def wide(private_store: Path) -> Path:
    ok("enable", "--confirm")
    put(delta(subject="obj-a", value="小林"), delta(subject="obj-a", field="fact", value=LONG))
    put(delta(subject="obj-b", value="007"))
    return private_store


@pytest.mark.parametrize("columns", [100, 60, 44])
@pytest.mark.parametrize(
    "command", [["search", "--query", "设计师 小林 007"], ["log"], ["show"], ["status"]]
)
def test_tables_fit_the_terminal(wide: Path, command: list[str], columns: int) -> None:
    from wcwidth import wcswidth

    ids = [m["id"] for m in ok("show")["memories"]]
    shown = cli("--format", "table", *command, env={"COLUMNS": str(columns)}, check_envelope=False)
    assert shown.code == 0 and shown.stderr == ""
    lines = shown.stdout.splitlines()
    assert max(wcswidth(line) for line in lines) <= columns, shown.stdout
    assert "{" not in shown.stdout or command == ["status"]  # rows are tables, not JSON blobs
    _check_aligned(shown.stdout)
    if command[0] in ("search", "show"):
        assert "…" not in shown.stdout  # wrapped where too long, never clipped
        values = _values_under(shown.stdout, "value")
        assert _squeezed(LONG) in map(_squeezed, values), values  # every character of it
        assert "007" in shown.stdout  # a value that looks like a number stays text
        for memory_id in ids:
            assert re.search(rf"(^|\s){memory_id}(\s|$)", shown.stdout, re.M), memory_id


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _slice(line: str, start: int, stop: int | None) -> str:
    return "".join(ch for col, ch in _cells(line) if col >= start and (stop is None or col < stop))


def _values_under(table: str, name: str) -> list[str]:
    """Each row's whole text in column ``name``, its wrapped lines joined: from a tabulate
    table (a header over a dashed rule) or a block of pairs (``name`` then its value)."""
    lines = table.splitlines()
    found: list[str] = []
    for i, line in enumerate(lines[:-1]):
        rule = lines[i + 1]
        if rule and not set(rule) - {"-", " "} and re.search(rf"(^|\s){name}(\s|$)", line):
            runs = [m.start() for m in re.finditer(r"-+", rule)]
            at = next(col for col, _ in _cells(line) if _slice(line, col, None).startswith(name))
            k = runs.index(at)
            stop = runs[k + 1] if k + 1 < len(runs) else None
            for row in lines[i + 2 :]:
                if not row.strip():
                    break
                cell = _slice(row, at, stop).strip()
                if _slice(row, 0, runs[1] if len(runs) > 1 else None).strip() or not found:
                    found.append(cell)
                else:
                    found[-1] += " " + cell
    for i, line in enumerate(lines):
        if line.startswith(name + " "):
            at = len(line) - len(line[len(name) :].lstrip())
            value = [line[at:]]
            for more in lines[i + 1 :]:
                if not more.startswith(" " * at) or not more.strip():
                    break
                value.append(more.strip())
            found.append(" ".join(value))
    return found


def test_search_table_shows_rows_as_columns(wide: Path) -> None:
    shown = cli("--format", "table", "search", "--query", "设计师", check_envelope=False)
    header = next(line for line in shown.stdout.splitlines() if " scope " in line)
    assert header.split() == [
        "subject_id",
        "scope",
        "field",
        "value",
        "occurred_at",
        "confidence",
        "id",
    ]
    assert LONG in shown.stdout  # not a terminal, no COLUMNS: every value whole


def test_a_pipe_gets_every_value_whole(wide: Path) -> None:
    piped = run_cli("--format", "table", "show", check_envelope=False, env={"COLUMNS": ""})
    assert piped.code == 0 and LONG in piped.stdout  # stdout is a pipe: nothing clipped


@pytest.mark.parametrize("columns", [100, 72])
def test_an_id_read_off_a_narrow_table_can_be_pasted_into_forget(wide: Path, columns: int) -> None:
    shown = cli(
        "--format",
        "table",
        "search",
        "--query",
        "设计师",
        env={"COLUMNS": str(columns)},
        check_envelope=False,
    )
    (memory_id,) = re.findall(r"\bm-[0-9a-f]{16}\b", shown.stdout)[:1]
    forgot = ok("forget", memory_id, "--confirm")
    assert forgot["deleted"] == 1
    assert LONG not in [m["value"] for m in ok("show")["memories"]]


def test_the_undo_command_in_an_apply_table_stays_on_one_line(enabled: Path) -> None:
    body = json.dumps(delta(field="fact", value=LONG), ensure_ascii=False)
    shown = cli(
        "--format", "table", "apply", "--json", body, env={"COLUMNS": "50"}, check_envelope=False
    )
    (line,) = [line for line in shown.stdout.splitlines() if line.startswith("undo_hint")]
    words = line.split(None, 1)[1].split()
    assert words[-3:-1] == ["undo", "--op-id"] and words[-1].startswith("op-")


def test_the_apply_table_names_each_rows_subject(enabled: Path) -> None:
    # The subject_id column was empty (the compact rows leave out the subject
    # their delta named); a person reading the table sees whose row each is.
    body = json.dumps(
        {
            "deltas": [
                delta(subject="obj-a", value="阿杰（读书会认识的男生）"),
                delta(subject="obj-b", value="阿杰"),
                delta("user", field="goal", value="找一段长期关系"),
            ]
        },
        ensure_ascii=False,
    )
    for args in (["apply", "--dry-run"], ["apply"]):  # the dry run first: it writes nothing
        shown = cli("--format", "table", *args, "--json", body, check_envelope=False)
        lines = shown.stdout.splitlines()
        rows = [line.split() for line in lines if re.match(r"\s+\d+\s+created", line)]
        assert [(r[0], r[4]) for r in rows] == [("0", "obj-a"), ("1", "obj-b"), ("2", "user")]
        assert _check_aligned(shown.stdout) >= 3
        # The warning a result carries is shown too (the second 阿杰).
        warned = lines[lines.index("warnings:") + 1 :]
        assert any(line.split()[:2] == ["1", "similar_label"] for line in warned if line.strip())
    # The JSON envelope keeps its compact rows.
    compact = ok("apply", "--json", json.dumps(delta(subject="obj-c", value="C")))
    assert "subject_id" not in compact["results"][0]["memory"]
