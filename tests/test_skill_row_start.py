"""Where a row's start is, in every shape ``context`` gives it (SKILL.md section 3).

SKILL.md says: a row's start is its ``since``, else its ``occurred_at`` (the same day,
not repeated), a past value's ``since``–``until``, and where neither is given, ``show``
has it. Each clause is checked against real rows here, so the skill cannot drift from
recall's compact rows.
"""

from __future__ import annotations

from pathlib import Path

from support import ROOT, delta, ok, put


def _skill_says() -> str:
    text = (ROOT / "SKILL.md").read_text("utf-8")
    return " ".join(text.split("## 3. ", 1)[1].split("\n## ", 1)[0].split())


def test_every_compact_row_shape_has_its_start_where_the_skill_says(enabled: Path) -> None:
    said = _skill_says()
    for clause in (
        "a row's start is its `since`, else its `occurred_at` (same day, not repeated)",
        "a past value's `since`–`until` (`null`: unknown)",
        "neither: `show` has it",
    ):
        assert clause in said, clause

    put(delta(value="小林"))
    put(delta("relationship", field="stage", value="暧昧期", occurred_at="2025-05-01"))
    put(delta("relationship", field="stage", value="在一起", occurred_at="2025-09-01"))
    put(delta("relationship", field="agreement", value="周日一起吃饭"))
    put(delta(field="hobby", value="climbing"))
    # A question about the past brings past values along (documentation/time.md).
    rows = ok("context", "--subject-id", "obj-a", "--query", "我们以前是什么关系")["memories"]
    by = {(r["field"], "until" in r): r for r in rows}

    # A current row told with a date: occurred_at is its start, and no since repeats it.
    stage = by[("stage", False)]
    assert stage["occurred_at"] == "2025-09-01" and "since" not in stage
    # Without a date, a dated kind carries since.
    assert "since" in by[("agreement", False)] and "occurred_at" not in by[("agreement", False)]
    # A past value: since and until.
    past = by[("stage", True)]
    assert (past["since"], past["until"]) == ("2025-05-01", "2025-09-01")
    # Neither (a plain context leaves the start of an undated fact out): show has it.
    (hobby,) = [
        r for r in ok("context", "--subject-id", "obj-a")["memories"] if r["field"] == "hobby"
    ]
    assert "since" not in hobby and "occurred_at" not in hobby
    assert all(m["since"] for m in ok("show", "--subject-id", "obj-a")["memories"])
