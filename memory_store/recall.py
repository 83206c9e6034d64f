"""Reading memory back: ``show`` (everything) and ``context`` (what matters, in a budget)."""

from __future__ import annotations

import json

from . import policy, rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .session import Session

_CONFIDENCE_RANK = {c: i for i, c in enumerate(policy.CONFIDENCES)}  # high=0


def show(
    session: Session, subject_id: str | None = None, scope: str | None = None
) -> dict[str, Any]:
    """Everything stored, in any consent state (the user's right of access)."""
    clauses, params = [], []
    if subject_id is not None:
        clauses.append("subject_id = ?")
        params.append(subject_id)
    if scope is not None:
        clauses.append("scope = ?")
        params.append(scope)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    found = [] if session.blank else rows.select(session.conn, where, params)
    found.sort(key=rows.storage_order)
    return {"count": len(found), "memories": [rows.public(r) for r in found]}


def _newest(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(found, key=lambda r: (r["updated_at"], r["write_seq"]), reverse=True)


def priority_order(
    mine: list[dict[str, Any]], user_rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Release 1's order for one subject, most important first.

    Object rows (the display label first), relationship rows, the user
    profile, hypotheses (highest confidence, then newest), and the most
    recent events; the budget cuts from the end.
    """
    objects = _newest([r for r in mine if r["scope"] == "object"])
    objects.sort(key=lambda r: r["field"] != "display_label")
    relationships = _newest([r for r in mine if r["scope"] == "relationship"])
    hypotheses = sorted(
        (r for r in mine if r["scope"] == "hypothesis"),
        key=lambda r: (-_CONFIDENCE_RANK[r["confidence"]], r["updated_at"], r["write_seq"]),
        reverse=True,
    )
    events = sorted(
        (r for r in mine if r["scope"] == "event"),
        key=lambda r: (r["occurred_at"] or "", r["write_seq"]),
        reverse=True,
    )[: policy.CONTEXT_EVENTS]
    return objects + relationships + user_rows + hypotheses + events


def context(
    session: Session,
    subject_id: str | None = None,
    max_chars: int = policy.CONTEXT_MAX_CHARS_DEFAULT,
) -> dict[str, Any]:
    """What matters for one subject (or the profile and a roster), within ``max_chars``."""
    session.gate(session.settings())
    if session.blank:
        found = []
    elif subject_id is None:
        found = rows.select(session.conn)
    else:
        found = rows.select(
            session.conn, " WHERE subject_id IN (?, ?)", (policy.USER_SUBJECT, subject_id)
        )
    user_rows = _newest([r for r in found if r["scope"] == "user"])
    result: dict[str, Any] = {"subject_id": subject_id}
    if subject_id is None or subject_id == policy.USER_SUBJECT:
        ranked = user_rows
        if subject_id is None:
            result["roster"] = roster([r for r in found if r["scope"] != "user"])
    else:
        mine = [r for r in found if r["subject_id"] == subject_id and r["scope"] != "user"]
        ranked = priority_order(mine, user_rows)
        result["subject_known"] = bool(mine)
    memories, omitted = fit([rows.public(r) for r in ranked], max_chars)
    result.update(memories=memories, truncated=omitted > 0, omitted=omitted, max_chars=max_chars)
    return result


def roster(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Known subjects, most recently updated first: label, counts per scope, last update."""
    subjects: dict[str, dict[str, Any]] = {}
    for r in found:
        entry = subjects.setdefault(
            r["subject_id"],
            {
                "subject_id": r["subject_id"],
                "display_label": None,
                "counts": {},
                "last_updated": "",
            },
        )
        entry["counts"][r["scope"]] = entry["counts"].get(r["scope"], 0) + 1
        entry["last_updated"] = max(entry["last_updated"], r["updated_at"])
        if r["scope"] == "object" and r["field"] == "display_label":
            entry["display_label"] = r["value"]
    ordered = sorted(
        subjects.values(), key=lambda e: (e["last_updated"], e["subject_id"]), reverse=True
    )
    return ordered[: policy.CONTEXT_ROSTER_MAX]


def fit(memories: list[dict[str, Any]], max_chars: int) -> tuple[list[dict[str, Any]], int]:
    """Drop from the end (lowest priority) until json.dumps(memories) fits in max_chars.

    The length of a list's JSON is 2 + the items' lengths + 2 per separator, so
    each item is measured once.
    """
    if len(json.dumps(memories, ensure_ascii=False)) <= max_chars:
        return memories, 0  # the common case: one serialization, nothing dropped
    sizes = [len(json.dumps(m, ensure_ascii=False)) for m in memories]
    total = 2 + sum(sizes) + 2 * max(len(sizes) - 1, 0)
    keep = len(memories)
    while keep and total > max_chars:
        keep -= 1
        total -= sizes[keep] + (2 if keep else 0)
    return memories[:keep], len(memories) - keep
