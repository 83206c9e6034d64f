"""import (documentation/commands.md#import-an-export-comes-back): an export comes back, checked like apply, all or nothing, undoable.

Also through a pipe (``export | import -``, documentation/commands.md#import-an-export-comes-back), and never with a time after the
import's own (documentation/permissions.md#what-the-code-enforces-for-everyone)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from support import ROW_KEYS, TIME_KEYS, as_shown, cli, delta, fails, ok, put, run_cli

EVERY_KIND = [
    delta("user", field="goal", value="找到长期稳定的关系", source="user_explicit"),
    delta("object", field="display_label", value="小林（读书会认识的）", source_ref="turn:3"),
    delta("object", field="diet", value="不吃香菜，\n对海鲜过敏"),
    delta("relationship", field="stage", value="exclusive dating", confidence="high"),
    delta("event", field="conflict", value="因为迟到吵了一架", occurred_at="2026-05-01"),
    delta(
        "event",
        field="repair",
        value="she apologised over dinner",
        occurred_at="2026-05-03T19:30+08:00",
    ),
    delta(
        "hypothesis",
        field="attachment_style",
        value="可能是焦虑型",
        source_ref="turn:9 回复慢就着急",
    ),
    delta("object", subject="obj-b", field="display_label", value="Alex", source="user_explicit"),
]


def state() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """Everything observable: rows, the undo log, consent."""
    status = ok("status")
    return (
        ok("show")["memories"],
        ok("log")["operations"],
        {k: status[k] for k in ("consent_enabled", "paused", "counts")},
    )


def export_to(path: Path) -> dict[str, Any]:
    ok("export", "--output", str(path))
    return json.loads(path.read_text(encoding="utf-8"))


def write_doc(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def exported(enabled: Path, tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    put(*EVERY_KIND)
    put(delta("relationship", field="stage", value="engaged", confidence="high"))  # an update
    rows = ok("show")["memories"]
    return tmp_path / "export.json", rows


def test_export_revoke_delete_enable_import_gives_back_the_same_rows(
    exported: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, rows = exported
    export_to(path)
    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm")
    result = ok("import", str(path))
    assert result["counts"] == {"created": len(rows), "updated": 0, "unchanged": 0}
    assert result["op_id"] and result["undo_hint"].endswith(f" undo --op-id {result['op_id']}")
    assert result["dry_run"] is False
    back = ok("show")["memories"]
    assert back == rows  # every key, the ids and the original times included
    assert [o["action"] for o in ok("log")["operations"]] == ["import"]
    assert ok("doctor")["ok"] is True


def test_import_into_a_store_updates_by_key_and_keeps_the_documents_times(
    exported: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    path, rows = exported
    doc = export_to(path)
    put(delta("relationship", field="stage", value="broke up"))  # differs from the document
    put(delta("object", field="job", value="设计师"))  # not in the document: stays
    result = ok("import", str(path))
    assert result["counts"] == {"created": 0, "updated": 1, "unchanged": len(rows) - 1}
    stage = [m for m in ok("show")["memories"] if m["field"] == "stage"][0]
    original = [m for m in as_shown(doc) if m["field"] == "stage"][0]
    assert stage == original
    assert "设计师" in [m["value"] for m in ok("show")["memories"]]


def test_undo_reverts_the_whole_import(exported: tuple[Path, list[dict[str, Any]]]) -> None:
    path, rows = exported
    export_to(path)
    ok("clear", "--confirm")
    put(delta("relationship", field="stage", value="broke up"))
    before = state()
    result = ok("import", str(path))
    assert result["counts"]["created"] == len(rows) - 1 and result["counts"]["updated"] == 1
    undone = ok("undo")
    assert undone["undone_op_id"] == result["op_id"]
    assert state() == before


def test_a_dry_run_writes_nothing(exported: tuple[Path, list[dict[str, Any]]]) -> None:
    path, rows = exported
    export_to(path)
    ok("clear", "--confirm")
    before = state()
    result = ok("import", "--dry-run", str(path))
    assert result == {
        "op_id": None,
        "counts": {"created": len(rows), "updated": 0, "unchanged": 0},
        "summary": (
            f"would import {len(rows)} memories: {len(rows)} to create, 0 to update, 0 unchanged"
        ),
        "undo_hint": None,
        "dry_run": True,
        "past_ids_replaced": [],
    }
    assert state() == before


def test_an_import_that_changes_nothing_records_no_operation(
    exported: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, _ = exported
    export_to(path)
    before = state()
    result = ok("import", str(path))
    assert (
        result["op_id"] is None and result["counts"]["created"] == result["counts"]["updated"] == 0
    )
    assert state() == before


def test_standard_input(exported: tuple[Path, list[dict[str, Any]]]) -> None:
    path, rows = exported
    export_to(path)
    ok("clear", "--confirm")
    result = ok("import", "-", input=path.read_bytes())
    assert result["counts"]["created"] == len(rows)
    r = run_cli("import", "-", input=path.read_bytes())  # and through a real pipe
    assert r.code == 0 and r.data["counts"]["unchanged"] == len(rows)


def _doc(tmp_path: Path, *rows: dict[str, Any], **top: Any) -> Path:
    doc = {
        "format": "memory-store-export/v1",
        "exported_at": "2026-11-30T12:00:00Z",
        "policy_version": 1,
        "schema_version": 2,
        "consent": {
            "enabled": True,
            "consent_at": "2026-11-01T00:00:00Z",
            "consent_renewed_at": "2026-11-01T00:00:00Z",
            "paused": False,
            "revoked_at": None,
        },
        "memories": list(rows),
    }
    doc.update(top)
    return write_doc(tmp_path / "doc.json", doc)


def row(n: int = 0, **changes: Any) -> dict[str, Any]:
    base = {
        "id": f"m-{n:016x}",
        "scope": "event",
        "subject_id": "obj-a",
        "field": f"event_{n}",
        "value": f"第 {n} 件事",
        "source_type": "user_report",
        "source_ref": None,
        "occurred_at": "2026-05-01",
        "confidence": "medium",
        "created_at": "2026-05-01T10:00:00Z",
        "updated_at": "2026-05-02T10:00:00Z",
    }
    base.update(changes)
    return base


REFUSALS = [
    ("sensitive-value", [row(value="她的手机 13812345678")], {}, "SENSITIVE_REJECTED"),
    ("sensitive-field", [row(field="phone_number")], {}, "SENSITIVE_REJECTED"),
    (
        "ineligible-source",
        [row(scope="object", source_type="assistant_inference", occurred_at=None)],
        {},
        "SOURCE_NOT_ELIGIBLE",
    ),
    (
        "hypothesis-without-evidence",
        [row(scope="hypothesis", occurred_at=None, confidence="low")],
        {},
        "INVALID_DELTA",
    ),
    ("over-a-pruning-cap", [row(n) for n in range(21)], {}, "MEMORY_LIMIT_REACHED"),
    (
        "over-a-refusing-cap",
        [row(n, scope="relationship", occurred_at=None) for n in range(11)],
        {},
        "MEMORY_LIMIT_REACHED",
    ),
    ("newer-version", [row()], {"format": "memory-store-export/v4"}, "INVALID_DELTA"),
    ("not-an-export", [row()], {"format": "someone-else/v1"}, "INVALID_DELTA"),
    ("unknown-row-key", [{**row(), "extra": 1}], {}, "INVALID_DELTA"),
    ("bad-time", [row(created_at="2026-13-45T99:00:00Z")], {}, "INVALID_DELTA"),
    ("same-memory-twice", [row(1), row(2, field="event_1")], {}, "INVALID_DELTA"),
    ("user-in-another-case", [row(subject_id="User")], {}, "INVALID_DELTA"),
]


@pytest.mark.parametrize(("name", "rows", "top", "code"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_refusal_leaves_the_store_unchanged(
    enabled: Path,
    tmp_path: Path,
    name: str,
    rows: list[dict[str, Any]],
    top: dict[str, Any],
    code: str,
) -> None:
    put(delta(value="已有的记忆"))
    before = state()
    path = _doc(tmp_path, *rows, **top)
    r = fails(code, "import", str(path))
    assert "13812345678" not in r.stdout
    assert state() == before
    if code == "MEMORY_LIMIT_REACHED":
        details = r.error["details"]
        assert details["subject_id"] == "obj-a" and details["scope"] in ("event", "relationship")
        assert details["limit"] in (20, 10)
        assert "nothing was imported" in r.error["message"]


def test_a_cap_filled_by_the_store_and_the_document_together_refuses(
    enabled: Path, tmp_path: Path
) -> None:
    put(*(delta("hypothesis", field=f"h{i}", value=f"猜测 {i}") for i in range(4)))
    before = state()
    doc = _doc(
        tmp_path,
        *(
            row(i, scope="hypothesis", occurred_at=None, source_ref="turn:1", confidence="low")
            for i in range(2)
        ),
    )
    r = fails("MEMORY_LIMIT_REACHED", "import", str(doc))
    assert r.error["details"]["scope"] == "hypothesis" and r.error["details"]["count"] == 6
    assert state() == before  # never pruned to make room


def test_bad_files(enabled: Path, tmp_path: Path) -> None:
    before = state()
    fails("INVALID_ARGUMENTS", "import", str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{not json")
    fails("INVALID_DELTA", "import", str(tmp_path / "bad.json"))
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (1024 * 1024) + b"{}")
    r = fails("INVALID_DELTA", "import", str(big))
    assert r.error["details"]["limit"] == 1024 * 1024
    (tmp_path / "empty.json").write_text("")
    fails("INVALID_DELTA", "import", str(tmp_path / "empty.json"))
    fails("INVALID_ARGUMENTS", "import")
    assert state() == before


def test_consent_is_checked_before_the_file_is_read(private_store: Path, tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.json")
    fails("NOT_INITIALIZED", "import", missing)
    ok("enable", "--confirm")
    ok("pause")
    fails("MEMORY_PAUSED", "import", missing)
    ok("revoke", "--confirm")
    fails("CONSENT_REQUIRED", "import", missing)
    fifo = tmp_path / "never-opened"
    os.mkfifo(fifo)  # opening it would block: the gate must refuse first
    r = run_cli("import", str(fifo), timeout=30)
    assert r.error["code"] == "CONSENT_REQUIRED"


def test_a_taken_id_is_replaced_not_shared(enabled: Path, tmp_path: Path) -> None:
    mine = put(delta(value="我的"))["results"][0]["memory"]
    doc = _doc(tmp_path, row(7, id=mine["id"]))
    result = ok("import", str(doc))
    assert result["counts"]["created"] == 1
    ids = [m["id"] for m in ok("show")["memories"]]
    assert len(set(ids)) == 2 and mine["id"] in ids


def test_rows_carry_exactly_the_contract_keys(exported: tuple[Path, list[dict[str, Any]]]) -> None:
    path, _ = exported
    doc = export_to(path)
    assert all(list(m) == [*ROW_KEYS, *TIME_KEYS, "occurred_offset"] for m in doc["memories"])


# ---------------------------------------------------------------- pipes


def test_export_piped_into_import(people: Path) -> None:
    exported = run_cli("export")
    assert exported.code == 0
    ok("clear", "--confirm")
    dry = run_cli("import", "-", "--dry-run", input=exported.stdout)
    assert dry.code == 0 and dry.data["counts"]["created"] == 3
    assert dry.data["summary"].startswith("would import 3 memories: 3 to create")
    assert "imported" not in dry.data["summary"]
    imported = run_cli("import", "-", input=exported.stdout)
    assert imported.code == 0 and imported.data["counts"]["created"] == 3
    assert imported.data["summary"].startswith("imported 3 memories: 3 created")
    assert ok("show")["memories"] == as_shown(exported.data["document"])


def test_a_real_shell_pipe(people: Path) -> None:
    import subprocess
    import sys

    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm")
    put(delta(value="小林"))
    exe = f"{shlex.quote(sys.executable)} -m memory_store"
    line = f"{exe} export | {exe} import - --dry-run"
    proc = subprocess.run(line, shell=True, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)["data"]
    assert result["summary"] == "would import 1 memory: 0 to create, 0 to update, 1 unchanged"


def test_an_envelope_that_is_not_an_export_is_refused(people: Path, tmp_path: Path) -> None:
    status = run_cli("status").stdout
    failed = fails("INVALID_DELTA", "import", "-", input=status)
    assert failed.error["details"]["path"] == "$.command"
    written = run_cli("export", "--output", str(tmp_path / "copy.json")).stdout
    failed = fails("INVALID_DELTA", "import", "-", input=written)
    assert "--output" in failed.error["message"]


# ---------------------------------------------------------------- imported times are not from the future


def _exported(tmp_path: Path) -> dict[str, Any]:
    put(delta(value="小A"), delta(field="hobby", value="爬山"))
    path = tmp_path / "export.json"
    ok("export", "--output", str(path))
    return json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("key", ["created_at", "updated_at"])
@pytest.mark.parametrize("when", ["2999-01-01T00:00:00Z", "soon"])
def test_an_imported_time_after_the_import_is_refused(
    enabled: Path, tmp_path: Path, key: str, when: str
) -> None:
    import time

    doc = _exported(tmp_path)
    before = ok("show")["memories"], ok("log")["operations"]
    if when == "soon":  # an hour ahead: a clock set wrong, or an edit
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    doc["memories"][1][key] = when
    if key == "created_at":
        doc["memories"][1]["updated_at"] = when
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    for args in (["import", str(edited)], ["import", str(edited), "--dry-run"]):
        r = cli(*args)
        assert r.code == 4 and r.error is not None and r.error["code"] == "INVALID_DELTA", r.stdout
        assert r.error["details"] == {"index": 1, "path": f"$.memories[1].{key}"}, r.error
        assert when in r.error["message"]
    assert (ok("show")["memories"], ok("log")["operations"]) == before


def test_an_export_imported_at_once_keeps_its_times(enabled: Path, tmp_path: Path) -> None:
    doc = _exported(tmp_path)
    ok("clear", "--confirm")
    r = cli("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.code == 0, r.stdout
    times = {(m["created_at"], m["updated_at"]) for m in ok("show")["memories"]}
    assert times == {(m["created_at"], m["updated_at"]) for m in doc["memories"]}
