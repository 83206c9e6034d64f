"""The review page shows everything stored (documentation/review.md#what-the-review-page-shows) and what documentation/time.md#where-history-lives adds over time.

Read by a real headless Chromium, like test_review_page.py. Rows the
store writes today come through the real CLI and are checked against ``show``
and ``log``; past values, ended rows, milestones and tidy's findings, which the
store cannot produce yet, are built as the dicts ``show`` and ``tidy`` will
give (documentation/time.md#tidy) and rendered by the real page builder. Time zones are
POSIX TZ strings ("CST-8" is UTC+08:00), which need no tz database.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import apply, delta, ok
from support.browser import BROWSERS, Dom, dump_dom, find_browser, norm, write_review

from memory_store.review import PAST_DELETE, command_text, render_review
from memory_store.review.markup import CONFIDENCE, FINDINGS, SOURCES
from memory_store.store import limits

needs_browser = pytest.mark.skipif(
    find_browser() is None,
    reason=f"no chromium: none of {', '.join(BROWSERS)} on PATH (apt-get install -y chromium)",
)


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set this process's time zone (the CLI runs in process); restored afterwards."""

    def set_zone(tz: str) -> None:
        monkeypatch.setenv("TZ", tz)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def _row_element(dom: Dom, row_id: str) -> str:
    """The text of the innermost table row, timeline entry or card that shows ``row_id``."""
    found = [
        i
        for tag, cls in (("tr", None), ("li", None), ("article", "guess"))
        for i in dom.find(tag, cls)
        if row_id in dom.text(i)
    ]
    assert found, row_id
    return norm(dom.text(max(found)))  # the innermost comes last in document order


# ---------------------------------------------------------------- what the store holds today


@needs_browser
def test_every_row_shows_its_source_type_and_reference(enabled: Path, tmp_path: Path) -> None:
    rows = (
        delta("user", field="goal", value="三个月内稳定下来", source_ref="turn:3"),
        delta("object", "obj-a", "display_label", "小林"),
        delta("object", "obj-a", "job", "在杭州做平面设计", source_ref="chat 2026-07-02 (turn:18)"),
        delta(
            "relationship",
            "obj-a",
            "stage",
            "暧昧期",
            source="user_explicit",
            source_ref="export.txt line 2041",
        ),
        delta(
            "event",
            "obj-a",
            "first_date",
            "西湖边散步",
            occurred_at="2026-05-03",
            source="chatlab",
            source_ref='<i>turn:40</i> & "quoted"',
            confidence="high",
        ),
        delta(
            "hypothesis",
            "obj-a",
            "intent",
            "Seems serious",
            confidence="low",
            source_ref="turn:41",
        ),
    )
    assert apply(*rows).code == 0
    dom = Dom(dump_dom(write_review(tmp_path / "review.html")))
    assert "i" not in dom.tags()
    stored = ok("show")["memories"]
    assert {r["scope"] for r in stored} == {"user", "object", "relationship", "event", "hypothesis"}
    for row in stored:
        shown = _row_element(dom, row["id"])
        assert f"source: {SOURCES[row['source_type']][1]}" in shown, row
        assert row["source_ref"] is None or norm(row["source_ref"]) in shown, row
        assert f"confidence: {CONFIDENCE[row['confidence']][1]}" in shown, row
    job = next(r for r in stored if r["field"] == "job")
    assert "reference: chat 2026-07-02 (turn:18)" in _row_element(dom, job["id"])
    date = next(r for r in stored if r["field"] == "first_date")
    assert "source: a chat record" in _row_element(dom, date["id"])


@needs_browser
def test_times_are_shown_in_the_offset_they_were_written_in(
    enabled: Path, tmp_path: Path, zone: Any
) -> None:
    zone("CST-8")  # the person's computer is at UTC+08:00, as when they told it
    late = delta(
        "event", "obj-a", "conflict", "因为回消息慢吵了一架", occurred_at="2026-05-01T21:30+08:00"
    )
    # 02:00 at +08:00 is the previous day in UTC: the date must come back too.
    early = delta(
        "event", "obj-a", "repair", "凌晨打电话和好", occurred_at="2026-05-02T02:00+08:00"
    )
    dated = delta("event", "obj-a", "first_date", "第一次约会", occurred_at="2026-04-03")
    assert apply(late, early, dated).code == 0
    stored = {r["field"]: r for r in ok("show")["memories"]}
    assert stored["conflict"]["occurred_at"] == "2026-05-01T13:30:00Z"  # the store keeps UTC
    assert stored["repair"]["occurred_at"] == "2026-05-01T18:00:00Z"
    page = write_review(tmp_path / "review.html")
    dom = Dom(dump_dom(page))
    conflict = _row_element(dom, stored["conflict"]["id"])
    # The line says the day and time as told; the details, the exact time with its offset.
    assert conflict.startswith("quarrel 因为回消息慢吵了一架 1 May 2026 21:30"), conflict
    assert "happened 2026-05-01 21:30 +08:00" in conflict
    assert "13:30" not in conflict and "UTC" not in conflict
    repair = _row_element(dom, stored["repair"]["id"])
    assert repair.startswith("making up 凌晨打电话和好 2 May 2026 02:00"), repair
    assert "happened 2026-05-02 02:00 +08:00" in repair
    first = _row_element(dom, stored["first_date"]["id"])
    assert first.startswith("first date 第一次约会 3 April 2026") and "happened 2026-04-03" in first
    # The machine's own stamps are in the same zone, which the header names.
    written = stored["conflict"]["created_at"]
    assert written.endswith("Z")
    header = norm(dom.text(dom.find("header")[0]))
    assert "times in this computer's time zone, +08:00" in header
    assert " UTC" not in norm(dom.text())
    # The exact stored string stays on the page, machine-readable.
    markup = page.read_text(encoding="utf-8")
    assert '<time datetime="2026-05-01T13:30:00Z">2026-05-01 21:30 +08:00</time>' in markup
    assert f'<time datetime="{written}">' in markup


@needs_browser
def test_a_kept_offset_wins_over_the_computers_zone(tmp_path: Path, zone: Any) -> None:
    zone("UTC0")
    rows = [
        _event("m-01", "conflict", "2026-05-01T13:30:00Z", occurred_offset="+08:00"),
        _event("m-02", "call", "2026-05-01T13:30:00Z", occurred_offset="-05:00"),
        _event("m-03", "trip", "2026-05-01T13:30:00Z", occurred_offset="Z"),
        _event("m-04", "odd", "2026-05-01T13:30:00Z", occurred_offset="<b>+99:99</b>"),
        _event("m-05", "old", "2026-05-01T13:30:00Z"),  # written before offsets were kept
    ]
    dom = Dom(dump_dom(_page(tmp_path, rows)))
    assert "b" not in dom.tags()
    shown = {i: _row_element(dom, i) for i in ("m-01", "m-02", "m-03", "m-04", "m-05")}
    assert shown["m-01"].startswith("quarrel event conflict 1 May 2026 21:30")
    assert "happened 2026-05-01 21:30 +08:00" in shown["m-01"]
    assert shown["m-02"].startswith("call event call 1 May 2026 08:30")
    assert "happened 2026-05-01 08:30 -05:00" in shown["m-02"]
    assert "happened 2026-05-01 13:30 UTC" in shown["m-03"]
    assert "happened 2026-05-01 13:30 UTC" in shown["m-04"]  # unreadable: this zone
    assert "happened 2026-05-01 13:30 UTC" in shown["m-05"]


@needs_browser
def test_operations_name_people_by_their_labels(enabled: Path, tmp_path: Path, zone: Any) -> None:
    zone("CST-8")
    assert (
        apply(
            delta("object", "obj-a", "display_label", "小林"),
            delta("object", "obj-h", "display_label", "<b>Sam</b>"),
        ).code
        == 0
    )
    assert (
        apply(
            delta("relationship", "obj-a", "stage", "正式在一起了"),
            delta("relationship", "obj-h", "stage", "Friends"),
            delta("relationship", "obj-z", "stage", "No label yet"),
        ).code
        == 0
    )
    assert (
        apply(
            delta("event", "obj-a", "conflict", "吵了一架", occurred_at="2026-05-01T21:30+08:00")
        ).code
        == 0
    )
    log = ok("log")["operations"]
    assert "obj-a relationship.stage → 正式在一起了" in log[1]["summary"]  # what the store keeps
    assert "obj-a event.conflict@2026-05-01T13:30:00Z → 吵了一架" in log[0]["summary"]
    dom = Dom(dump_dom(write_review(tmp_path / "review.html")))
    assert "b" not in dom.tags()
    ops = norm(dom.text(dom.find("table", "ops")[0]))
    # People by name, keys in words (documentation/review.md).
    assert "小林 stage → 正式在一起了" in ops
    assert "<b>Sam</b> stage → Friends" in ops
    assert "obj-z stage → No label yet" in ops  # no label: the code stays
    assert "小林 quarrel@2026-05-01 21:30 +08:00 → 吵了一架" in ops
    assert "小林 name → 小林" in ops
    assert "obj-a" not in ops and "relationship.stage" not in ops
    # The code and the key are still there, on hover, for the commands that need them.
    whos = [a for t, a in dom.elements if t == "span" and a.get("class") == "who"]
    assert {a["title"] for a in whos} == {"obj-a", "obj-h"}
    keys = {a["title"] for t, a in dom.elements if t == "span" and a.get("class") == "key"}
    assert keys == {"relationship.stage", "event.conflict", "object.display_label"}


def test_every_command_on_the_page_is_built_by_one_function() -> None:
    rows = [_fact("m-01", "object", "display_label", "小林")]
    ops = [{"op_id": "op-1", "created_at": "2026-11-30T12:00:00Z", "action": "apply",
            "summary": "obj-a object.display_label → 小林", "rows": 1}]  # fmt: skip
    markup = render_review(_snapshot(rows, operations=ops), findings=[])
    dom = Dom(markup)
    commands = {norm(dom.text(i)) for i in dom.find("code", "cmd")}
    expected = {
        command_text(args)
        for args in (
            "forget MEMORY_ID --confirm",
            "forget-object SUBJECT --confirm",
            "clear --confirm",
            "revoke --delete --confirm",
            "forget-object user --confirm",
            "forget-object obj-a --confirm",
            "undo --op-id op-1",
            "tidy",
            PAST_DELETE,
        )
    }
    assert commands == expected
    assert command_text("tidy") == "memory-store tidy"


# ---------------------------------------------------------------- documentation/time.md#where-history-lives: rows as show will give them


def _fact(row_id: str, scope: str, field: str, value: Any, **kw: Any) -> dict[str, Any]:
    row = {
        "id": row_id, "scope": scope, "subject_id": "user" if scope == "user" else "obj-a",
        "field": field, "value": value, "source_type": "user_report", "source_ref": None,
        "occurred_at": None, "confidence": "medium", "created_at": "2026-06-01T10:00:00Z",
        "updated_at": "2026-06-01T10:00:00Z",
    }  # fmt: skip
    row.update(kw)
    return row


def _event(row_id: str, field: str, when: str, **kw: Any) -> dict[str, Any]:
    return _fact(row_id, "event", field, f"event {field}", occurred_at=when, **kw)


def _snapshot(memories: list[dict[str, Any]], **changes: Any) -> dict[str, Any]:
    snapshot = {
        "generated_at": "2026-11-30T12:00:00Z",
        "version": "0.3.0",
        "consent": {"enabled": True, "paused": False, "consent_at": "2026-11-01T09:00:00Z"},
        "limits": limits(),
        "counts": {"total": len(memories), "by_scope": {}},
        "memories": memories,
        "operations": [],
    }
    snapshot.update(changes)
    return snapshot


def _page(tmp_path: Path, rows: list[dict[str, Any]], findings: Any = None) -> Path:
    page = tmp_path / "page.html"
    page.write_text(render_review(_snapshot(rows), findings=findings), encoding="utf-8")
    return page


HOSTILE_PAST = "<script>alert('past')</script>在上海做平面设计师"

TIME_ROWS = [
    _fact("m-label", "object", "display_label", "小林"),
    _fact(
        "m-job",
        "object",
        "job",
        "辞职后去杭州当老师了",
        since="2026-03-10",
        past=[
            {
                "value": "实习生",
                "since": "2025-03-01",
                "until": "2025-09-01",
                "source_type": "chatlab",
            },
            {
                "value": HOSTILE_PAST,
                "since": "2025-09-01",
                "until": "2026-03-10",
                "source_type": "user_report",
            },
        ],
    ),  # fmt: skip
    _fact(
        "m-stage",
        "relationship",
        "stage",
        None,
        ended=True,
        since="2026-06-01",
        past=[
            {
                "value": "暧昧期",
                "since": "2025-10-01",
                "until": "2026-01-15",
                "source_type": "user_report",
            },
            {
                "value": "正式在一起了",
                "since": "2026-01-15",
                "until": "2026-06-01",
                "source_type": "user_explicit",
            },
        ],
    ),  # fmt: skip
    _fact("m-city", "object", "city", "杭州", since="2026-03-10", past=[]),
    _event("m-met", "first_meeting", "2025-03-02", pinned=True, since="2025-03-02"),
    _event("m-fight", "conflict", "2026-02-01", pinned=False, since="2026-02-01"),
    _fact("m-user", "user", "goal", "好好生活", since="2026-01-01"),
]


@needs_browser
def test_past_values_read_as_a_timeline_oldest_first(tmp_path: Path) -> None:
    page = _page(tmp_path, TIME_ROWS)
    assert "<script" not in page.read_text(encoding="utf-8")
    dom = Dom(dump_dom(page))
    assert "script" not in dom.tags()
    job = _row_element(dom, "m-job")
    first = "2025-03-01 → 2025-09-01: 实习生 (a chat record)"
    second = f"2025-09-01 → 2026-03-10: {HOSTILE_PAST} (you relayed it)"
    assert first in job and second in job and job.index(first) < job.index(second)
    assert job.startswith("job 辞职后去杭州当老师了 since March 2026") and "Earlier" in job
    assert "since 2026-03-10" in job
    city = _row_element(dom, "m-city")
    assert "Earlier" not in city and "since 2026-03-10" in city
    assert "since 2026-01-01" in _row_element(dom, "m-user")


@needs_browser
def test_an_ended_row_is_shown_as_ended_with_its_last_value(tmp_path: Path) -> None:
    dom = Dom(dump_dom(_page(tmp_path, TIME_ROWS)))
    stage = _row_element(dom, "m-stage")
    # Its line is its last value and when it ended; the exact date is in its details.
    assert stage.startswith("stage 正式在一起了 until June 2026"), stage
    assert "ended 2026-06-01" in stage
    assert "2026-01-15 → 2026-06-01: 正式在一起了" in stage
    assert "2025-10-01 → 2026-01-15: 暧昧期" in stage
    ended = [i for i in dom.find("li", "ended")]
    assert len(ended) == 1 and "m-stage" in dom.text(ended[0])
    job = _row_element(dom, "m-job")
    assert "until" not in job and "ended" not in job


@needs_browser
def test_pinned_events_are_marked_as_milestones(tmp_path: Path) -> None:
    dom = Dom(dump_dom(_page(tmp_path, TIME_ROWS)))
    met, fight = _row_element(dom, "m-met"), _row_element(dom, "m-fight")
    assert met.startswith("first meeting milestone event first_meeting 2 March 2025"), met
    assert "happened 2025-03-02" in met and "milestone" not in fight
    pinned = dom.find("li", "pinned")
    assert len(pinned) == 1 and "m-met" in dom.text(pinned[0])
    # An event's since is its date: not repeated.
    assert "since" not in met


FINDINGS_GIVEN = [
    {"kind": "same_concept", "subject_id": "obj-a", "ids": ["m-job", "m-occ"],
     "message": "job and occupation both hold a current value"},
    {"kind": "stale_hypothesis", "subject_id": "obj-a", "ids": ["m-guess"],
     "message": "not rewritten for 75 days"},
    {"kind": "relative_date", "subject_id": "user", "ids": ["m-user"],
     "message": "“昨天” was 2026-02-11"},
    {"kind": "near_cap", "subject_id": "obj-a", "ids": ["m-fight"],
     "message": "events 16 / 20: m-fight would go next"},
    {"kind": "ended", "subject_id": "obj-a", "ids": ["m-stage"],
     "message": "<img src=x onerror=alert(1)> ended 2026-06-01"},
    {"kind": "<b>new_kind</b>", "subject_id": "<i>x</i>", "ids": "<u>one</u>",
     "message": "a kind from a newer release"},
]  # fmt: skip


@needs_browser
def test_tidy_findings_are_listed_as_suggestions(tmp_path: Path) -> None:
    page = _page(tmp_path, TIME_ROWS, findings=FINDINGS_GIVEN)
    dom = Dom(dump_dom(page))
    assert not dom.tags() & {"img", "b", "i", "u", "script"}
    section = dom.find("section", "tidy")
    assert len(section) == 1
    text = norm(dom.text(section[0]))
    assert text.startswith("Tidy suggestions")
    items = [norm(dom.text(i)) for i in dom.find("li", "finding")]
    assert len(items) == len(FINDINGS_GIVEN)
    for item, finding in zip(items, FINDINGS_GIVEN, strict=True):
        assert finding["message"] in item
        if finding["kind"] in FINDINGS:
            assert item.startswith(FINDINGS[finding["kind"]][1])
    # In words (the person, what the rows are about); tidy's message and the IDs in details.
    assert items[0].startswith("The same thing, twice 小林 job job and occupation")
    assert items[0].endswith("ID m-job m-occ")
    assert "You" in items[2]
    assert items[5].startswith("<b>new_kind</b> <i>x</i>") and items[5].endswith("ID <u>one</u>")
    assert "memory-store tidy" in text
    # After the people, before the operations.
    order = [dom.find("section", c)[0] for c in ("person", "tidy", "ops")]
    assert order == sorted(order)


def test_no_findings_says_so_and_none_leaves_the_section_out() -> None:
    empty = Dom(render_review(_snapshot(TIME_ROWS), findings=[]))
    section = empty.find("section", "tidy")
    assert len(section) == 1
    assert "Nothing to tidy." in norm(empty.text(section[0]))
    assert not Dom(render_review(_snapshot(TIME_ROWS))).find("section", "tidy")


def test_rows_from_before_release_3_render_without_the_new_keys() -> None:
    # show before documentation/time.md#writing: no since, past, ended or pinned; the page reads as before.
    rows = [
        {k: v for k, v in r.items() if k not in ("since", "past", "ended", "pinned")}
        for r in TIME_ROWS
        if r["value"] is not None
    ]
    dom = Dom(render_review(_snapshot(rows)))
    text = norm(dom.text())
    assert "辞职后去杭州当老师了" in text and not dom.find("div", "history")
    for absent in ("until", "milestone", "since 2026-03-10", "Tidy"):
        assert absent not in text


def test_every_new_key_is_escaped_even_when_malformed() -> None:
    evil = "\"'><b onmouseover=x>&lt;"
    past = [{"value": evil, "since": evil, "until": evil, "source_type": evil}, evil, None]
    rows = [
        _fact("m-1", "object", "job", evil, since=evil, past=past, ended=True),
        _fact("m-2", "relationship", "stage", None, ended=True, past=evil),
        _event("m-3", "met", evil, pinned=evil, occurred_offset=evil, past=[{}]),
        _fact("m-4", "hypothesis", "intent", evil, since=evil, past=past, ended=evil),
    ]
    findings = [{"kind": evil, "subject_id": evil, "ids": [evil, None], "message": evil}, evil]
    ops = [{"op_id": evil, "created_at": evil, "action": evil, "rows": evil,
            "summary": f"{evil} obj-a object.job → {evil}; obj-a event.met@{evil}"}]  # fmt: skip
    dom = Dom(render_review(_snapshot(rows, operations=ops, data_dir=evil), findings=findings))
    assert "b" not in dom.tags()
    assert not [a for _, attrs in dom.elements for a in attrs if a.startswith("on")]
    assert norm(dom.text()).count(norm(evil)) >= 16
