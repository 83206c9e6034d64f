"""The envelope (JSON) and human tables (tabulate, imported only for --format table)."""

from __future__ import annotations

import json

from .policy import ROW_KEYS

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

ENVELOPE_SCHEMA = "memory-store/v1"


def envelope(
    command: str | None, data: Any = None, error: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "schema": ENVELOPE_SCHEMA,
        "ok": error is None,
        "command": command,
        "data": data if error is None else None,
        "error": error,
    }


def dumps(obj: Any) -> str:
    # Not ASCII-escaped, but the three characters that some readers take for a
    # line break inside a JSON string are escaped, so the envelope is one line
    # by any definition.
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _rows_table(rows: list[dict[str, Any]], columns: tuple[str, ...] | list[str]) -> str:
    from tabulate import tabulate

    if not rows:
        return "(none)"
    return tabulate([[_cell(r.get(c)) for c in columns] for r in rows], headers=list(columns))


def _pairs(data: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    from tabulate import tabulate

    items = [[k, _cell(v)] for k, v in data.items() if k not in skip]
    return tabulate(items, tablefmt="plain") if items else ""


def table(command: str | None, data: dict[str, Any]) -> str:
    """Human-readable text for --format table."""
    if command == "mcp":  # --print-config: the configuration itself, ready to paste
        return data["config"].rstrip("\n")
    if command in ("show", "context"):
        parts = []
        head = _pairs(data, skip=("memories", "roster"))
        if head:
            parts.append(head)
        parts.append(_rows_table(data.get("memories", []), ROW_KEYS))
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
        return _rows_table(data["operations"], ("op_id", "created_at", "action", "summary", "rows"))
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
