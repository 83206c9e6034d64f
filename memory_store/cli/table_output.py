"""Human tables for ``--format table`` (tabulate, imported only here): one table per
command's data, fitted to the terminal. The JSON envelope is ``errors.py``'s."""

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
NARROWEST = 6  # a column is never clipped below this many display columns
# Clipped first, in this order, when a table is wider than the terminal: the free text.
CLIP_FIRST = ("value", "summary", "message", "source_ref", "display_label", "path", "2")


def terminal_width() -> int | None:
    """The width to fit tables to: ``COLUMNS``, else the terminal's; None when stdout is
    not a terminal (a file or a pipe gets every value whole)."""
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


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` display columns (wide CJK characters count two), ending
    in … when it was cut."""
    from wcwidth import wcswidth, wcwidth

    if wcswidth(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = max(wcwidth(ch), 0)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def fit_widths(natural: list[int], names: list[str], width: int) -> list[int]:
    """Column widths whose sum, with the gaps, fits ``width``: the free-text columns
    (``CLIP_FIRST``) give way first, the widest of them first, then any column, never
    below ``NARROWEST``. A table that cannot fit keeps every column at that floor."""
    widths = list(natural)
    room = width - GAP * (len(widths) - 1)
    first = [i for i, n in enumerate(names) if n in CLIP_FIRST]
    for group in (first, range(len(widths))):
        while sum(widths) > room:
            wide = [i for i in group if widths[i] > NARROWEST]
            if not wide:
                break
            i = max(wide, key=lambda k: widths[k])
            widths[i] -= 1
    return widths


def _grid(cells: list[list[str]], headers: list[str], fmt: str = "simple") -> str:
    """tabulate of ``cells``; on a terminal too narrow for it, the empty columns are left
    out and the others clipped (headers included) so that every line fits."""
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
        return tabulate.tabulate(cells, tablefmt=fmt)
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
    if headers:  # a column with no value says nothing: leave it out before clipping any
        keep = [c for c in columns if any(r[c] for r in cells)]
        cells = [[r[c] for c in keep] for r in cells]
        headers = [headers[c] for c in keep]
        columns = range(len(keep))
    names = headers or [str(c) for c in columns]
    widths = fit_widths([natural(c) for c in columns], names, width)
    cells = [[clip(v, w) for v, w in zip(row, widths, strict=True)] for row in cells]
    return cells, [clip(h, w) for h, w in zip(headers, widths, strict=False)]


def _rows_table(rows: list[dict[str, Any]], columns: tuple[str, ...] | list[str]) -> str:
    if not rows:
        return "(none)"
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    width = terminal_width()
    if width is not None and not _can_fit(cells, width):
        # Too many columns for this terminal even clipped: one block of pairs per row.
        blocks = [_pairs({c: v for c, v in zip(columns, row, strict=True) if v}) for row in cells]
        return "\n\n".join(blocks)
    return _grid(cells, list(columns))


def _can_fit(cells: list[list[str]], width: int) -> bool:
    used = [c for c in range(len(cells[0])) if any(r[c] for r in cells)]
    return len(used) * NARROWEST + GAP * (len(used) - 1) <= width


def _pairs(data: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    items = [[k, _cell(v)] for k, v in data.items() if k not in skip]
    return _grid(items, [], "plain") if items else ""


# search's compact rows (contract §13): the columns a person reads, the id last (for forget).
SEARCH_COLUMNS = ("subject_id", "scope", "field", "value", "occurred_at", "confidence", "id")
LOG_COLUMNS = ("op_id", "created_at", "action", "rows", "summary")


def _dated(columns: tuple[str, ...], memories: list[dict[str, Any]]) -> tuple[str, ...]:
    """Compact rows' columns with ``since``, ``until`` and ``pinned`` where some row has
    them: a value that is no longer current is never shown without its ``until``."""
    extra = tuple(k for k in ("since", "until", "pinned") if any(k in m for m in memories))
    return (*columns, *extra)


def _show_columns(memories: list[dict[str, Any]]) -> tuple[str, ...]:
    """``show``'s columns: the row keys, ``since``, and the other time keys (§20) only when
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
        if data.get("pruned"):
            parts.append("pruned:\n" + _rows_table(data["pruned"], ROW_KEYS))
        return "\n\n".join(parts)
    return _pairs(data)
