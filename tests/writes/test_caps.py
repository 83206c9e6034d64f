"""Caps of documentation/commands.md#caps, asserted through the real CLI.

Stores are filled in-process with ``MemoryStore.apply`` (batches of up to 20
deltas), which is much faster than a subprocess per batch; every assertion
about a cap goes through ``python -m memory_store``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import apply, db_connect, delta, fails, ok

from memory_store import MemoryStore

# documentation/commands.md#caps (written out here, not imported from policy.py).
CAPS = {"user": 30, "object": 15, "relationship": 10, "event": 20, "hypothesis": 5}
TOTAL = 200
HISTORY = 20


@pytest.fixture
def store(private_store: Path) -> Path:
    """A store with consent given (in-process: the enable CLI is tested elsewhere)."""
    MemoryStore(private_store).enable(confirm=True)
    return private_store


def seed(store_dir: Path, deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Write ``deltas`` in-process, 20 per operation; return the stored rows in order."""
    s = MemoryStore(store_dir)
    out: list[dict[str, Any]] = []
    for i in range(0, len(deltas), 20):
        chunk = deltas[i : i + 20]
        body = chunk[0] if len(chunk) == 1 else {"deltas": chunk}
        out += [r["memory"] for r in s.apply(body, verbose=True)["results"]]
    return out


def show(**filters: str) -> list[dict[str, Any]]:
    args = ["show"]
    for key, value in filters.items():
        args += [f"--{key.replace('_', '-')}", value]
    return ok(*args)["memories"]


def state(store_dir: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    s = MemoryStore(store_dir)
    return s.show()["memories"], s.log()["operations"]


def refused(*deltas: dict[str, Any]) -> dict[str, Any]:
    """Apply must fail with MEMORY_LIMIT_REACHED (exit 5); return error.details."""
    body = deltas[0] if len(deltas) == 1 else {"deltas": list(deltas)}
    r = fails("MEMORY_LIMIT_REACHED", "apply", "--json", json.dumps(body))
    assert r.code == 5
    assert "index" in r.error["details"]
    return r.error["details"]


def counts() -> dict[str, Any]:
    return ok("status")["counts"]


def users(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [delta("user", field=f"u{i:02d}", value=f"user {i}") for i in range(start, start + n)]


def objects(subject: str, n: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        delta("object", subject, f"o{i:02d}", f"{subject} fact {i}")
        for i in range(start, start + n)
    ]


def rels(subject: str, n: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        delta("relationship", subject, f"r{i:02d}", f"{subject} rel {i}")
        for i in range(start, start + n)
    ]


def events(subject: str, n: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        delta(
            "event",
            subject,
            f"e{i:02d}",
            f"{subject} event {i}",
            occurred_at=f"2026-03-{(i % 28) + 1:02d}",
        )
        for i in range(start, start + n)
    ]


def hyps(subject: str, n: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        delta("hypothesis", subject, f"h{i:02d}", f"{subject} guess {i}")
        for i in range(start, start + n)
    ]


def delete_of(row: dict[str, Any]) -> dict[str, Any]:
    return {"action": "delete", "id": row["id"]}


# --------------------------------------------------------------------------- user: refuse


def test_user_cap_refuses_a_new_field_but_not_updates(store: Path) -> None:
    rows = seed(store, users(30))
    assert counts()["by_scope"]["user"] == 30
    before = state(store)

    details = refused(users(1, 30)[0])
    assert details["index"] == 0
    # The first delta that adds a row over the cap is named, not an update before it.
    details = refused(delta("user", field="u00", value="changed"), users(1, 30)[0])
    assert details["index"] == 1
    assert state(store) == before

    # Updating an existing field still succeeds at the cap.
    data = apply(delta("user", field="u05", value="new five")).data
    assert data["results"][0]["action"] == "updated"
    assert data["results"][0]["memory"]["id"] == rows[5]["id"]

    # The cap applies to the net result: delete one and create one, in either order.
    data = apply(delete_of(rows[1]), users(1, 30)[0]).data
    assert [r["action"] for r in data["results"]] == ["deleted", "created"]
    assert data["pruned"] == []
    data = apply(users(1, 31)[0], {"action": "delete", "scope": "user", "field": "u02"}).data
    assert [r["action"] for r in data["results"]] == ["created", "deleted"]
    fields = {r["field"] for r in show(scope="user")}
    assert len(fields) == 30 and {"u30", "u31"} <= fields and not {"u01", "u02"} & fields
    c = counts()
    assert c["by_scope"]["user"] == 30 and c["total"] == 30
    # Still full: a new field is refused again.
    assert refused(users(1, 40)[0])["index"] == 0


# --------------------------------------------------------------------------- object/relationship


def test_object_and_relationship_caps_per_subject(store: Path) -> None:
    seed(store, objects("obj-a", 15) + rels("obj-a", 10) + objects("obj-c", 13))
    before = state(store)

    assert refused(objects("obj-a", 1, 15)[0])["index"] == 0
    assert refused(rels("obj-a", 1, 10)[0])["index"] == 0
    # An update and another subject's row go through; the over-cap delta is named.
    details = refused(
        delta("object", "obj-a", "o00", "updated"),
        objects("obj-b", 1)[0],
        objects("obj-a", 1, 15)[0],
    )
    assert details["index"] == 2
    details = refused(
        rels("obj-b", 1)[0],
        delta("relationship", "obj-a", "r03", "changed"),
        rels("obj-a", 1, 10)[0],
        objects("obj-b", 1)[0],
    )
    assert details["index"] == 2
    # obj-c holds 13 objects: the 14th and 15th fit, the 16th (index 3) does not.
    details = refused(
        objects("obj-c", 1, 13)[0],
        objects("obj-b", 1)[0],
        objects("obj-c", 1, 14)[0],
        objects("obj-c", 1, 15)[0],
    )
    assert details["index"] == 3
    assert state(store) == before

    # Another subject is unaffected by obj-a's full kinds.
    data = apply(*objects("obj-b", 15), *rels("obj-b", 5)).data
    assert len(data["results"]) == 20 and data["pruned"] == []
    apply(*rels("obj-b", 5, 5))
    # And obj-c can still reach its own cap.
    apply(*objects("obj-c", 2, 13))
    # A full kind may be tidied: delete one and create one in the same batch.
    data = apply(
        {"action": "delete", "scope": "relationship", "subject_id": "obj-a", "field": "r00"},
        rels("obj-a", 1, 10)[0],
    ).data
    assert [r["action"] for r in data["results"]] == ["deleted", "created"]
    data = apply(
        objects("obj-a", 1, 15)[0],
        {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "o00"},
    ).data
    assert [r["action"] for r in data["results"]] == ["created", "deleted"]

    c = counts()["by_scope"]
    assert (c["object"], c["relationship"]) == (15 + 15 + 15, 10 + 10)
    for subject in ("obj-a", "obj-b"):
        mine = show(subject_id=subject)
        assert sum(r["scope"] == "object" for r in mine) == 15
        assert sum(r["scope"] == "relationship" for r in mine) == 10


# --------------------------------------------------------------------------- event: prune


def test_event_cap_prunes_least_recently_written_not_oldest_occurred(store: Path) -> None:
    # e00 is written first but happened last; e19 is written last but happened first.
    evs = [
        delta("event", "obj-a", f"e{i:02d}", f"event {i}", occurred_at=f"2026-01-{20 - i:02d}")
        for i in range(20)
    ]
    seed(store, evs)
    seed(store, events("obj-b", 3))
    # Rewriting e00 makes it the most recently written row.
    apply(delta("event", "obj-a", "e00", "event 0, revised", occurred_at="2026-01-20"))
    before = show()
    by_key = {(r["subject_id"], r["field"]): r for r in before}

    # A new event dated before all others: pruning is by write order, never by occurred_at.
    data = apply(delta("event", "obj-a", "e20", "event 20", occurred_at="2025-06-01")).data
    assert data["results"][0]["action"] == "created"
    assert data["pruned"] == [by_key[("obj-a", "e01")]]
    after = {(r["subject_id"], r["field"]) for r in show()}
    assert ("obj-a", "e01") not in after
    assert {("obj-a", "e00"), ("obj-a", "e19"), ("obj-a", "e20")} <= after
    assert sum(s == "obj-a" for s, _ in after) == 20
    assert sum(s == "obj-b" for s, _ in after) == 3
    assert ok("log")["operations"][0]["rows"] == 2

    # Undo brings the pruned row back exactly and removes the new one.
    undone = ok("undo", "--op-id", data["op_id"])
    assert undone["restored"] == [by_key[("obj-a", "e01")]]
    assert [r["field"] for r in undone["removed"]] == ["e20"]
    assert show() == before

    # Several at once: the three least recently written go, in that order (ties on
    # updated_at within one batch are broken by write order).
    data = apply(
        *[delta("event", "obj-a", f"n{i}", f"new {i}", occurred_at="2026-02-01") for i in range(3)]
    ).data
    assert data["pruned"] == [by_key[("obj-a", f"e{i:02d}")] for i in (1, 2, 3)]
    assert ok("undo")["restored"] == data["pruned"]
    assert show() == before


def test_event_prune_order_is_by_updated_at_first(store: Path) -> None:
    rows = seed(store, events("obj-a", 20))
    # Backdate e10: it was written later (higher write sequence) but longer ago.
    conn = db_connect(store)
    with conn:
        conn.execute(
            "UPDATE memories SET updated_at = ? WHERE id = ?",
            ("2020-01-01T00:00:00Z", rows[10]["id"]),
        )
    conn.close()
    before = {r["id"]: r for r in show()}
    data = apply(*events("obj-a", 2, 20)).data
    assert data["pruned"] == [before[rows[10]["id"]], before[rows[0]["id"]]]


def test_event_batch_alone_can_fill_a_subject(store: Path) -> None:
    old = seed(store, events("obj-a", 20))
    data = apply(*events("obj-a", 20, 30)).data
    assert [r["action"] for r in data["results"]] == ["created"] * 20
    assert data["pruned"] == old
    assert counts()["by_scope"]["event"] == 20


def test_pinned_events_fill_the_cap_and_the_refusal_names_the_first_delta_over(
    store: Path,
) -> None:
    """documentation/guarantees.md#robustness: with five pinned milestones, 15 unpinned events and a batch of 18, the 16th
    new event is the first that cannot fit (5 pins are never pruned); the message says
    the pins fill the kind, not that the batch alone is too large."""
    pins = [{**e, "field": f"p{i}", "pinned": True} for i, e in enumerate(events("obj-a", 5))]
    seed(store, pins + events("obj-a", 15))
    snapshot = state(store)
    details = refused(*events("obj-a", 18, 40))
    assert details["index"] == 15
    assert details["pinned_count"] == 5 and details["limit"] == 20
    r = fails(
        "MEMORY_LIMIT_REACHED", "apply", "--json", json.dumps({"deltas": events("obj-a", 18, 40)})
    )
    message = r.error["message"]
    assert "5 pinned" in message and "never pruned" in message
    assert "batch alone" not in message
    assert state(store) == snapshot
    # Fifteen fit: the unpinned fifteen are pruned, the pins stay.
    data = apply(*events("obj-a", 15, 40)).data
    assert len(data["pruned"]) == 15
    assert sorted(m["field"] for m in show(subject_id="obj-a") if m["pinned"]) == [
        f"p{i}" for i in range(5)
    ]


# --------------------------------------------------------------------------- hypothesis: prune


def test_hypothesis_cap_prunes_and_refuses_a_batch_of_six(store: Path) -> None:
    seed(store, hyps("obj-a", 5))
    before = show()
    data = apply(hyps("obj-a", 1, 5)[0]).data
    assert data["pruned"] == [before[0]]
    assert [r["field"] for r in show(subject_id="obj-a")] == [f"h{i:02d}" for i in range(1, 6)]
    # Updating h01 protects it: the next prune takes h02.
    data = apply(delta("hypothesis", "obj-a", "h01", "revised"), hyps("obj-a", 1, 6)[0]).data
    assert [r["field"] for r in data["pruned"]] == ["h02"]

    snapshot = state(store)
    # Six new hypotheses for one subject: pruning never removes a row the same
    # apply writes, so the batch is refused and nothing is written.
    details = refused(*hyps("obj-b", 6))
    assert details["index"] == 5
    details = refused(*hyps("obj-a", 6, 10))
    assert details["index"] == 5
    assert state(store) == snapshot
    assert show(subject_id="obj-b") == []
    # Five at once replace the subject's five.
    data = apply(*hyps("obj-a", 5, 20)).data
    assert len(data["pruned"]) == 5
    assert counts()["by_scope"]["hypothesis"] == 5


# --------------------------------------------------------------------------- global: 200 rows


def test_global_cap_prunes_events_and_hypotheses_store_wide(store: Path) -> None:
    # Oldest first: five hypotheses, then 195 events over ten subjects.
    seed(store, hyps("hyp-s", 5))
    for s in range(9):
        seed(store, events(f"s{s}", 20))
    seed(store, events("s9", 15))
    assert counts()["total"] == TOTAL
    before = {(r["subject_id"], r["field"]): r for r in show()}

    # h00 is rewritten by this apply, so it is not pruned although it is the oldest.
    data = apply(
        delta("hypothesis", "hyp-s", "h00", "revised"),
        delta("object", "s10", "display_label", "Ten"),
        delta("relationship", "s10", "stage", "new"),
    ).data
    assert [r["action"] for r in data["results"]] == ["updated", "created", "created"]
    assert data["pruned"] == [before[("hyp-s", "h01")], before[("hyp-s", "h02")]]
    assert counts()["total"] == TOTAL
    first_op = data["op_id"]

    # Events go as well, store-wide, once the older hypotheses are gone.
    data = apply(*[delta("object", "s10", f"f{i}", "x") for i in range(4)]).data
    assert data["pruned"] == [
        before[("hyp-s", "h03")],
        before[("hyp-s", "h04")],
        before[("s0", "e00")],
        before[("s0", "e01")],
    ]
    c = counts()
    assert c["total"] == TOTAL
    assert c["by_scope"] == {
        "user": 0,
        "object": 5,
        "relationship": 1,
        "event": 193,
        "hypothesis": 1,
    }

    # Undo restores exactly, newest first.
    ok("undo")
    ok("undo", "--op-id", first_op)
    assert {(r["subject_id"], r["field"]): r for r in show()} == before


def test_global_cap_refuses_when_only_profile_rows_remain(store: Path) -> None:
    deltas = users(30)
    for s in range(1, 7):
        deltas += objects(f"s{s}", 15) + rels(f"s{s}", 10)
    deltas += objects("s7", 15) + rels("s7", 5)
    seed(store, deltas)
    c = counts()
    assert c["total"] == TOTAL
    assert c["by_scope"] == {
        "user": 30,
        "object": 105,
        "relationship": 65,
        "event": 0,
        "hypothesis": 0,
    }
    before = state(store)

    # No per-kind cap is hit, but the store is full and nothing may be pruned.
    details = refused(delta("object", "s8", "display_label", "Eight"))
    assert details["index"] == 0
    details = refused(
        delta("user", field="u00", value="changed"), delta("event", "s8", "conflict", "argued")
    )
    assert details["index"] == 1
    # The new event itself is never pruned to make room for itself.
    refused(*hyps("s8", 1))
    assert state(store) == before

    # Updates still work; a delete makes room.
    assert (
        apply(delta("user", field="u00", value="changed")).data["results"][0]["action"] == "updated"
    )
    data = apply(
        {"action": "delete", "scope": "relationship", "subject_id": "s1", "field": "r00"},
        delta("event", "s8", "conflict", "argued"),
    ).data
    assert [r["action"] for r in data["results"]] == ["deleted", "created"]
    assert counts()["total"] == TOTAL
    # Now one event exists to be pruned for a new profile row, and then nothing.
    event_row = data["results"][1]["memory"]
    data = apply(delta("object", "s8", "display_label", "Eight")).data
    assert data["pruned"] == [event_row]
    assert counts()["total"] == TOTAL
    snapshot = state(store)
    refused(delta("object", "s8", "mbti", "INTJ"))
    assert state(store) == snapshot


def test_global_refusal_names_the_delta_that_goes_over(store: Path) -> None:
    """documentation/commands.md#caps: the refusal's details.index is the first delta that adds a row over the cap.

    199 rows: 194 profile rows and obj-h's five hypotheses. The batch writes five new
    hypotheses for obj-h (the per-subject cap prunes the five old ones, so they add
    nothing), then two objects: the first brings the store to 200, the second (index 6)
    takes it over. Delta 0 takes nothing over the cap, on any reading.
    """
    deltas = users(30)
    for s in range(1, 7):
        deltas += objects(f"s{s}", 15) + rels(f"s{s}", 10)
    deltas += objects("s7", 14) + hyps("obj-h", 5)
    seed(store, deltas)
    assert counts()["total"] == TOTAL - 1
    before = state(store)
    batch = hyps("obj-h", 5, 5) + [delta("object", "s8", "a", "x"), delta("object", "s8", "b", "x")]
    details = refused(*batch)
    assert state(store) == before
    assert details["index"] == 6, details
    # Without the second object the same batch fits: five pruned, five written, one added.
    data = apply(*batch[:6]).data
    assert len(data["pruned"]) == 5
    assert counts()["total"] == TOTAL


# --------------------------------------------------------------------------- undo history


def test_undo_history_keeps_the_twenty_most_recent(store: Path) -> None:
    s = MemoryStore(store)
    op_ids = [s.apply(delta("user", field=f"f{i:02d}", value=f"v{i}"))["op_id"] for i in range(20)]
    # The last five through the CLI, which trims the history.
    for i in range(20, 25):
        op_ids.append(apply(delta("user", field=f"f{i:02d}", value=f"v{i}")).data["op_id"])
    assert len(set(op_ids)) == 25

    ops = ok("log")["operations"]
    assert len(ops) == HISTORY
    assert [o["op_id"] for o in ops] == op_ids[:4:-1]  # newest first: 24 … 5
    assert ok("status")["undo_available"] == HISTORY
    for gone in (op_ids[0], op_ids[4]):
        r = fails("OPERATION_NOT_FOUND", "undo", "--op-id", gone)
        assert r.code == 3
    # The oldest still in the window can be undone; the rows themselves all remain.
    assert ok("undo", "--op-id", op_ids[5])["undone_op_id"] == op_ids[5]
    assert ok("status")["undo_available"] == HISTORY - 1
    assert {r["field"] for r in show()} == {f"f{i:02d}" for i in range(25)} - {"f05"}


# --------------------------------------------------------------------------- status


def test_status_counts_and_limits(store: Path) -> None:
    seed(
        store,
        users(3)
        + objects("obj-a", 4)
        + objects("obj-b", 2)
        + rels("obj-a", 2)
        + events("obj-a", 5)
        + hyps("obj-b", 2),
    )
    apply(*hyps("obj-b", 4, 2))  # prunes one of obj-b's hypotheses
    st = ok("status")
    expected = {"user": 3, "object": 6, "relationship": 2, "event": 5, "hypothesis": 5}
    assert st["counts"]["by_scope"] == expected
    assert st["counts"]["total"] == sum(expected.values()) == ok("show")["count"]
    listed = show()
    for scope, n in expected.items():
        assert sum(r["scope"] == scope for r in listed) == n
    assert st["undo_available"] == 2

    limits = st["limits"]
    for scope, cap in CAPS.items():
        rule = limits["by_scope"][scope]
        assert (rule["max"] if isinstance(rule, dict) else rule) == cap, (scope, rule)
    assert limits["total_rows"] == TOTAL


def test_refused_and_dry_run_applies_leave_counts_alone(store: Path) -> None:
    seed(store, users(30) + hyps("obj-a", 5))
    before = ok("status")
    refused(users(1, 30)[0])
    data = apply(hyps("obj-a", 1, 5)[0], dry_run=True).data
    assert len(data["pruned"]) == 1
    after = ok("status")
    assert (after["counts"], after["undo_available"]) == (
        before["counts"],
        before["undo_available"],
    )
