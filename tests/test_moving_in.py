"""Moving in from another assistant (SKILL.md section 4, references/protocol.md).

The memories a person pastes from ChatGPT or Claude, once they confirm the list, go in
as ``user_explicit`` deltas in one ``apply`` batch: one operation, so one undo reverts
the whole move; the caps and the sensitive rules hold for it as for any write. The
batch the protocol shows is the one tested first, as written there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from support import ROOT, fails, ok

SOURCE = "moved from another assistant, 2026-12-01"


def _documented_batch() -> dict[str, Any]:
    text = (ROOT / "references" / "protocol.md").read_text("utf-8")
    section = text.split("### Moving in from another assistant", 1)[1].split("\n## ", 1)[0]
    (body,) = re.findall(r"<<'EOF'\n(.*?)\nEOF", section, re.S)
    return dict(json.loads(body))


def _pasted(n: int) -> list[dict[str, Any]]:
    """What a person's saved memories become: the user's own profile and the people in
    their life, every one in their own words."""
    items = [
        ("user", None, "preference_reply_style", "prefers short, direct answers"),
        ("user", None, "goal_fitness", "runs 5 km three times a week"),
        ("user", None, "boundary_weekends", "keeps Sundays free of work"),
        ("object", "obj-m", "display_label", "Mia (sister)"),
        ("object", "obj-m", "fact_city", "lives in Lisbon"),
        ("relationship", "obj-m", "agreement_calls", "we call every Sunday evening"),
        ("object", "obj-d", "display_label", "Dana (manager)"),
        ("event", "obj-d", "promotion_talk", "Dana promised to discuss a promotion"),
    ]
    out = []
    for scope, subject, field, value in items[:n]:
        d = {"scope": scope, "field": field, "value": value}
        d.update(source_type="user_explicit", source_ref=SOURCE)
        if subject:
            d["subject_id"] = subject
        if scope == "event":
            d["occurred_at"] = "2026-11-20"
        out.append(d)
    return out


def test_the_documented_batch_is_one_undo_step(enabled: Path) -> None:
    batch = _documented_batch()
    assert {d["source_type"] for d in batch["deltas"]} == {"user_explicit"}
    done = ok("apply", "--json", json.dumps(batch, ensure_ascii=False))
    assert done["op_id"] and [o["op_id"] for o in ok("log")["operations"]] == [done["op_id"]]
    assert ok("show")["count"] == len(batch["deltas"])
    undone = ok("undo")
    assert undone["undone_op_id"] == done["op_id"]
    assert ok("show")["count"] == 0 and ok("log")["operations"] == []


def test_a_move_beside_earlier_memories_is_undone_alone(enabled: Path) -> None:
    earlier = ok("apply", "--json", json.dumps(_pasted(1)[0]))
    moved = ok("apply", "--json", json.dumps({"deltas": _pasted(8)[1:]}, ensure_ascii=False))
    assert len(moved["results"]) == 7
    assert [o["op_id"] for o in ok("log")["operations"]] == [moved["op_id"], earlier["op_id"]]
    ok("undo")  # "undo that": the whole move, and only it
    assert [m["field"] for m in ok("show")["memories"]] == ["preference_reply_style"]


def test_a_sensitive_item_refuses_the_batch_and_nothing_moves_in(enabled: Path) -> None:
    items = _pasted(4)
    items.append(
        {
            "scope": "user",
            "field": "fact_wifi",
            "value": "wifi password is bluefish77",
            "source_type": "user_explicit",
        }
    )
    refused = fails("SENSITIVE_REJECTED", "apply", "--json", json.dumps({"deltas": items}))
    assert refused.error["details"]["index"] == 4
    assert "bluefish77" not in refused.stdout
    assert ok("show")["count"] == 0 and ok("log")["operations"] == []


def test_more_than_one_batch_holds_is_refused_whole(enabled: Path) -> None:
    items = [
        {
            "scope": "user",
            "field": f"preference_{i}",
            "value": f"likes thing {i}",
            "source_type": "user_explicit",
        }
        for i in range(21)
    ]
    fails("INVALID_DELTA", "apply", "--json", json.dumps({"deltas": items}))
    assert ok("show")["count"] == 0
