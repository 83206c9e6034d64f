"""One handle, one past value, across an import (documentation/time.md's past_id).

A version-3 document may carry a ``past_id`` that already names another past value in
the store (an older export, taken before a ``replaces`` moved the value, or a copy
edited by hand). Import keeps the store's value on its handle and gives the document's
value a handle of its own, and says so in ``data.past_ids_replaced``: otherwise the page
asks "delete Bea's old job?" and deletes Dana's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support import delta, ok, put

ID_CHARS = set("0123456789abcdef")


def _dana_with_an_old_job() -> str:
    put(delta(subject="obj-d", value="Dana"))
    put(delta(subject="obj-d", field="job", value="nurse at St Mary's", occurred_at="2024-01-01"))
    put(delta(subject="obj-d", field="job", value="ward manager", occurred_at="2025-06-01"))
    (job,) = [m for m in ok("show")["memories"] if m["field"] == "job"]
    (past,) = job["past"]
    return str(past["past_id"])


def _bea_holding(doc: dict[str, Any], past_id: str) -> dict[str, Any]:
    """The document as Bea's: Dana's rows moved to obj-b with new ids and other values,
    the old job's handle kept."""
    for m in doc["memories"]:
        m["subject_id"] = "obj-b"
        m["id"] = "m-" + "b" * 15 + m["id"][-1]
        if m["field"] == "display_label":
            m["value"] = "Bea"
        elif m["field"] == "job":
            m["value"] = "barista"
            (p,) = m["past"]
            assert p["past_id"] == past_id
            p["value"] = "student at the art school"
    return doc


def test_a_handle_the_store_gives_another_past_value_is_replaced(enabled: Path) -> None:
    handle = _dana_with_an_old_job()
    doc = _bea_holding(ok("export")["document"], handle)

    done = ok("import", "-", input=json.dumps(doc, ensure_ascii=False))

    (replaced,) = done["past_ids_replaced"]
    assert replaced["was"] == handle
    new = replaced["past_id"]
    assert new != handle and new.startswith("p-") and set(new[2:]) <= ID_CHARS
    assert "new handle" in done["summary"]
    jobs = {m["subject_id"]: m for m in ok("show")["memories"] if m["field"] == "job"}
    assert jobs["obj-d"]["past"][0]["past_id"] == handle
    assert jobs["obj-b"]["past"][0]["past_id"] == new

    # "Delete Dana's old job" deletes Dana's, and Bea's stays.
    ok("apply", "--json", json.dumps({"action": "delete", "past_id": handle}))
    jobs = {m["subject_id"]: m for m in ok("show")["memories"] if m["field"] == "job"}
    assert jobs["obj-d"]["past"] == []
    assert [p["value"] for p in jobs["obj-b"]["past"]] == ["student at the art school"]


def test_the_same_document_imported_again_changes_nothing(enabled: Path) -> None:
    handle = _dana_with_an_old_job()
    doc = json.dumps(_bea_holding(ok("export")["document"], handle), ensure_ascii=False)
    first = ok("import", "-", input=doc)
    again = ok("import", "-", input=doc)
    assert again["past_ids_replaced"] == first["past_ids_replaced"]
    assert again["counts"]["unchanged"] == sum(first["counts"].values())
    assert again["op_id"] is None


def test_a_dry_run_says_which_handles_it_would_replace(enabled: Path) -> None:
    handle = _dana_with_an_old_job()
    before = ok("show")["memories"]
    doc = _bea_holding(ok("export")["document"], handle)
    dry = ok("import", "-", "--dry-run", input=json.dumps(doc, ensure_ascii=False))
    assert [r["was"] for r in dry["past_ids_replaced"]] == [handle]
    assert ok("show")["memories"] == before


def test_a_document_restoring_its_own_rows_keeps_their_handles(enabled: Path) -> None:
    handle = _dana_with_an_old_job()
    doc = ok("export")["document"]
    done = ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert done["past_ids_replaced"] == []
    (job,) = [m for m in ok("show")["memories"] if m["field"] == "job"]
    assert job["past"][0]["past_id"] == handle
