"""Human tables for ``--format table`` (tabulate, imported only here): one table per
command's data, fitted to the terminal by wrapping long text, never an id (documentation/mcp.md#the-tools). The JSON envelope is ``errors.py``'s."""

from __future__ import annotations

import json

from ..errors import dumps
from ..policy import ROW_KEYS, TIME_KEYS

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).splitlines())  # one table line per row


# ---------------------------------------------------------------- fitting to the terminal

NUMERIC = ("rows", "max", "index")  # the columns that hold counts (right-aligned)
GAP = 2  # tabulate's "simple" and "plain" formats put two spaces between columns
# The free text, wrapped when a table is wider than the terminal (the widest first), down
# to TEXT_FLOOR display columns; every other column (ids, codes, times) stays whole, and a
# table that still does not fit is shown as one block of pairs per row.
WRAP = ("value", "summary", "message", "source_ref", "display_label")
TEXT_FLOOR = 16
# In a block of pairs, the values under these keys stay on one line whatever the width:
# a person pastes them (`forget ID`, the undo command), and a line break would cut them.
WHOLE = ("id", "op_id", "past_id", "memory_id", "subject_id", "undo_hint", "command")


def terminal_width() -> int | None:
    """The width to fit tables to: ``COLUMNS``, else the terminal's; None when stdout is
    not a terminal (a file or a pipe gets every value on one line)."""
    import os
    import shutil

    if os.environ.get("COLUMNS") or _is_terminal():
        return shutil.get_terminal_size().columns
    return None


def _is_terminal() -> bool:
    import sys

    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def wrap(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` display columns (wide CJK characters count
    two), nothing cut off: broken at the last space, or beside a wide character (Chinese
    has no spaces), else inside a word only when one word is wider than the line."""
    from wcwidth import wcswidth, wcwidth

    if wcswidth(text) <= width:
        return text
    lines: list[str] = []
    line: list[tuple[str, int]] = []
    used = 0
    for ch in text:
        w = max(wcwidth(ch), 0)
        if used + w > width and line:
            if ch == " ":
                lines.append("".join(c for c, _ in line))
                line, used = [], 0
                continue
            cut = _break_at(line, w)
            lines.append("".join(c for c, _ in line[:cut]).rstrip(" "))
            line = line[cut:]
            used = sum(cw for _, cw in line)
        line.append((ch, w))
        used += w
    lines.append("".join(c for c, _ in line))
    return "\n".join(lines)


def _break_at(line: list[tuple[str, int]], next_width: int) -> int:
    """Where to end a full line (characters and their widths) before a character of
    ``next_width``: after its last space or beside its last wide character."""
    if next_width > 1:
        return len(line)  # the next character is wide: break right before it
    for i in range(len(line) - 1, 0, -1):
        if line[i][0] == " " or line[i - 1][0] == " ":
            return i + 1 if line[i][0] == " " else i
        if line[i - 1][1] > 1:
            return i  # after a wide character
    return len(line)


def fit_widths(natural: list[int], names: list[str], width: int) -> list[int]:
    """Column widths whose sum, with the gaps, fits ``width`` where it can: only the
    free-text columns (``WRAP``) give way, the widest first, never below
    ``TEXT_FLOOR``."""
    widths = list(natural)
    room = width - GAP * (len(widths) - 1)
    text = [i for i, n in enumerate(names) if n in WRAP]
    while sum(widths) > room:
        wide = [i for i in text if widths[i] > TEXT_FLOOR]
        if not wide:
            break
        widths[max(wide, key=lambda k: widths[k])] -= 1
    return widths


def _grid(cells: list[list[str]], headers: list[str], fmt: str = "simple") -> str:
    """tabulate of ``cells``; on a terminal too narrow for it, the empty columns are left
    out and the free text wrapped so that every line fits."""
    import tabulate

    width = terminal_width()
    saved = tabulate.MIN_PADDING
    if width is not None and cells:
        cells, headers = _fitted(cells, headers, width)
        tabulate.MIN_PADDING = 0  # a header is as wide as its text, as _fitted measured it
    try:
        if headers:
            # Only counts are numbers; a stored value such as "007" is text and stays as it is.
            text = [i for i, h in enumerate(headers) if h not in NUMERIC]
            return tabulate.tabulate(cells, headers=headers, tablefmt=fmt, disable_numparse=text)
        return tabulate.tabulate(cells, tablefmt=fmt, disable_numparse=True)
    finally:
        tabulate.MIN_PADDING = saved


def _fitted(
    cells: list[list[str]], headers: list[str], width: int
) -> tuple[list[list[str]], list[str]]:
    from wcwidth import wcswidth

    def natural(c: int) -> int:
        return max([wcswidth(h) for h in headers[c : c + 1]] + [wcswidth(r[c]) for r in cells])

    columns = range(len(cells[0]))
    if sum(map(natural, columns)) + GAP * (len(cells[0]) - 1) <= width:
        return cells, headers
    if not headers:  # a block of pairs: keys whole, values wrapped unless pasted (WHOLE)
        room = max(width - natural(0) - GAP, TEXT_FLOOR)
        return [[k, v if k in WHOLE else wrap(v, room)] for k, v in cells], headers
    # a column with no value says nothing: leave it out before wrapping any
    keep = [c for c in columns if any(r[c] for r in cells)]
    cells = [[r[c] for c in keep] for r in cells]
    headers = [headers[c] for c in keep]
    widths = fit_widths([natural(c) for c in range(len(keep))], headers, width)
    cells = [[wrap(v, w) for v, w in zip(row, widths, strict=True)] for row in cells]
    return cells, headers


def _rows_table(rows: list[dict[str, Any]], columns: tuple[str, ...] | list[str]) -> str:
    if not rows:
        return "(none)"
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    width = terminal_width()
    if width is not None and not _can_fit(cells, columns, width):
        # Too many columns for this terminal even clipped: one block of pairs per row.
        blocks = [_pairs({c: v for c, v in zip(columns, row, strict=True) if v}) for row in cells]
        return "\n\n".join(blocks)
    return _grid(cells, list(columns))


def _can_fit(cells: list[list[str]], columns: tuple[str, ...] | list[str], width: int) -> bool:
    """Whether the row table fits ``width`` once its free text is wrapped: every other
    column at its own width, the free text at ``TEXT_FLOOR`` (or less when shorter)."""
    from wcwidth import wcswidth

    need = []
    for c, name in enumerate(columns):
        if any(r[c] for r in cells):
            longest = max([wcswidth(name)] + [wcswidth(r[c]) for r in cells])
            need.append(min(longest, TEXT_FLOOR) if name in WRAP else longest)
    return sum(need) + GAP * (len(need) - 1) <= width


def _pairs(data: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    items = [[k, _cell(v)] for k, v in data.items() if k not in skip]
    return _grid(items, [], "plain") if items else ""


# search's compact rows (documentation/recall.md#what-context---query-returns): the columns a person reads, the id last (for forget).
SEARCH_COLUMNS = ("subject_id", "scope", "field", "value", "occurred_at", "confidence", "id")
LOG_COLUMNS = ("op_id", "created_at", "action", "rows", "summary")


def _dated(columns: tuple[str, ...], memories: list[dict[str, Any]]) -> tuple[str, ...]:
    """Compact rows' columns with ``since``, ``until`` and ``pinned`` where some row has
    them: a value that is no longer current is never shown without its ``until``."""
    extra = tuple(k for k in ("since", "until", "pinned") if any(k in m for m in memories))
    return (*columns, *extra)


def _show_columns(memories: list[dict[str, Any]]) -> tuple[str, ...]:
    """``show``'s columns: the row keys, ``since``, and the other time keys (documentation/time.md#where-history-lives) only when
    some row has one (a past value, an end, a pin), so that a plain store stays narrow."""
    extra = tuple(k for k in TIME_KEYS[1:] if any(m.get(k) for m in memories))
    return (*ROW_KEYS, "since", *extra)


def table(command: str | None, data: dict[str, Any]) -> str:
    """Human-readable text for --format table."""
    if command == "mcp":  # --print-config: the configuration itself, ready to paste
        return data["config"].rstrip("\n")
    if command in ("show", "context"):
        parts = []
        head = _pairs(data, skip=("memories", "roster"))
        if head:
            parts.append(head)
        memories = data.get("memories", [])
        columns = _dated(ROW_KEYS, memories) if command == "context" else _show_columns(memories)
        parts.append(_rows_table(data.get("memories", []), columns))
        if "roster" in data:
            parts.append(
                _rows_table(
                    data["roster"], ("subject_id", "display_label", "counts", "last_updated")
                )
            )
        return "\n\n".join(parts)
    if command == "status":
        parts = [_pairs(data, skip=("counts", "limits"))]
        counts = data.get("counts")
        limits = data.get("limits") or {}
        if counts:
            rows = [
                {
                    "scope": scope,
                    "rows": n,
                    "max": limits.get("by_scope", {}).get(scope, {}).get("max"),
                    "per": limits.get("by_scope", {}).get(scope, {}).get("per"),
                    "policy": limits.get("by_scope", {}).get(scope, {}).get("policy"),
                }
                for scope, n in counts["by_scope"].items()
            ]
            rows.append(
                {"scope": "total", "rows": counts["total"], "max": limits.get("total_rows")}
            )
            parts.append(_rows_table(rows, ("scope", "rows", "max", "per", "policy")))
        return "\n\n".join(parts)
    if command == "log":
        return _rows_table(data["operations"], LOG_COLUMNS)
    if command == "search":
        head = _pairs(data, skip=("memories",))
        columns = _dated(SEARCH_COLUMNS, data["memories"])
        return "\n\n".join([head, _rows_table(data["memories"], columns)])
    if command == "tidy":
        parts = [_pairs(data, skip=("findings", "proposal"))]
        parts.append(_rows_table(data["findings"], ("kind", "subject_id", "message")))
        if data.get("proposal"):
            parts.append("proposal (apply it on the person's yes):\n" + dumps(data["proposal"]))
        return "\n\n".join(p for p in parts if p)
    if command == "doctor":
        return "\n\n".join(
            [
                _pairs(data, skip=("findings",)),
                _rows_table(data["findings"], ("check", "severity", "message")),
            ]
        )
    if command == "apply":
        rows = [
            {"index": r["index"], "action": r["action"], **r["memory"]} for r in data["results"]
        ]
        parts = [
            _pairs(data, skip=("results", "pruned")),
            _rows_table(rows, ("index", "action", "id", "scope", "subject_id", "field", "value")),
        ]
        warned = [
            {"index": r["index"], **w} for r in data["results"] for w in r.get("warnings", [])
        ]
        if warned:
            parts.append("warnings:\n" + _rows_table(warned, ("index", "code", "message")))
        if data.get("pruned"):
            parts.append("pruned:\n" + _rows_table(data["pruned"], ROW_KEYS))
        return "\n\n".join(parts)
    return _pairs(data)
