"""Export version 3 and import of versions 1, 2 and 3 (documentation/time.md#where-history-lives, documentation/commands.md#import-an-export-comes-back, documentation/guarantees.md#robustness).

- export → revoke --delete → enable → import gives back the same rows, with their
  since, past values, ended state and pins;
- a version-1 document (11 keys per row) still imports, with since computed as the
  migration computes it;
- a malformed time (too many past values, since after until, unknown keys, sensitive
  text in a past value, past values on an event) is refused naming the row, and
  nothing is imported.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from support import ROW_KEYS, delta, fails, ok, put
from support.timekit import shown

T = "2026-10-01T08:00:00Z"


def _store_with_time() -> None:
    label = put(delta(value="小A"))
    assert label["op_id"]
    job = put(delta(field="job", value="在上海做平面设计师", occurred_at="2024-03-01"))
    put(
        delta(
            field="occupation",
            value="老师",
            occurred_at="2026-02-01",
            replaces=job["results"][0]["memory"]["id"],
        )
    )
    put(delta("relationship", field="stage", value="暧昧期", occurred_at="2025-05-01"))
    put(delta("relationship", field="stage", value="在一起", occurred_at="2025-09-01"))
    put(delta("user", field="goal", value="学做饭"))
    put({"action": "end", "scope": "user", "field": "goal", "occurred_at": "2026-06-01"})
    put(
        delta("event", field="first_meeting", value="咖啡馆", occurred_at="2024-03-01", pinned=True)
    )
    put(delta("hypothesis", field="intent", value="想认真交往"))


def _without_ids(memories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = [{k: v for k, v in m.items() if k != "id"} for m in memories]
    return sorted(out, key=lambda m: json.dumps(m, ensure_ascii=False, sort_keys=True))


def test_export_is_version_three_with_each_rows_time(enabled: Path) -> None:
    _store_with_time()
    doc = ok("export")["document"]
    assert doc["format"] == "memory-store-export/v3"
    offsets = [m.pop("occurred_offset") for m in doc["memories"]]
    assert doc["memories"] == ok("show")["memories"]
    assert set(offsets) == {None}  # every time here was told as a date
    ended = [m for m in doc["memories"] if m["ended"]]
    assert {m["field"] for m in ended} == {"job", "goal"}
    assert all(m["value"] is None and m["past"] for m in ended)


def test_export_revoke_delete_enable_import_gives_back_the_same_rows(
    enabled: Path, tmp_path: Path
) -> None:
    _store_with_time()
    before = ok("show")["memories"]
    out = tmp_path / "backup.json"
    ok("export", "--output", str(out))
    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm")
    data = ok("import", str(out))
    assert data["counts"]["created"] == len(before) and data["op_id"]
    after = ok("show")["memories"]
    assert _without_ids(after) == _without_ids(before)
    # Imported history behaves as history: the past job is recalled with its until.
    ctx = ok("context", "--subject-id", "obj-a", "--query", "她以前做什么工作")
    old = [m for m in ctx["memories"] if m["value"] == "在上海做平面设计师"]
    assert old and old[0]["until"] == "2026-02-01"
    # ... and the import is one undoable operation.
    ok("undo")
    assert ok("show")["count"] == 0


def test_importing_the_same_document_again_changes_nothing(enabled: Path) -> None:
    _store_with_time()
    doc = ok("export")["document"]
    before = shown()
    data = ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert data["counts"]["unchanged"] == len(before) and data["op_id"] is None
    assert shown() == before


def _v1_row(mid: str, scope: str, field: str, value: str, **kw: Any) -> dict[str, Any]:
    row = {
        "id": mid,
        "scope": scope,
        "subject_id": "user" if scope == "user" else "obj-a",
        "field": field,
        "value": value,
        "source_type": "user_explicit",
        "source_ref": None,
        "occurred_at": None,
        "confidence": "medium",
        "created_at": T,
        "updated_at": T,
    }
    row.update(kw)
    assert tuple(row) == ROW_KEYS
    return row


def test_a_version_one_document_still_imports_with_since_computed(enabled: Path) -> None:
    doc = {
        "format": "memory-store-export/v1",
        "exported_at": T,
        "policy_version": 1,
        "schema_version": 2,
        "consent": {
            "enabled": True,
            "consent_at": T,
            "consent_renewed_at": T,
            "paused": False,
            "revoked_at": None,
        },
        "memories": [
            _v1_row("m-00000000000000a1", "user", "goal", "学做饭"),
            _v1_row(
                "m-00000000000000a2", "relationship", "stage", "在一起", occurred_at="2025-09-01"
            ),
            _v1_row(
                "m-00000000000000a3",
                "event",
                "conflict",
                "吵架",
                occurred_at="2026-05-01T12:00:00Z",
            ),
        ],
    }
    data = ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert data["counts"]["created"] == 3
    rows = {m["field"]: m for m in ok("show")["memories"]}
    assert rows["goal"]["since"] == "2026-10-01"
    assert rows["stage"]["since"] == "2025-09-01"
    assert rows["conflict"]["since"] == "2026-05-01"
    for m in rows.values():
        assert m["past"] == [] and m["ended"] is False and m["pinned"] is False
    # A version-1 row with the time keys of version 2 is not a version-1 row.
    doc["memories"][0] = {**doc["memories"][0], "since": "2026-10-01"}
    fails("INVALID_DELTA", "import", "-", input=json.dumps(doc, ensure_ascii=False))


def _v2_doc() -> dict[str, Any]:
    put(delta(field="city", value="上海", occurred_at="2024-01-01"))
    put(delta(field="city", value="杭州", occurred_at="2025-01-01"))
    put(delta("event", field="milestone", value="认识", occurred_at="2024-01-01"))
    doc = ok("export")["document"]
    ok("clear", "--confirm")
    return doc


def _index_of(doc: dict[str, Any], field: str) -> int:
    return next(i for i, m in enumerate(doc["memories"]) if m["field"] == field)


def _past(value: str, since: str, until: str) -> dict[str, Any]:
    return {"value": value, "since": since, "until": until, "source_type": "user_report"}


BREAKS = {
    "four_past_values": lambda m: m.update(
        past=[_past(f"v{i}", f"201{i}-01-01", f"201{i + 1}-01-01") for i in range(4)]
    ),
    "since_after_until": lambda m: m.update(past=[_past("北京", "2023-01-01", "2022-01-01")]),
    "unknown_key": lambda m: m["past"][0].update(note="x"),
    "missing_key": lambda m: m["past"][0].pop("source_type"),
    "not_a_date": lambda m: m["past"][0].update(until="2024-13-01"),
    "empty_value": lambda m: m["past"][0].update(value=""),
    "too_long": lambda m: m["past"][0].update(value="长" * 201),
    "ineligible_source": lambda m: m["past"][0].update(source_type="assistant_inference"),
    "ended_without_past": lambda m: m.update(value=None, ended=True, past=[]),
    "ended_but_value": lambda m: m.update(ended=True),
    "pinned_not_event": lambda m: m.update(pinned=True),
    "bad_since": lambda m: m.update(since="2024-02-30"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_malformed_time_is_refused_naming_the_row(enabled: Path, name: str) -> None:
    doc = copy.deepcopy(_v2_doc())
    i = _index_of(doc, "city")
    BREAKS[name](doc["memories"][i])
    expected = "SOURCE_NOT_ELIGIBLE" if name == "ineligible_source" else "INVALID_DELTA"
    r = fails(expected, "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.error["details"]["index"] == i, r.error
    assert f"memories[{i}]" in r.error["details"].get("path", f"memories[{i}]")
    assert ok("show")["count"] == 0


def test_past_values_on_an_event_are_refused(enabled: Path) -> None:
    doc = _v2_doc()
    i = _index_of(doc, "milestone")
    doc["memories"][i]["past"] = [_past("初见", "2023-01-01", "2024-01-01")]
    r = fails("INVALID_DELTA", "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.error["details"]["index"] == i
    assert ok("show")["count"] == 0


def test_sensitive_text_in_a_past_value_is_refused_without_echo(enabled: Path) -> None:
    doc = _v2_doc()
    i = _index_of(doc, "city")
    phone = "13812345678"
    doc["memories"][i]["past"][0]["value"] = f"电话 {phone}"
    r = fails("SENSITIVE_REJECTED", "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.error["details"]["index"] == i
    assert phone not in r.stdout
    assert ok("show")["count"] == 0


def test_six_pinned_events_for_one_subject_are_refused(enabled: Path) -> None:
    put(
        *(
            delta(
                "event",
                field="milestone",
                value=f"m{i}",
                occurred_at=f"2024-01-0{i + 1}",
                pinned=True,
            )
            for i in range(5)
        )
    )
    doc = ok("export")["document"]
    ok("clear", "--confirm")
    extra = copy.deepcopy(doc["memories"][0])
    extra.update(id="m-00000000000000e6", occurred_at="2024-01-09", value="m6")
    doc["memories"].append(extra)
    fails("MEMORY_LIMIT_REACHED", "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert ok("show")["count"] == 0


def test_a_version_one_document_keeps_the_stores_pins_and_past_values(enabled: Path) -> None:
    # A version-1 document knows nothing of time: importing one (an old backup) over
    # rows that have past values or pins must not erase them.
    put(delta(field="city", value="上海", occurred_at="2024-01-01"))
    put(delta(field="city", value="杭州", occurred_at="2025-01-01"))
    put(delta("event", field="milestone", value="认识", occurred_at="2024-01-01", pinned=True))
    before = shown()
    v1 = ok("export")["document"]
    v1["format"] = "memory-store-export/v1"
    v1["memories"] = [{k: m[k] for k in ROW_KEYS} for m in v1["memories"]]
    ok("import", "-", input=json.dumps(v1, ensure_ascii=False))
    after = shown()
    for memory_id, m in before.items():
        assert after[memory_id]["past"] == m["past"], after[memory_id]
        assert after[memory_id]["pinned"] == m["pinned"], after[memory_id]


def test_an_import_over_the_store_wide_past_cap_is_refused_whole(enabled: Path) -> None:
    for r, day in enumerate(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"]):
        put(*(delta("user", field=f"g{i}", value=f"g{i}-v{r}", occurred_at=day) for i in range(20)))
    doc = ok("export")["document"]
    assert sum(len(m["past"]) for m in doc["memories"]) == 60
    ok("clear", "--confirm")
    put(delta(field="city", value="上海"))
    put(delta(field="city", value="杭州"))
    before = shown()
    r = fails("MEMORY_LIMIT_REACHED", "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.error["details"]["limit"] == 60
    assert shown() == before


def test_the_offset_an_event_time_was_written_in_survives_export_and_import(
    enabled: Path, tmp_path: Path
) -> None:
    """documentation/guarantees.md#robustness: the restored store's review page shows 19:30 +08:00, not 11:30 UTC."""
    put(delta("event", field="conflict", value="吵架", occurred_at="2026-07-20T19:30:00+08:00"))
    out = tmp_path / "backup.json"
    ok("export", "--output", str(out))
    written = json.loads(out.read_text("utf-8"))["memories"]
    assert [m["occurred_offset"] for m in written if m["scope"] == "event"] == ["+08:00"]
    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm")
    ok("import", str(out))
    again = ok("export")["document"]["memories"]
    assert [m["occurred_offset"] for m in again if m["scope"] == "event"] == ["+08:00"]
    page = tmp_path / "page.html"
    ok("review", "--output", str(page))
    text = page.read_text("utf-8")
    assert "2026-07-20 19:30 +08:00" in text and ">2026-07-20 11:30" not in text


@pytest.mark.parametrize("offset", ["+14:00", "-12:00", "+05:45", "-00:30", "Z"])
def test_every_offset_apply_takes_comes_back_from_its_own_export(
    enabled: Path, offset: str
) -> None:
    """documentation/commands.md#import-an-export-comes-back: apply and import read one offset rule, so a store's export always imports."""
    put(delta("event", field="conflict", value="吵架", occurred_at=f"2026-07-20T19:30{offset}"))
    doc = ok("export")["document"]
    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm")
    ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    again = ok("export")["document"]["memories"]
    assert [m["occurred_offset"] for m in again if m["scope"] == "event"] == [offset]


@pytest.mark.parametrize("offset", ["+15:00", "+20:00", "-23:59", "+08:60"])
def test_apply_refuses_an_offset_no_clock_uses_which_import_would_refuse(
    enabled: Path, offset: str
) -> None:
    # Before, apply took +20:00 (any offset under 24 hours) and import refused the export.
    body = delta("event", field="conflict", value="吵架", occurred_at=f"2026-07-20T19:30{offset}")
    r = fails("INVALID_DELTA", "apply", "--json", json.dumps(body, ensure_ascii=False))
    assert r.error["details"]["path"].endswith("occurred_at")
    assert ok("show")["count"] == 0


def _as_version_two(doc: dict[str, Any]) -> dict[str, Any]:
    doc["format"] = "memory-store-export/v2"
    for m in doc["memories"]:
        m.pop("occurred_offset", None)
        for p in m["past"]:
            p.pop("past_id", None)  # release 3's past values had no handle
    return doc


def test_a_version_two_document_still_imports(enabled: Path) -> None:
    doc = _as_version_two(_v2_doc())
    ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert {m["field"] for m in ok("show")["memories"]} == {"city", "milestone"}


@pytest.mark.parametrize(
    "offset, occurred_at",
    [("+8", "2024-01-01"), ("+15:00", "2024-01-01"), ("Z", None), (8, "2024-01-01")],
)
def test_a_malformed_offset_is_refused_naming_the_row(
    enabled: Path, offset: Any, occurred_at: str | None
) -> None:
    doc = _v2_doc()
    i = _index_of(doc, "city")
    doc["memories"][i].update(occurred_offset=offset, occurred_at=occurred_at)
    r = fails("INVALID_DELTA", "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.error["details"]["index"] == i
    assert r.error["details"]["path"] == f"$.memories[{i}].occurred_offset"
    assert ok("show")["count"] == 0


@pytest.mark.parametrize("padding", [" " * 5000, "\u3000" * 300, "\n\t "])
def test_an_imported_past_value_is_stored_trimmed_and_bounded(enabled: Path, padding: str) -> None:
    """documentation/commands.md#import-an-export-comes-back: the past value is checked trimmed and stored trimmed, like every value (references/memory-rules.md#field-rules-enforced)."""
    doc = _as_version_two(_v2_doc())  # what release 3 wrote, and stored raw
    i = _index_of(doc, "city")
    doc["memories"][i]["past"][0]["value"] = padding + "a" * 200 + padding
    ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    city = next(m for m in ok("show")["memories"] if m["field"] == "city")
    assert city["past"][0]["value"] == "a" * 200


def test_an_imported_past_value_over_200_characters_is_refused(enabled: Path) -> None:
    doc = _v2_doc()
    i = _index_of(doc, "city")
    doc["memories"][i]["past"][0]["value"] = "a" * 201
    r = fails("INVALID_DELTA", "import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.error["details"]["index"] == i
    assert ok("show")["count"] == 0
