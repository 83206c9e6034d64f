"""Memory that knows time, the write side (documentation/time.md#writing), through the real CLI.

- ``since``: from ``occurred_at``, else the day of the write; kept when only the
  source or the confidence changes, and on a correction.
- past values: a change keeps ``{value, since, until, source_type}``; a correction
  keeps none; at most 3 per row and 60 in the store (the oldest ``until`` goes, and
  undo brings it back); events and hypotheses keep none.
- ``"action": "end"``: the value becomes past; the row still counts; an upsert revives it.
- ``related`` and ``replaces``; ``pinned`` milestones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import cli, delta, fails, ok, op_ids, put, without_past_ids
from support.timekit import row, shown, today

JOB = "在上海做平面设计师"
TEACHER = "辞职后去杭州当老师了"


def first(result: dict[str, Any]) -> dict[str, Any]:
    return result["results"][0]


def mid(result: dict[str, Any], i: int = 0) -> str:
    return result["results"][i]["memory"]["id"]


def end(**keys: Any) -> dict[str, Any]:
    return {"action": "end", **keys}


# ---------------------------------------------------------------- since


def test_since_is_the_occurred_at_date_else_the_day_of_the_write(enabled: Path) -> None:
    dated = put(delta("relationship", field="stage", value="暧昧期", occurred_at="2025-05-01"))
    plain = put(delta(field="job", value=JOB))
    assert first(dated)["memory"]["since"] == "2025-05-01"
    assert first(plain)["memory"]["since"] == today()
    assert row(mid(dated))["since"] == "2025-05-01"
    assert row(mid(plain))["since"] == today()


def test_a_date_time_occurred_at_gives_the_date_it_was_said_in(enabled: Path) -> None:
    # "We got together at half past midnight on 1 March" (Beijing time) happened on
    # 1 March for the person; in UTC it is still 28 February.
    r = put(
        delta(
            "relationship",
            field="stage",
            value="正式在一起了",
            occurred_at="2026-03-01T00:30+08:00",
        )
    )
    assert row(mid(r))["since"] == "2026-03-01"


def test_since_is_kept_when_only_source_or_confidence_change(enabled: Path) -> None:
    r = put(delta(field="job", value=JOB, occurred_at="2025-03-01"))
    again = put(
        delta(
            field="job", value=JOB, source="user_explicit", confidence="high", source_ref="turn:9"
        )
    )
    assert first(again)["action"] == "updated"
    stored = row(mid(r))
    assert stored["since"] == "2025-03-01"
    assert stored["past"] == [] and stored["source_type"] == "user_explicit"


def test_since_is_kept_on_a_correction_and_no_past_is_kept(enabled: Path) -> None:
    r = put(delta("relationship", field="stage", value="暧昧其", occurred_at="2025-05-01"))
    fixed = put(delta("relationship", field="stage", value="暧昧期", correction=True))
    assert first(fixed)["action"] == "updated"
    stored = row(mid(r))
    assert stored["value"] == "暧昧期" and stored["since"] == "2025-05-01"
    assert stored["past"] == []


# ---------------------------------------------------------------- past values


def test_a_change_keeps_the_old_value_as_past(enabled: Path) -> None:
    r = put(delta("relationship", field="stage", value="暧昧期", occurred_at="2025-05-01"))
    put(
        delta(
            "relationship",
            field="stage",
            value="正式在一起了",
            source="user_explicit",
            occurred_at="2025-09-01",
        )
    )
    stored = row(mid(r))
    assert stored["value"] == "正式在一起了" and stored["since"] == "2025-09-01"
    assert stored["ended"] is False
    assert without_past_ids(stored["past"]) == [
        {
            "value": "暧昧期",
            "since": "2025-05-01",
            "until": "2025-09-01",
            "source_type": "user_report",
        }
    ]


def test_a_change_without_a_date_ends_the_old_value_today(enabled: Path) -> None:
    r = put(delta("user", field="goal", value="学做饭", occurred_at="2024-01-01"))
    put(delta("user", field="goal", value="学游泳"))
    stored = row(mid(r))
    assert stored["since"] == today()
    assert without_past_ids(stored["past"]) == [
        {"value": "学做饭", "since": "2024-01-01", "until": today(), "source_type": "user_explicit"}
    ]


def test_at_most_three_past_values_per_row_and_undo_brings_the_oldest_back(
    enabled: Path,
) -> None:
    for i in range(4):
        put(delta(field="city", value=f"city-{i}", occurred_at=f"202{i}-01-01"))
    memory_id = ok("show")["memories"][0]["id"]
    before = row(memory_id)
    assert [p["value"] for p in before["past"]] == ["city-0", "city-1", "city-2"]
    put(delta(field="city", value="city-4", occurred_at="2024-01-01"))
    after = row(memory_id)
    assert [p["value"] for p in after["past"]] == ["city-1", "city-2", "city-3"]
    assert [(p["since"], p["until"]) for p in after["past"]] == [
        ("2021-01-01", "2022-01-01"),
        ("2022-01-01", "2023-01-01"),
        ("2023-01-01", "2024-01-01"),
    ]
    ok("undo")
    assert row(memory_id) == before


def test_undo_of_a_change_restores_the_row_and_its_past_exactly(enabled: Path) -> None:
    put(delta("relationship", field="stage", value="认识", occurred_at="2025-01-01"))
    put(delta("relationship", field="stage", value="暧昧期", occurred_at="2025-05-01"))
    before = shown()
    put(delta("relationship", field="stage", value="正式在一起了", occurred_at="2025-09-01"))
    assert shown() != before
    ok("undo")
    assert shown() == before


def test_events_and_hypotheses_are_corrected_in_place(enabled: Path) -> None:
    e = put(delta("event", field="invitation", value="周五吃饭", occurred_at="2026-05-01"))
    h = put(delta("hypothesis", field="intent", value="想重新联系"))
    put(delta("event", field="invitation", value="周六吃饭", occurred_at="2026-05-01"))
    put(delta("hypothesis", field="intent", value="只是客气", confidence="medium"))
    now = shown()
    assert now[mid(e)]["value"] == "周六吃饭" and now[mid(e)]["past"] == []
    assert now[mid(h)]["value"] == "只是客气" and now[mid(h)]["past"] == []


def _fill_past(rounds: list[str], rows_: int = 19, prefix: str = "g") -> None:
    """``rows_`` user rows, each written once per date in ``rounds``."""
    for r, day in enumerate(rounds):
        put(
            *(
                delta("user", field=f"{prefix}{i}", value=f"{prefix}{i}-v{r}", occurred_at=day)
                for i in range(rows_)
            )
        )


def _past_count() -> int:
    return sum(len(m["past"]) for m in ok("show")["memories"])


def test_at_most_sixty_past_values_in_the_store_the_oldest_until_goes(enabled: Path) -> None:
    # 20 rows with three past values each: the store's 60. g0's first past value
    # ends on 2020-01-15, before every other.
    put(delta("user", field="g19", value="g19-v0", occurred_at="2020-01-01"))
    put(delta("user", field="g19", value="g19-v1", occurred_at="2020-01-15"))
    put(delta("user", field="g19", value="g19-v2", occurred_at="2020-03-01"))
    put(delta("user", field="g19", value="g19-v3", occurred_at="2020-04-01"))
    _fill_past(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"])
    assert _past_count() == 60
    put(delta("user", field="y", value="y-old", occurred_at="2021-01-01"))
    before = shown()
    put(delta("user", field="y", value="y-new", occurred_at="2022-01-01"))
    now = shown()
    assert _past_count() == 60
    g19 = next(m for m in now.values() if m["field"] == "g19")
    assert [p["value"] for p in g19["past"]] == ["g19-v1", "g19-v2"]
    y = next(m for m in now.values() if m["field"] == "y")
    assert [p["value"] for p in y["past"]] == ["y-old"]
    ok("undo")
    assert shown() == before


def test_the_store_wide_cap_drops_one_past_value_when_two_look_alike(enabled: Path) -> None:
    # A→B→A→B on one day leaves two equal past entries {A, d, d}; trimming the
    # oldest one must remove one value, not both.
    for value in ("A-same-day", "B-same-day", "A-same-day", "B-same-day"):
        put(delta("user", field="x", value=value, occurred_at="2019-01-01"))
    _fill_past(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"])
    assert _past_count() == 60
    put(delta("user", field="y", value="y-old", occurred_at="2021-01-01"))
    put(delta("user", field="y", value="y-new", occurred_at="2022-01-01"))
    assert _past_count() == 60


# ---------------------------------------------------------------- end


def test_end_by_key_with_a_date_keeps_the_last_value_as_past(enabled: Path) -> None:
    r = put(delta("user", field="goal", value="考研", occurred_at="2025-09-01"))
    ended = put(end(scope="user", field="goal", occurred_at="2026-06-01"))
    assert first(ended)["action"] == "ended" and ended["op_id"]
    stored = row(mid(r))
    assert stored["value"] is None and stored["ended"] is True
    assert without_past_ids(stored["past"][-1]) == {
        "value": "考研",
        "since": "2025-09-01",
        "until": "2026-06-01",
        "source_type": "user_explicit",
    }
    assert "ended" in ended["summary"]


def test_end_by_id_defaults_to_today(enabled: Path) -> None:
    r = put(delta("relationship", field="stage", value="在一起", occurred_at="2025-01-01"))
    put(end(id=mid(r)))
    stored = row(mid(r))
    assert stored["ended"] is True and stored["value"] is None
    assert without_past_ids(stored["past"]) == [
        {"value": "在一起", "since": "2025-01-01", "until": today(), "source_type": "user_report"}
    ]


def test_an_ended_row_still_counts_against_its_cap(enabled: Path) -> None:
    put(*(delta(subject="obj-b", field=f"f{i}", value=f"v{i}") for i in range(15)))
    put(end(scope="object", subject_id="obj-b", field="f0"))
    assert ok("status")["counts"]["by_scope"]["object"] == 15
    refused = fails("MEMORY_LIMIT_REACHED", "apply", "--json", _json(delta(subject="obj-b")))
    assert refused.error["details"]["scope"] == "object"


def _json(d: dict[str, Any]) -> str:
    import json

    return json.dumps(d, ensure_ascii=False)


def test_a_later_upsert_revives_an_ended_row(enabled: Path) -> None:
    r = put(delta("relationship", field="stage", value="在一起", occurred_at="2025-01-01"))
    put(end(id=mid(r), occurred_at="2025-06-01"))
    again = put(delta("relationship", field="stage", value="复合了", occurred_at="2025-10-01"))
    assert first(again)["action"] == "updated" and mid(again) == mid(r)
    stored = row(mid(r))
    assert stored["value"] == "复合了" and stored["ended"] is False
    assert stored["since"] == "2025-10-01"
    assert without_past_ids(stored["past"]) == [
        {
            "value": "在一起",
            "since": "2025-01-01",
            "until": "2025-06-01",
            "source_type": "user_report",
        }
    ]


def test_end_of_a_missing_row_is_not_found(enabled: Path) -> None:
    put(delta(field="job", value=JOB))
    before = shown()
    fails(
        "MEMORY_NOT_FOUND",
        "apply",
        "--json",
        _json(end(scope="object", subject_id="obj-a", field="city")),
    )
    fails("MEMORY_NOT_FOUND", "apply", "--json", _json(end(id="m-00000000000000ff")))
    assert shown() == before


def test_end_of_an_event_or_hypothesis_is_invalid(enabled: Path) -> None:
    e = put(delta("event", field="conflict", value="吵架", occurred_at="2026-05-01"))
    h = put(delta("hypothesis", field="intent", value="想复合"))
    before = shown()
    for memory_id in (mid(e), mid(h)):
        r = fails("INVALID_DELTA", "apply", "--json", _json(end(id=memory_id)))
        assert r.error["details"]["index"] == 0
    by_key = end(scope="event", subject_id="obj-a", field="conflict", occurred_at="2026-05-01")
    fails("INVALID_DELTA", "apply", "--json", _json(by_key))
    by_key = end(scope="hypothesis", subject_id="obj-a", field="intent")
    fails("INVALID_DELTA", "apply", "--json", _json(by_key))
    assert shown() == before


def test_end_with_a_value_is_invalid(enabled: Path) -> None:
    r = put(delta(field="job", value=JOB))
    for extra in ({"value": "x"}, {"source_type": "user_report"}, {"replaces": mid(r)}):
        bad = end(scope="object", subject_id="obj-a", field="job", **extra)
        fails("INVALID_DELTA", "apply", "--json", _json(bad))
    assert row(mid(r))["value"] == JOB


def test_undo_of_an_end_restores_the_current_value(enabled: Path) -> None:
    r = put(delta(field="city", value="上海", occurred_at="2024-01-01"))
    put(delta(field="city", value="杭州", occurred_at="2025-01-01"))
    before = row(mid(r))
    put(end(id=mid(r)))
    ok("undo")
    assert row(mid(r)) == before


def test_ending_an_ended_row_records_nothing(enabled: Path) -> None:
    r = put(delta(field="city", value="上海"))
    put(end(id=mid(r), occurred_at="2026-01-01"))
    ops, before = op_ids(), shown()
    again = put(end(id=mid(r)))
    assert first(again)["action"] == "unchanged" and again["op_id"] is None
    assert op_ids() == ops and shown() == before


# ---------------------------------------------------------------- related and replaces


def test_a_second_row_of_one_concept_lists_the_first_as_related(enabled: Path) -> None:
    job = put(delta(field="job", value=JOB, occurred_at="2025-03-01"))
    occupation = put(delta(field="occupation", value=TEACHER))
    result = first(occupation)
    assert result["action"] == "created"
    assert result["related"] == [
        {"id": mid(job), "field": "job", "value": JOB, "since": "2025-03-01"}
    ]
    assert "job" in occupation["summary"]
    assert row(mid(job))["value"] == JOB  # both stay current until someone decides
    hobby = put(delta(field="hobby", value="爬山"))
    assert "related" not in first(hobby)


def test_resending_with_replaces_ends_the_other_row_in_one_undoable_operation(
    enabled: Path,
) -> None:
    job = put(delta(field="job", value=JOB, occurred_at="2025-03-01"))
    occupation = put(delta(field="occupation", value=TEACHER, occurred_at="2026-02-01"))
    before, ops = shown(), op_ids()
    resent = put(delta(field="occupation", value=TEACHER, replaces=mid(job)))
    result = first(resent)
    assert result["action"] == "updated"  # not "unchanged": the resend ends the job
    assert resent["op_id"] and op_ids() == [resent["op_id"], *ops]
    assert result["replaced"]["id"] == mid(job)
    now = shown()
    assert now[mid(job)]["ended"] is True and now[mid(job)]["value"] is None
    assert without_past_ids(now[mid(job)]["past"]) == [
        {"value": JOB, "since": "2025-03-01", "until": "2026-02-01", "source_type": "user_report"}
    ]
    assert now[mid(occupation)]["value"] == TEACHER
    assert now[mid(occupation)]["since"] == "2026-02-01"
    ok("undo")
    assert shown() == before


def test_replaces_on_the_first_write_ends_the_old_row_as_of_the_new_since(enabled: Path) -> None:
    city = put(delta(field="city", value="上海"))
    new = put(delta(field="lives_in", value="杭州", occurred_at="2026-04-01", replaces=mid(city)))
    assert "related" not in first(new)
    stored = row(mid(city))
    assert stored["ended"] is True and stored["past"][-1]["until"] == "2026-04-01"


def test_replaces_must_name_a_current_row_of_the_same_scope_and_subject(enabled: Path) -> None:
    job = put(delta(field="job", value=JOB))
    other_subject = put(delta(subject="obj-b", field="job", value="厨师"))
    other_scope = put(delta("relationship", field="stage", value="朋友"))
    gone = put(delta(field="work", value="旧工作"))
    put(end(id=mid(gone)))
    before = shown()
    for target in (mid(other_subject), mid(other_scope), mid(job), mid(gone)):
        bad = delta(field="job" if target == mid(job) else "occupation", value=TEACHER)
        r = fails("INVALID_DELTA", "apply", "--json", _json({**bad, "replaces": target}))
        assert r.error["details"]["index"] == 0
    missing = delta(field="occupation", value=TEACHER, replaces="m-00000000000000ff")
    fails("MEMORY_NOT_FOUND", "apply", "--json", _json(missing))
    assert shown() == before


def test_a_dry_run_with_replaces_changes_nothing(enabled: Path) -> None:
    job = put(delta(field="job", value=JOB))
    before = shown()
    data = ok(
        "apply",
        "--dry-run",
        "--json",
        _json(delta(field="occupation", value=TEACHER, replaces=mid(job))),
    )
    assert data["dry_run"] is True and data["results"][0]["replaced"]["id"] == mid(job)
    assert shown() == before


# ---------------------------------------------------------------- pinned milestones


def _event(i: int, **extra: Any) -> dict[str, Any]:
    day = f"2025-01-{i + 1:02d}"
    return {**delta("event", field="milestone", value=f"event-{i}", occurred_at=day), **extra}


def test_a_pinned_event_is_never_pruned(enabled: Path) -> None:
    first_meeting = put(_event(0, pinned=True), *(_event(i) for i in range(1, 20)))
    more = put(*(_event(i) for i in range(20, 25)))
    assert len(more["pruned"]) == 5
    assert mid(first_meeting) not in {p["id"] for p in more["pruned"]}
    stored = shown()
    assert stored[mid(first_meeting)]["pinned"] is True
    assert sum(m["scope"] == "event" for m in stored.values()) == 20


def test_a_sixth_pinned_event_is_refused_naming_the_five(enabled: Path) -> None:
    pins = put(*(_event(i, pinned=True) for i in range(5)))
    pinned_ids = {r["memory"]["id"] for r in pins["results"]}
    before = shown()
    r = fails("MEMORY_LIMIT_REACHED", "apply", "--json", _json(_event(5, pinned=True)))
    details = r.error["details"]
    assert details["index"] == 0 and details["subject_id"] == "obj-a"
    assert {p["id"] for p in details["pinned"]} == pinned_ids  # the ones a host can unpin
    assert shown() == before
    # Another subject has its own five.
    put(
        delta(
            "event",
            subject="obj-b",
            field="milestone",
            value="x",
            occurred_at="2025-01-01",
            pinned=True,
        )
    )


def test_pinned_false_unpins(enabled: Path) -> None:
    pins = put(*(_event(i, pinned=True) for i in range(5)))
    put(_event(0, pinned=False))
    assert row(mid(pins))["pinned"] is False
    put(_event(5, pinned=True))  # room for another now
    # Resending an event without "pinned" keeps its pin.
    put(_event(1, value="event-1 again"))
    assert row(mid(pins, 1))["pinned"] is True


def test_pinned_on_a_row_that_is_not_an_event_is_invalid(enabled: Path) -> None:
    for scope in ("user", "object", "relationship", "hypothesis"):
        fails(
            "INVALID_DELTA",
            "apply",
            "--json",
            _json(delta(scope, field="f", value="v", pinned=True)),
        )
    assert ok("show")["count"] == 0


def test_context_without_a_query_keeps_pinned_events_beyond_the_newest_eight(
    enabled: Path,
) -> None:
    put(delta(value="小林"), _event(0, pinned=True), *(_event(i) for i in range(1, 12)))
    data = ok("context", "--subject-id", "obj-a")
    events = [m for m in data["memories"] if m["scope"] == "event"]
    assert len(events) == 9
    pinned = [m for m in events if m.get("pinned")]
    assert [m["value"] for m in pinned] == ["event-0"] and pinned[0]["pinned"] is True
    assert not any("pinned" in m for m in events if m["value"] != "event-0")


def test_related_never_names_a_row_the_same_batch_ends_or_deletes(enabled: Path) -> None:
    # "She changed jobs": the new row and the end of the old one in one batch. The old
    # one is not "also current" afterwards.
    put(delta(field="job", value=JOB), delta(subject="obj-b", field="job", value="厨师"))
    changed = put(
        delta(field="occupation", value=TEACHER),
        end(scope="object", subject_id="obj-a", field="job"),
    )
    assert "related" not in changed["results"][0], changed["results"][0]
    assert "also current" not in changed["summary"]
    moved = put(
        delta(subject="obj-b", field="occupation", value="老师"),
        {"action": "delete", "scope": "object", "subject_id": "obj-b", "field": "job"},
    )
    assert "related" not in moved["results"][0]
    assert "also current" not in moved["summary"]


def test_apply_returns_the_row_as_stored_after_the_store_wide_cap(enabled: Path) -> None:
    # The written row's own past value is the oldest in the store: the cap trims it at
    # once, and the result must say so (it is "the row as written").
    _fill_past(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"], rows_=20)
    put(delta("user", field="y", value="y-old", occurred_at="2010-01-01"))
    r = put(delta("user", field="y", value="y-new", occurred_at="2011-01-01"))
    assert _past_count() == 60
    assert r["results"][0]["memory"] == row(mid(r))


def test_a_dry_run_end_writes_nothing(enabled: Path) -> None:
    r = put(delta(field="city", value="上海"))
    before, ops = shown(), op_ids()
    data = ok("apply", "--dry-run", "--verbose", "--json", _json(end(id=mid(r))))
    assert data["dry_run"] is True and data["results"][0]["action"] == "ended"
    assert data["results"][0]["memory"]["ended"] is True
    assert shown() == before and op_ids() == ops


def test_an_end_at_a_date_time_ends_on_the_day_it_was_said(enabled: Path) -> None:
    r = put(delta("relationship", field="stage", value="在一起", occurred_at="2025-01-01"))
    put(
        end(
            scope="relationship",
            subject_id="obj-a",
            field="stage",
            occurred_at="2026-06-01T07:00+08:00",
        )
    )
    assert row(mid(r))["past"][-1]["until"] == "2026-06-01"


def test_one_batch_may_unpin_one_milestone_and_pin_another(enabled: Path) -> None:
    pins = put(*(_event(i, pinned=True) for i in range(5)))
    swapped = put(_event(0, pinned=False), _event(5, pinned=True))
    assert [r["memory"]["pinned"] for r in swapped["results"]] == [False, True]
    stored = shown()
    assert stored[mid(pins)]["pinned"] is False
    assert sum(m["pinned"] for m in stored.values()) == 5


def test_undo_never_takes_the_store_past_sixty_past_values(enabled: Path) -> None:
    # The caps hold after an undo too (documentation/guarantees.md#what-it-is: the store never grows past them):
    # bringing back a deleted row with three past values into a full store.
    for value, day in (("x0", "2021-01-01"), ("x1", "2021-02-01"), ("x2", "2021-03-01")):
        put(delta("user", field="x", value=value, occurred_at=day))
    put(delta("user", field="x", value="x3", occurred_at="2021-04-01"))
    _fill_past(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"])
    assert _past_count() == 60
    deleted = put({"action": "delete", "scope": "user", "field": "x"})
    for i in range(4):
        put(delta("user", field="y", value=f"y{i}", occurred_at=f"2022-0{i + 1}-01"))
    assert _past_count() == 60
    r = cli("undo", "--op-id", deleted["op_id"])
    if r.code == 0:
        assert _past_count() <= 60
    else:
        assert r.error["code"] == "MEMORY_LIMIT_REACHED", r.error
        assert _past_count() == 60


def test_undo_never_gives_a_subject_a_sixth_pin(enabled: Path) -> None:
    put(*(_event(i, pinned=True) for i in range(5)))
    deleted = put(
        {"action": "delete", "scope": "event", "subject_id": "obj-a", "field": "milestone"}
        | {"occurred_at": "2025-01-01"}
    )
    put(_event(5, pinned=True))
    r = cli("undo", "--op-id", deleted["op_id"])
    pins = sum(m["pinned"] for m in shown().values())
    if r.code == 0:
        assert pins <= 5
    else:
        assert r.error["code"] == "MEMORY_LIMIT_REACHED", r.error
        assert pins == 5
