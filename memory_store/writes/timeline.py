"""Time on the write side (documentation/time.md#writing): since, past values, ending, related rows, pins.

A row's history lives in the row itself (``since``, ``past`` as JSON, ``pinned``),
so everything that already follows a row follows its history too: the
operation snapshots (undo restores a row and its past exactly), ``show``,
export, and physical erasure, which removes the row and with it every past
value. Imported only by the write paths; what the read paths need of time (concepts,
past values as rows, siblings) is in ``storage/rows.py``, whether a question is about
time in ``recall/relevance.py``: ``context`` pays for neither this module nor the write side.
"""

from __future__ import annotations

import json

from .. import policy
from ..errors import error
from ..storage import rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from typing import Any


def check_histories(
    deltas: list[dict[str, Any]], keys: list[tuple[str, ...]], prefixes: list[str]
) -> None:
    """Two deltas may name one memory only to tell its history in one write: upserts of a
    profile, person or relationship memory, each with its own ``occurred_at`` (the day the
    value became true). They are marked ``chain`` (the first one's index) and written in
    date order, the earlier values becoming past values (documentation/time.md); ``keys`` names the memory each delta writes."""
    seen: dict[tuple[str, ...], int] = {}
    dates: dict[int, set[str]] = {}
    for i, (d, key) in enumerate(zip(deltas, keys, strict=True)):
        if key not in seen:
            seen[key] = i
            continue
        first = seen[key]
        other = deltas[first]
        history = (
            d["action"] == other["action"] == "upsert"
            and key[0] in policy.HISTORY_SCOPES
            and d.get("occurred_at")
            and other.get("occurred_at")
        )
        if not history:
            why = (
                "; to write how it changed over time, give each its own occurred_at "
                "(the day that value became true)"
                if key[0] in policy.HISTORY_SCOPES and d["action"] == other["action"] == "upsert"
                else ""
            )
            raise error(
                "INVALID_DELTA",
                f"deltas {first} and {i} name the same memory{why}",
                index=i,
                path=prefixes[i],
                other_index=first,
            )
        known = dates.setdefault(first, {other["occurred_at"]})
        if d["occurred_at"] in known:
            raise error(
                "INVALID_DELTA",
                f"deltas {first} and {i} give the same memory two values for the same "
                "occurred_at; keep one, or date each value by when it became true",
                index=i,
                path=f"{prefixes[i]}.occurred_at",
                other_index=first,
            )
        known.add(d["occurred_at"])
        other["chain"] = d["chain"] = first


def in_date_order(deltas: list[dict[str, Any]]) -> list[int]:
    """The order a batch is written in: as given, except that the deltas of one memory's
    history (validation marks them ``chain``) are written together, at the first one's
    place, oldest ``occurred_at`` first, so that each earlier value becomes a past value."""
    order: list[int] = []
    for i, d in enumerate(deltas):
        chain = d.get("chain")
        if chain is None:
            order.append(i)
        elif chain == i:
            members = [j for j, e in enumerate(deltas) if e.get("chain") == chain]
            order.extend(sorted(members, key=lambda j: deltas[j]["occurred_at"]))
    return order


def mark_history(
    results: list[dict[str, Any]], deltas: list[dict[str, Any]], touched: dict[str, Any]
) -> None:
    """Give each delta of a history whose value is now past the ``past_id`` it became, so
    that the result and the operation's line say so (not the current value twice)."""
    for r in results:
        d = deltas[r["index"]]
        after = touched.get(r["memory"]["id"], {}).get("after")
        if d.get("chain") is None or after is None or r["action"] not in ("created", "updated"):
            continue
        day = day_of(d, "")
        for p in rows.past_of(after):
            if p["value"] == d["value"] and p["since"] == day:
                r["past_id"] = p["past_id"]


def since_for(delta: dict[str, Any], row: dict[str, Any] | None, today: str) -> str:
    """The date the written value became true (documentation/time.md#where-history-lives).

    The delta's ``occurred_at`` when given (outside events it means "as of");
    else, when the value stays what it was (only its source or confidence
    changed) or the write is a correction (it was always so), the row's own
    ``since``; else the day of the write.
    """
    if delta.get("since"):  # a restore brings the row's own date
        return delta["since"]
    if delta.get("occurred_at"):
        return day_of(delta, today)
    if row is None or not rows.is_current(row):
        return today
    if row["value"] == delta["value"] or delta.get("correction"):
        return row["since"] or today
    return today


def day_of(delta: dict[str, Any], today: str) -> str:
    """The day a delta is dated: its ``occurred_at``'s own day (in the offset it was given
    with, as validation found it), else ``today``."""
    return delta.get("occurred_day") or (delta.get("occurred_at") or today)[:10]


def with_past(row: dict[str, Any], until: str) -> str:
    """The row's past (JSON) once its current value is over as of ``until``.

    At most ``PAST_PER_ROW_MAX`` entries: the one with the oldest ``until`` goes
    (it stays in this operation's before-snapshot, so undo brings it back).
    """
    since = row["since"]
    entry = {
        "value": row["value"],
        # A change dated on or before the old value began (documentation/time.md#writing): when it began is
        # then unknown, never a span of zero or negative length.
        "since": since if since and since < until else None,
        "until": until,
        "source_type": row["source_type"],
        "past_id": rows.new_past_id(),
    }
    past = [*rows.past_of(row), entry]
    past.sort(key=lambda p: p["until"])  # stable: equal untils keep their order
    return json.dumps(past[-policy.PAST_PER_ROW_MAX :], ensure_ascii=False)


def ended(row: dict[str, Any], until: str, now: str, seq: int) -> dict[str, Any]:
    """The row with no current value: its value is now its newest past value."""
    return {
        **row,
        "value": "",
        "past": with_past(row, until),
        "since": until,
        "occurred_at": None,
        "occurred_offset": None,
        "updated_at": now,
        "write_seq": seq,
    }


def related(conn: sqlite3.Connection, row: dict[str, Any], skip: set[str]) -> list[dict[str, Any]]:
    """The other current rows of the row's scope and subject that hold the same concept."""
    if row["scope"] not in policy.HISTORY_SCOPES or not rows.concepts_of(row["field"]):
        return []
    others = rows.select(
        conn,
        " WHERE scope = ? AND subject_id = ? AND id != ? AND value != '' ORDER BY field",
        (row["scope"], row["subject_id"], row["id"]),
    )
    return [
        {"id": o["id"], "field": o["field"], "value": o["value"], "since": o["since"]}
        for o in others
        if o["id"] not in skip and rows.same_concept(o["field"], row["field"])
    ]


def check_replaces(conn: sqlite3.Connection, i: int, delta: dict[str, Any]) -> dict[str, Any]:
    """The row a delta's ``replaces`` names: same scope and subject, with a current value."""
    target = rows.find_by_id(conn, delta["replaces"])
    where = f"$.deltas[{i}].replaces"
    if target is None:
        raise error(
            "MEMORY_NOT_FOUND",
            f"delta {i} replaces a memory that does not exist; nothing was changed",
            index=i,
            path=where,
        )
    same_place = (target["scope"], target["subject_id"]) == (delta["scope"], delta["subject_id"])
    if not same_place or target["field"] == delta["field"]:
        raise error(
            "INVALID_DELTA",
            "replaces names a row of another field of the same scope and subject "
            "(to change a value, write the same field again)",
            index=i,
            path=where,
        )
    if not rows.is_current(target):
        raise error(
            "INVALID_DELTA", "replaces names a row that has already ended", index=i, path=where
        )
    return target


def check_pins(
    conn: sqlite3.Connection, results: list[dict[str, Any]], touched: dict[str, Any]
) -> None:
    """At most ``PINNED_PER_SUBJECT_MAX`` pinned events per subject (documentation/time.md#writing); a
    refusal lists the ones already pinned (this batch's pins are rolled back)."""
    cap = policy.PINNED_PER_SUBJECT_MAX
    first: dict[str, int] = {}
    for r in results:
        m = r["memory"]
        if m["scope"] == "event" and m.get("pinned") and r["action"] != "unchanged":
            first.setdefault(m["subject_id"], r["index"])
    for subject, index in first.items():
        pinned = rows.select(
            conn,
            " WHERE scope = 'event' AND subject_id = ? AND pinned = 1 ORDER BY occurred_key",
            (subject,),
        )
        if len(pinned) > cap:
            raise error(
                "MEMORY_LIMIT_REACHED",
                f"{subject} already has {cap} pinned milestones, the most there may be; "
                'unpin one first ("pinned": false)',
                index=index,
                scope="event",
                subject_id=subject,
                limit=cap,
                pinned=[
                    {"id": p["id"], "field": p["field"], "occurred_at": p["occurred_at"]}
                    for p in pinned
                    if p["id"] not in touched or (touched[p["id"]]["before"] or {}).get("pinned")
                ],
            )


def trim_store_past(
    conn: sqlite3.Connection, touched: dict[str, dict[str, Any]], refuse: bool
) -> None:
    """At most ``PAST_STORE_MAX`` past values in the store: the oldest ``until`` goes,
    and its row joins the operation so that undo brings it back. An import
    (``refuse``) is refused instead: a restore is never trimmed silently."""
    holders = rows.select(conn, " WHERE past IS NOT NULL")
    entries = [(p["until"], r["write_seq"], r["id"], p) for r in holders for p in rows.past_of(r)]
    over = len(entries) - policy.PAST_STORE_MAX
    if over <= 0:
        return
    if refuse:
        raise error(
            "MEMORY_LIMIT_REACHED",
            f"the import would keep {len(entries)} past values, over the cap of "
            f"{policy.PAST_STORE_MAX}; nothing was imported",
            index=None,
            scope=None,
            limit=policy.PAST_STORE_MAX,
            count=len(entries),
        )
    entries.sort(key=lambda e: (e[0], e[1]))
    drop: dict[str, list[Any]] = {}
    for _, _, memory_id, entry in entries[:over]:
        drop.setdefault(memory_id, []).append(entry)
    for row in holders:
        if row["id"] not in drop:
            continue
        kept = rows.past_of(row)
        for gone in drop[row["id"]]:  # one at a time: two past values may look alike
            kept.remove(gone)
        past = json.dumps(kept, ensure_ascii=False) if kept else None
        conn.execute("UPDATE memories SET past = ? WHERE id = ?", (past, row["id"]))
        entry = touched.setdefault(row["id"], {"id": row["id"], "before": row, "after": row})
        entry["after"] = {**entry["after"], "past": past}
