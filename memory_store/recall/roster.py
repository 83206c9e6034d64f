"""The roster: who the store knows, for ``context`` without a subject (documentation/recall.md)."""

from __future__ import annotations

from .. import policy

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any


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
        if r["scope"] == "object" and r["field"] == "display_label" and r["value"]:
            entry["display_label"] = r["value"]  # an ended label (no value) is no label
    ordered = sorted(
        subjects.values(), key=lambda e: (e["last_updated"], e["subject_id"]), reverse=True
    )
    return ordered[: policy.CONTEXT_ROSTER_MAX]
