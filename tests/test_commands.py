"""documentation/commands.md#what-each-command-promises: show, context, log, forget, forget-object, revoke, clear, export (never into
the store's directory, documentation/guarantees.md#robustness), and the refusal of destructive commands without --confirm,
in the words of the face that was used (documentation/variables.md#commands-handed-to-the-person-name-the-store)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from support import (
    DB_NAME,
    TIME_KEYS,
    as_shown,
    db_connect,
    delta,
    fails,
    left_after_revoke_delete,
    ok,
    store_files,
    values_of,
)

from memory_store import MemoryStore

ZH = "双方已确认进入排他约会"
REFERENCE_DELTA = (
    '{"scope":"relationship","subject_id":"obj-a","field":"stage","value":"双方已确认进入排他约会",'
    '"source_type":"user_report","source_ref":"turn:当前任务","occurred_at":"2026-08-02",'
    '"confidence":"high","sensitive":false}'
)


def put(*deltas: dict[str, Any]) -> dict[str, Any]:
    body: Any = deltas[0] if len(deltas) == 1 else {"deltas": list(deltas)}
    return ok("apply", "--json", json.dumps(body, ensure_ascii=False))


def ids(rows: list[dict[str, Any]]) -> set[str]:
    return {r["id"] for r in rows}


def files(store: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(store.iterdir())}


def raw_bytes(store: Path) -> bytes:
    return b"".join(p.read_bytes() for p in store_files(store))


def op_ids() -> list[str]:
    return [o["op_id"] for o in ok("log")["operations"]]


def backdate(store: Path, subject: str, when: str) -> None:
    conn = db_connect(store)
    try:
        with conn:
            conn.execute(
                "UPDATE memories SET updated_at = ?, created_at = ? WHERE subject_id = ?",
                (when, when, subject),
            )
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# show


def test_show_filters(enabled: Path) -> None:
    put(
        delta("user", field="goal", value="认真的关系"),
        delta("object", field="display_label", value="小A"),
        delta("relationship", field="stage", value=ZH),
        delta("event", field="invitation", value="周六吃饭"),
        delta("hypothesis", field="intent", value="也许有好感"),
        delta("object", subject="obj-b", field="display_label", value="小B"),
        delta("event", subject="obj-b", field="conflict", value="吵架"),
    )
    everything = ok("show")
    assert everything["count"] == 7 == len(everything["memories"])
    a = ok("show", "--subject-id", "obj-a")
    assert a["count"] == 4
    assert {m["subject_id"] for m in a["memories"]} == {"obj-a"}
    assert {m["scope"] for m in a["memories"]} == {"object", "relationship", "event", "hypothesis"}
    events = ok("show", "--scope", "event")
    assert events["count"] == 2 and {m["scope"] for m in events["memories"]} == {"event"}
    both = ok("show", "--subject-id", "obj-b", "--scope", "event")
    assert [m["value"] for m in both["memories"]] == ["吵架"]
    user = ok("show", "--subject-id", "user")
    assert [m["value"] for m in user["memories"]] == ["认真的关系"]
    assert ok("show", "--subject-id", "nobody")["count"] == 0
    assert ok("show", "--scope", "user")["count"] == 1


def test_show_in_every_consent_state(enabled: Path) -> None:
    put(delta(field="display_label", value="小A"))
    expected = ok("show")
    assert expected["count"] == 1
    ok("pause")
    assert ok("show") == expected
    ok("resume")
    ok("revoke", "--confirm")
    assert ok("show") == expected
    assert ok("show", "--subject-id", "obj-a", "--scope", "object") == {
        **expected,
        "subject_id": "obj-a",
    }


# ---------------------------------------------------------------------------
# context


def _event(subject: str, day: int, value: str) -> dict[str, Any]:
    return delta(
        "event", subject=subject, field="milestone", value=value, occurred_at=f"2026-03-{day:02d}"
    )


def test_context_with_a_subject(enabled: Path) -> None:
    user = put(
        delta("user", field="goal", value="长期关系"),
        delta("user", field="boundary", value="不熬夜聊天"),
    )
    mine = put(
        delta("object", field="display_label", value="小A"),
        delta("object", field="mbti", value="INFJ"),
        delta("relationship", field="stage", value=ZH),
        delta("relationship", field="next_goal", value="见家人"),
        delta("hypothesis", field="intent", value="认真", confidence="medium"),
        delta("hypothesis", field="attachment_style", value="安全型", confidence="low"),
    )
    # Ten events written in scrambled date order: only the 8 latest by occurred_at count.
    days = [5, 1, 9, 3, 10, 2, 8, 4, 7, 6]
    written = put(*[_event("obj-a", d, f"事件{d}") for d in days])
    other = put(
        delta("object", subject="obj-b", field="display_label", value="小B"),
        delta("relationship", subject="obj-b", field="stage", value="刚认识"),
        delta("event", subject="obj-b", field="invitation", value="看电影"),
        delta("hypothesis", subject="obj-b", field="intent", value="不确定"),
    )
    data = ok("context", "--subject-id", "obj-a", "--max-chars", "8000")
    assert data["subject_id"] == "obj-a"
    assert data["truncated"] is False and data["omitted"] == 0
    assert data["max_chars"] == 8000
    got = data["memories"]
    by_day = {int(r["memory"]["occurred_at"][-2:]): r["memory"]["id"] for r in written["results"]}
    expected = (
        ids([r["memory"] for r in user["results"]])
        | ids([r["memory"] for r in mine["results"]])
        | {by_day[d] for d in range(3, 11)}
    )
    assert ids(got) == expected
    assert len(got) == len(expected)
    assert not ids(got) & ids([r["memory"] for r in other["results"]])
    # Compact rows name their subject only when it is not the one asked for.
    assert {m.get("subject_id") for m in got} == {"user", None}
    assert {m["scope"] for m in got if m.get("subject_id") == "user"} == {"user"}
    hyps = [m for m in got if m["scope"] == "hypothesis"]
    assert len(hyps) == 2 and all(m["confidence"] in ("medium", "low") for m in hyps)
    events = [m for m in got if m["scope"] == "event"]
    assert sorted(m["occurred_at"] for m in events) == [f"2026-03-{d:02d}" for d in range(3, 11)]
    assert "roster" not in data or not data["roster"]


def test_context_for_an_unknown_subject_gives_only_the_profile(enabled: Path) -> None:
    put(delta("user", field="goal", value="长期关系"), delta(field="display_label", value="小A"))
    data = ok("context", "--subject-id", "obj-zzz")
    assert {m["subject_id"] for m in data["memories"]} == {"user"}


def test_context_without_a_subject_is_profile_and_roster(enabled: Path) -> None:
    put(
        delta("user", field="goal", value="长期关系"),
        delta("object", field="display_label", value="小A"),
        delta("relationship", field="stage", value=ZH),
        delta("event", field="invitation", value="周六吃饭"),
        delta("hypothesis", subject="obj-b", field="intent", value="不确定"),
    )
    data = ok("context")
    assert data["subject_id"] is None
    assert [m["field"] for m in data["memories"]] == ["goal"]
    assert {m["scope"] for m in data["memories"]} == {"user"}
    roster = {e["subject_id"]: e for e in data["roster"]}
    assert set(roster) == {"obj-a", "obj-b"}
    for e in data["roster"]:
        assert set(e) >= {"subject_id", "display_label", "counts", "last_updated"}
        assert isinstance(e["last_updated"], str) and e["last_updated"]
    assert roster["obj-a"]["display_label"] == "小A"
    assert roster["obj-b"]["display_label"] is None
    counts_a = roster["obj-a"]["counts"]
    assert counts_a.get("object") == 1 and counts_a.get("relationship") == 1
    assert counts_a.get("event") == 1
    assert roster["obj-b"]["counts"].get("hypothesis") == 1
    # never every subject's details
    assert ZH not in json.dumps(data, ensure_ascii=False)
    assert "周六吃饭" not in json.dumps(data, ensure_ascii=False)


def test_context_roster_is_at_most_fifty_most_recent(enabled: Path) -> None:
    put(*[delta(subject=f"old-{i}", field="display_label", value=f"旧{i}") for i in range(2)])
    backdate(enabled, "old-0", "2020-01-01T00:00:00Z")
    backdate(enabled, "old-1", "2020-01-02T00:00:00Z")
    for start in (0, 20, 40):
        put(
            *[
                delta(subject=f"s-{i:02d}", field="display_label", value=f"人{i}")
                for i in range(start, min(start + 20, 50))
            ]
        )
    roster = ok("context", "--max-chars", "8000")["roster"]  # the roster counts against it
    assert len(roster) == 50
    assert {e["subject_id"] for e in roster} == {f"s-{i:02d}" for i in range(50)}
    assert ok("status")["counts"]["total"] == 52


def _build_budget_store() -> tuple[list[list[str]], dict[str, dict[str, Any]]]:
    """Rows of every kind with long Chinese values; returns tiers lowest priority first."""
    filler = "记忆" * 45  # 90 code points, 270 UTF-8 bytes

    def v(tag: str) -> str:
        return f"{tag}:{filler}"

    tiers: list[list[str]] = [[], [], [], [], []]  # events, hyps, user, relationship, object
    rows: dict[str, dict[str, Any]] = {}
    # Ordered kinds are written one generation per apply so "oldest" is unambiguous.
    gens = [
        (
            delta("user", field="goal", value=v("u1")),
            delta("hypothesis", field="intent", value=v("h1"), confidence="low"),
        ),
        (
            delta("user", field="boundary", value=v("u2")),
            delta("hypothesis", field="interest_level", value=v("h2"), confidence="low"),
        ),
        (
            delta("user", field="preference", value=v("u3")),
            delta("hypothesis", field="attachment_style", value=v("h3"), confidence="high"),
        ),
    ]
    user_ids, hyp = [], {}
    for pair in gens:
        res = put(*pair)["results"]
        user_ids.append(res[0]["memory"]["id"])
        hyp[res[1]["memory"]["value"][:2]] = res[1]["memory"]["id"]
        for r in res:
            rows[r["memory"]["id"]] = r["memory"]
    res = put(
        delta("object", field="display_label", value="小A"),
        delta("object", field="mbti", value=v("o2")),
        delta("object", field="fact", value=v("o3")),
        delta("relationship", field="stage", value=v("r1")),
        delta("relationship", field="agreement", value=v("r2")),
        delta("relationship", field="next_goal", value=v("r3")),
        # nine events; the oldest (day 1) is never part of the context
        *[_event("obj-a", d, v(f"e{d}")) for d in (4, 9, 1, 7, 2, 5, 8, 3, 6)],
    )["results"]
    for r in res:
        m = r["memory"]
        rows[m["id"]] = m
        if m["scope"] == "object":
            tiers[4].append(m["id"])
        elif m["scope"] == "relationship":
            tiers[3].append(m["id"])
    events = sorted(
        (m for m in rows.values() if m["scope"] == "event"), key=lambda m: m["occurred_at"]
    )
    tiers[0] = [m["id"] for m in events[1:]]  # oldest first
    tiers[1] = [hyp["h1"], hyp["h2"], hyp["h3"]]  # lowest confidence, then oldest, first
    tiers[2] = user_ids  # least recently updated first
    return tiers, rows


def _size(rows: list[dict[str, Any]]) -> int:
    return len(json.dumps(rows, ensure_ascii=False))


def test_context_budget_drops_lowest_priority_first(enabled: Path) -> None:
    tiers, rows = _build_budget_store()
    order = [m for tier in tiers for m in tier]  # drop order
    ordered_tiers = {0, 1, 2}  # within relationship / object rows the order is free
    rank = {mid: i for i, mid in enumerate(order)}
    tier_of = {mid: t for t, tier in enumerate(tiers) for mid in tier}
    full = ok("context", "--subject-id", "obj-a", "--max-chars", "8000")
    assert full["truncated"] is False
    assert ids(full["memories"]) == set(order)
    assert _size(full["memories"]) <= 8000
    # The rows as release 1 returned them (the keys of references/memory-rules.md#the-five-kinds) fit as well.
    whole = [{k: v for k, v in rows[m].items() if k not in TIME_KEYS} for m in order]
    assert _size(whole) <= 8000

    seen_truncated = False
    previous: set[str] | None = None
    budgets = [
        500,
        700,
        1000,
        1500,
        2000,
        2500,
        3000,
        3500,
        4000,
        4200,
        4500,
        5000,
        5500,
        6000,
        8000,
    ]
    for n in budgets:
        data = ok("context", "--subject-id", "obj-a", "--max-chars", str(n))
        memories = data["memories"]
        kept = ids(memories)
        dropped = set(order) - kept
        assert kept <= set(order)
        assert _size(memories) <= n, n
        assert data["max_chars"] == n
        assert data["omitted"] == len(dropped), n
        assert data["truncated"] is (len(dropped) > 0)
        seen_truncated |= data["truncated"]
        for d in dropped:
            for k in kept:
                if tier_of[d] == tier_of[k]:
                    if tier_of[d] in ordered_tiers:
                        assert rank[d] < rank[k], (n, rows[d]["value"][:3], rows[k]["value"][:3])
                else:
                    assert tier_of[d] < tier_of[k], (n, rows[d]["value"][:3], rows[k]["value"][:3])
        if dropped:
            # Nothing was dropped that fitted: putting back the most important dropped
            # row overflows the budget.
            top_tier = max(tier_of[d] for d in dropped)
            candidates = [d for d in dropped if tier_of[d] == top_tier]
            if top_tier in ordered_tiers:
                candidates = [max(candidates, key=lambda d: rank[d])]
            assert any(_size(memories + [rows[c]]) > n for c in candidates), n
        if previous is not None:
            assert previous <= kept, n  # a bigger budget never loses a row
        previous = kept
    assert seen_truncated
    # At the smallest budget the subject's identity survives rather than the profile.
    small = ok("context", "--subject-id", "obj-a", "--max-chars", "500")
    assert small["memories"], small
    assert {m["scope"] for m in small["memories"]} == {"object"}


def test_context_budget_with_long_profile_keeps_subject_identity(enabled: Path) -> None:
    put(*[delta("user", field=f"pref_{i}", value="偏好" * 99) for i in range(10)])
    put(delta(field="display_label", value="小A"))
    data = ok("context", "--subject-id", "obj-a", "--max-chars", "1000")
    assert data["truncated"] is True
    assert "小A" in [m["value"] for m in data["memories"]]
    assert _size(data["memories"]) <= 1000


def test_context_without_subject_respects_budget(enabled: Path) -> None:
    put(*[delta("user", field=f"pref_{i}", value="偏好" * 99) for i in range(12)])
    data = ok("context", "--max-chars", "1500")
    assert _size(data["memories"]) <= 1500
    assert data["truncated"] is True
    assert data["omitted"] == 12 - len(data["memories"])


def test_context_never_writes(enabled: Path) -> None:
    put(
        delta("user", field="goal", value="长期关系"),
        delta(field="display_label", value="小A"),
        _event("obj-a", 1, "见面"),
    )
    before = files(enabled)
    mtimes = {p.name: p.stat().st_mtime_ns for p in enabled.iterdir()}
    for args in (
        ["context"],
        ["context", "--subject-id", "obj-a"],
        ["context", "--subject-id", "obj-a", "--max-chars", "500"],
        ["context", "--subject-id", "nobody"],
    ):
        ok(*args)
    assert files(enabled) == before
    assert {p.name: p.stat().st_mtime_ns for p in enabled.iterdir()} == mtimes


# ---------------------------------------------------------------------------
# log


def test_log_newest_first_with_row_counts(enabled: Path) -> None:
    assert ok("log")["operations"] == []
    one = put(delta(field="display_label", value="小A"))
    three = put(
        delta(field="mbti", value="INFJ"),
        delta("relationship", field="stage", value=ZH),
        delta("user", field="goal", value="长期关系"),
    )
    two = put(
        delta(field="mbti", value="ENFP"), delta(subject="obj-b", field="display_label", value="B")
    )
    ops = ok("log")["operations"]
    assert [o["op_id"] for o in ops] == [two["op_id"], three["op_id"], one["op_id"]]
    assert [o["rows"] for o in ops] == [2, 3, 1]
    for o in ops:
        assert o["action"] and isinstance(o["summary"], str) and o["summary"]
        assert o["created_at"].endswith("Z")
    # an unchanged write records no operation
    again = put(delta(field="mbti", value="ENFP"))
    assert again["op_id"] is None
    assert len(ok("log")["operations"]) == 3
    assert ok("status")["undo_available"] == 3


# ---------------------------------------------------------------------------
# forget


def test_forget_removes_row_and_its_operations(enabled: Path) -> None:
    x = put(delta(field="mbti", value="FORGET-ME-1"))
    y = put(delta(subject="obj-b", field="display_label", value="KEEP-B"))
    x2 = put(delta(field="mbti", value="FORGET-ME-2"))
    xid = x["results"][0]["memory"]["id"]
    assert x2["results"][0]["memory"]["id"] == xid
    data = ok("forget", xid, "--confirm")
    assert data["deleted"] == 1
    assert data["operations_removed"] == 2
    assert isinstance(data["erased"], bool)
    assert xid not in ids(ok("show")["memories"])
    assert op_ids() == [y["op_id"]]
    if data["erased"]:
        blob = raw_bytes(enabled)
        assert b"FORGET-ME-1" not in blob and b"FORGET-ME-2" not in blob
    # the other operation is still undoable
    assert ok("undo")["undone_op_id"] == y["op_id"]
    assert ok("show")["count"] == 0


def test_forget_unknown_id_changes_nothing(enabled: Path) -> None:
    put(delta(field="display_label", value="小A"))
    before = (ok("show"), ok("log"))
    fails("MEMORY_NOT_FOUND", "forget", "m-0123456789abcdef", "--confirm")
    fails("MEMORY_NOT_FOUND", "forget", "obj-a", "--confirm")
    assert (ok("show"), ok("log")) == before


def test_forget_a_row_that_survives_only_in_undo_snapshots(enabled: Path) -> None:
    keep = put(delta(subject="obj-b", field="display_label", value="B"))
    created = put(delta(field="mbti", value="SNAPSHOT-ONLY"))
    mid = created["results"][0]["memory"]["id"]
    deleted = ok("apply", "--json", json.dumps({"action": "delete", "id": mid}))
    assert deleted["results"][0]["action"] == "deleted"
    assert mid not in ids(ok("show")["memories"])
    data = ok("forget", mid, "--confirm")
    assert data["deleted"] == 0
    assert data["operations_removed"] == 2
    assert op_ids() == [keep["op_id"]]
    if data["erased"]:
        assert b"SNAPSHOT-ONLY" not in raw_bytes(enabled)
    # now it is gone everywhere
    fails("MEMORY_NOT_FOUND", "forget", mid, "--confirm")


# ---------------------------------------------------------------------------
# forget-object


def test_forget_object_removes_every_scope_and_only_its_operations(enabled: Path) -> None:
    a_only = put(
        delta("object", field="display_label", value="OBJ-A-LABEL"),
        delta("relationship", field="stage", value="OBJ-A-STAGE"),
    )
    b_only = put(delta("object", subject="obj-b", field="display_label", value="B"))
    mixed = put(
        delta("event", field="invitation", value="OBJ-A-EVENT"),
        delta("hypothesis", field="intent", value="OBJ-A-HYP"),
        delta("event", subject="obj-b", field="conflict", value="B-EVENT"),
    )
    user = put(delta("user", field="goal", value="长期关系"))
    data = ok("forget-object", "obj-a", "--confirm")
    assert data["deleted"] == 4
    assert data["operations_removed"] == 2
    remaining = ok("show")["memories"]
    assert "obj-a" not in {m["subject_id"] for m in remaining}
    assert {m["value"] for m in remaining} == {"B", "B-EVENT", "长期关系"}
    assert op_ids() == [user["op_id"], b_only["op_id"]]
    assert a_only["op_id"] not in op_ids() and mixed["op_id"] not in op_ids()
    if data["erased"]:
        blob = raw_bytes(enabled)
        for v in (b"OBJ-A-LABEL", b"OBJ-A-STAGE", b"OBJ-A-EVENT", b"OBJ-A-HYP"):
            assert v not in blob
    ok("undo")
    assert ok("undo")["undone_op_id"] == b_only["op_id"]
    fails("SUBJECT_NOT_FOUND", "forget-object", "obj-a", "--confirm")


def test_forget_object_finds_a_subject_only_in_snapshots(enabled: Path) -> None:
    put(delta(field="display_label", value="GHOST"))
    ok(
        "apply",
        "--json",
        json.dumps(
            {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "display_label"}
        ),
    )
    assert ok("show")["count"] == 0
    data = ok("forget-object", "obj-a", "--confirm")
    assert data["deleted"] == 0 and data["operations_removed"] == 2
    assert ok("log")["operations"] == []


def test_forget_object_unknown_subject_lists_known_ones(enabled: Path) -> None:
    put(
        delta(field="display_label", value="A"),
        delta(subject="obj-b", field="display_label", value="B"),
    )
    before = (ok("show"), ok("log"))
    r = fails("SUBJECT_NOT_FOUND", "forget-object", "obj-c", "--confirm")
    lists = [v for v in r.error["details"].values() if isinstance(v, list)]
    assert any({"obj-a", "obj-b"} <= set(v) for v in lists), r.error
    assert (ok("show"), ok("log")) == before


def test_forget_object_user_forgets_the_profile(enabled: Path) -> None:
    put(
        delta("user", field="goal", value="PROFILE-GOAL"), delta("user", field="mbti", value="INTJ")
    )
    keep = put(delta(field="display_label", value="A"))
    data = ok("forget-object", "user", "--confirm")
    assert data["deleted"] == 2
    assert data["operations_removed"] == 1
    assert {m["scope"] for m in ok("show")["memories"]} == {"object"}
    assert op_ids() == [keep["op_id"]]
    assert ok("context", "--subject-id", "obj-a")["memories"][0]["value"] == "A"


# ---------------------------------------------------------------------------
# revoke


def test_revoke_keeps_data_and_pauses(enabled: Path) -> None:
    put(delta(field="display_label", value="小A"))
    before = ok("show")
    log_before = ok("log")
    data = ok("revoke", "--confirm")
    assert data["consent_enabled"] is False and data["deleted"] is False
    status = ok("status")
    assert status["consent_enabled"] is False and status["paused"] is True and status["exists"]
    assert ok("show") == before
    assert ok("log") == log_before
    fails("CONSENT_REQUIRED", "apply", "--json", json.dumps(delta()))
    fails("CONSENT_REQUIRED", "context")


def test_revoke_delete_removes_files_keeps_empty_dir(enabled: Path) -> None:
    put(delta(field="display_label", value="REVOKE-DELETE-ME"))
    data = ok("revoke", "--delete", "--confirm")
    assert data["consent_enabled"] is False and data["deleted"] is True
    assert enabled.is_dir()
    assert left_after_revoke_delete(enabled) == []
    status = ok("status")
    assert status["exists"] is False and status["consent_enabled"] is False
    fails("NOT_INITIALIZED", "show")
    # and it can be repeated
    ok("revoke", "--delete", "--confirm")
    assert left_after_revoke_delete(enabled) == []


def test_revoke_delete_while_paused_and_revoked(enabled: Path) -> None:
    put(delta(field="display_label", value="A"))
    ok("pause")
    ok("revoke", "--confirm")
    ok("revoke", "--delete", "--confirm")
    assert left_after_revoke_delete(enabled) == []


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all\n" * 100, b"SQLite format 3\x00" + b"\xab" * 8000],
    ids=["text", "bad-sqlite"],
)
def test_revoke_delete_works_on_a_corrupt_file(private_store: Path, content: bytes) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / DB_NAME).write_bytes(content)
    (private_store / (DB_NAME + "-wal")).write_bytes(b"junk wal")
    ok("revoke", "--delete", "--confirm")
    assert private_store.is_dir()
    assert left_after_revoke_delete(private_store) == []
    assert ok("status")["exists"] is False


# ---------------------------------------------------------------------------
# clear


@pytest.mark.parametrize("state", ["enabled", "paused", "revoked"])
def test_clear_removes_rows_and_history_keeps_consent(enabled: Path, state: str) -> None:
    put(delta(field="display_label", value="CLEAR-ME"), delta("user", field="goal", value="目标"))
    put(delta(field="mbti", value="INFJ"))
    if state == "paused":
        ok("pause")
    elif state == "revoked":
        ok("revoke", "--confirm")
    status_before = ok("status")
    data = ok("clear", "--confirm")
    assert data["deleted"] == 3
    assert data["operations_removed"] == 2
    assert ok("show")["count"] == 0
    assert ok("log")["operations"] == []
    fails("NOTHING_TO_UNDO", "undo")
    status = ok("status")
    for key in ("consent_enabled", "consent_at", "paused", "exists", "policy_version"):
        assert status[key] == status_before[key], key
    assert status["counts"]["total"] == 0 and status["undo_available"] == 0
    if data["erased"]:
        assert b"CLEAR-ME" not in raw_bytes(enabled)
    if state == "enabled":
        put(delta(field="display_label", value="again"))


# ---------------------------------------------------------------------------
# export


def test_export_document(enabled: Path) -> None:
    put(delta(field="mbti", value="OVERWRITTEN-OLD"))
    # A correction keeps no past value (documentation/time.md#writing): the old value survives only in a snapshot.
    put(
        delta(field="mbti", value="INFJ", correction=True),
        delta("user", field="goal", value="长期关系"),
    )
    doc = ok("export")["document"]
    assert doc["format"] == "memory-store-export/v3"
    assert as_shown(doc) == ok("show")["memories"]
    assert doc["policy_version"] == 1
    assert True in values_of(doc, "enabled") + values_of(doc, "consent_enabled")
    text = json.dumps(doc, ensure_ascii=False)
    assert "OVERWRITTEN-OLD" not in text  # no undo snapshots
    assert "snapshot" not in text
    assert "operations" not in doc


def test_export_output_file(enabled: Path, tmp_path: Path) -> None:
    put(delta(field="display_label", value="小A"))
    out = tmp_path / "export.json"
    data = ok("export", "--output", str(out))
    assert Path(data["path"]) == out
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    doc = json.loads(out.read_text("utf-8"))
    assert doc["format"] == "memory-store-export/v3"
    assert as_shown(doc) == ok("show")["memories"]
    assert "小A" in out.read_text("utf-8")
    # never overwrite
    before = out.read_bytes()
    put(delta(field="mbti", value="INFJ"))
    fails("INVALID_ARGUMENTS", "export", "--output", str(out))
    assert out.read_bytes() == before
    # not through a symlink either
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")
    fails("INVALID_ARGUMENTS", "export", "--output", str(link))
    assert not (tmp_path / "target.json").exists()


def test_export_in_every_consent_state(enabled: Path, tmp_path: Path) -> None:
    put(delta(field="display_label", value="A"))
    ok("pause")
    assert values_of(ok("export")["document"], "paused") == [True]
    ok("revoke", "--confirm")
    doc = ok("export")["document"]
    assert False in values_of(doc, "enabled") + values_of(doc, "consent_enabled")
    assert True not in values_of(doc, "enabled") + values_of(doc, "consent_enabled")
    assert len(doc["memories"]) == 1
    ok("export", "--output", str(tmp_path / "revoked.json"))


@pytest.mark.parametrize(
    "name", ["memory.sqlite3-wal", "memory.sqlite3-shm", "memory.sqlite3-journal", "export.json"]
)
def test_export_refuses_a_path_inside_the_store_directory(enabled: Path, name: str) -> None:
    put(delta(value="别导出到这里"))
    r = fails("INVALID_ARGUMENTS", "export", "--output", str(enabled / name))
    assert "store's directory" in r.error["message"]
    assert sorted(p.name for p in enabled.iterdir() if p.name == name) == []
    assert ok("show")["count"] == 1


def test_export_refuses_the_store_directory_reached_another_way(
    enabled: Path, tmp_path: Path
) -> None:
    link = tmp_path / "alias"
    link.symlink_to(enabled)
    (enabled / "sub").mkdir()
    for target in (
        link / "copy.json",
        enabled / "sub" / "copy.json",
        enabled / ".." / enabled.name / "c.json",
    ):
        fails("INVALID_ARGUMENTS", "export", "--output", str(target))
    assert not (enabled / "copy.json").exists() and not (enabled / "sub" / "copy.json").exists()
    assert ok("export", "--output", str(tmp_path / "outside.json"))["count"] == 0


# ---------------------------------------------------------------------------
# destructive commands need --confirm


@pytest.mark.parametrize("state", ["enabled", "paused", "revoked"])
def test_destructive_commands_need_confirm(enabled: Path, state: str) -> None:
    res = put(delta(field="display_label", value="A"), delta("user", field="goal", value="G"))
    mid = res["results"][0]["memory"]["id"]
    if state == "paused":
        ok("pause")
    elif state == "revoked":
        ok("revoke", "--confirm")
    before = files(enabled)
    show, log, status = ok("show"), ok("log"), ok("status")
    for args in (
        ["forget", mid],
        ["forget-object", "obj-a"],
        ["forget-object", "user"],
        ["revoke"],
        ["revoke", "--delete"],
        ["clear"],
        ["enable"],
    ):
        r = fails("CONFIRMATION_REQUIRED", *args)
        assert r.code == 5
        assert files(enabled) == before, args
    assert (ok("show"), ok("log"), ok("status")) == (show, log, status)


def test_forget_unknown_without_confirm_is_confirmation_required(enabled: Path) -> None:
    fails("CONFIRMATION_REQUIRED", "forget", "m-0123456789abcdef")
    fails("CONFIRMATION_REQUIRED", "forget-object", "nobody")


def test_missing_confirmation_in_each_faces_words(private_store: Path) -> None:
    from memory_store import MemoryStoreError

    failed = fails("CONFIRMATION_REQUIRED", "revoke", "--delete")
    assert failed.error["message"].startswith("revoke --delete needs --confirm")
    assert "confirm=True" not in failed.error["message"]
    store = MemoryStore(private_store)
    with pytest.raises(MemoryStoreError) as raised:
        store.forget_object("obj-a")
    assert raised.value.code == "CONFIRMATION_REQUIRED"
    assert raised.value.message.startswith("forget_object needs confirm=True")
    assert "--confirm" not in raised.value.message
    assert not private_store.exists()


# ---------------------------------------------------------------------------
# the reference example, verbatim


def test_reference_example(enabled: Path) -> None:
    compact = ok("apply", "--dry-run", "--json", REFERENCE_DELTA)["results"][0]["memory"]
    applied = ok("apply", "--verbose", "--json", REFERENCE_DELTA)
    assert applied["op_id"]
    [result] = applied["results"]
    assert result["action"] == "created"
    memory = result["memory"]
    # Compact by default (documentation/mcp.md#the-tools): the subject the delta named, the timestamps, the
    # evidence of a non-hypothesis and the time of a row without history are left out.
    assert compact == {
        "id": compact["id"],
        "scope": "relationship",
        "field": "stage",
        "value": ZH,
        "occurred_at": "2026-08-02",
        "confidence": "high",
        "source_type": "user_report",
    }
    assert memory["scope"] == "relationship"
    assert memory["subject_id"] == "obj-a"
    assert memory["field"] == "stage"
    assert memory["value"] == ZH
    assert memory["source_type"] == "user_report"
    assert memory["source_ref"] == "turn:当前任务"
    assert memory["occurred_at"] == "2026-08-02"
    assert memory["confidence"] == "high"
    assert "obj-a" in applied["summary"] and "stage" in applied["summary"]
    assert "undo" in applied["undo_hint"]

    ctx = ok("context", "--subject-id", "obj-a", "--max-chars", "4000")
    # Compact (documentation/recall.md#what-context---query-returns): the subject asked for, the timestamps and the
    # evidence of a non-hypothesis are left out.
    # Its since (documentation/time.md#recall) is its occurred_at's day, which the row already carries.
    dropped = ("subject_id", "created_at", "updated_at", "source_ref", *TIME_KEYS)
    assert ctx["memories"] == [{k: v for k, v in memory.items() if k not in dropped}]
    assert ctx["truncated"] is False and ctx["omitted"] == 0

    undone = ok("undo")
    assert undone["undone_op_id"] == applied["op_id"]
    assert undone["removed"] == [memory]
    assert ok("show")["count"] == 0

    again = ok("apply", "--json", REFERENCE_DELTA)
    assert again["results"][0]["action"] == "created"
    forgot = ok("forget-object", "obj-a", "--confirm")
    assert forgot["deleted"] == 1
    assert forgot["operations_removed"] == 1
    assert ok("show")["count"] == 0
    assert ok("log")["operations"] == []
    if forgot["erased"]:
        assert ZH.encode("utf-8") not in raw_bytes(enabled)


@pytest.mark.parametrize(
    "args",
    [
        ["revoke", "--d", "--c"],
        ["revoke", "--delete", "--conf"],
        ["forget-object", "obj-a", "--con"],
        ["context", "--subject", "obj-a"],
        ["--data", "/tmp/elsewhere", "status"],
        ["--form", "table", "status"],
    ],
)
def test_options_cannot_be_abbreviated(enabled: Path, args: list[str]) -> None:
    ok("apply", "--json", json.dumps(delta(value="留下")))
    fails("INVALID_ARGUMENTS", *args)
    assert [m["value"] for m in ok("show")["memories"]] == ["留下"]
    assert ok("status")["consent_enabled"] is True
