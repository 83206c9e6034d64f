"""Results the model reads on every write and every task (documentation/mcp.md#the-tools): a one-delta
``apply`` of a short value and a ``status`` inside the caps are small — measured as the
JSON the command line prints (envelope and ``undo_hint`` included) and as the JSON text
an MCP tool returns — while what the model must act on stays, and ``--verbose`` /
``verbose: true`` gives the whole view.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import call, data_of, delta, ok, refusal_payload, run_cli

from memory_store import MemoryStore
from memory_store.mcp import build_server

APPLY_MAX = 450
STATUS_MAX = 600
SHORT = delta(value="小林")  # an object row the user reported: a 2-character value


def _printed(*args: str) -> tuple[int, dict[str, Any]]:
    """What the real command line prints for ``args``: its length and its envelope."""
    done = run_cli(*args)
    assert done.code == 0, done.stdout
    return len(done.stdout.rstrip("\n")), json.loads(done.stdout)


@pytest.fixture
def default_store(private_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The platform's default store (XDG_DATA_HOME points into the test's directory),
    the one a person's own install uses: commands handed to them name no directory."""
    monkeypatch.delenv("MEMORY_STORE_DIR")
    ok("enable", "--confirm", spawn=True)


def test_a_one_delta_apply_prints_at_most_450_characters(default_store: None) -> None:
    size, envelope = _printed("apply", "--json", json.dumps(SHORT, ensure_ascii=False))
    print(f"apply: {size} characters")
    assert size <= APPLY_MAX, envelope
    data = envelope["data"]
    assert set(data) == {"op_id", "results", "pruned", "summary", "undo_hint", "dry_run"}
    memory = data["results"][0]["memory"]
    # the compact row: the subject the delta named and the timestamps left out
    assert memory == {
        "id": memory["id"],
        "scope": "object",
        "field": "display_label",
        "value": "小林",
        "source_type": "user_report",
    }
    assert data["undo_hint"] == f"memory-store undo --op-id {data['op_id']}"
    whole = _printed("apply", "--verbose", "--json", json.dumps(delta(field="job", value="设计师")))
    assert {"created_at", "since", "past", "subject_id"} <= set(
        whole[1]["data"]["results"][0]["memory"]
    )


def test_status_inside_the_caps_prints_at_most_600_characters(default_store: None) -> None:
    ok("apply", "--json", json.dumps(SHORT, ensure_ascii=False), spawn=True)
    size, envelope = _printed("status")
    print(f"status: {size} characters")
    assert size <= STATUS_MAX, envelope
    assert envelope["data"]["limits"] is None
    assert envelope["data"]["counts"]["by_scope"]["object"] == 1
    _, verbose = _printed("status", "--verbose")
    assert verbose["data"]["limits"]["by_scope"]["object"]["max"] == 15


def test_status_shows_the_caps_when_a_kind_nears_its_cap(enabled: Path) -> None:
    # 12 of obj-a's 15 object rows: 80 % of a per-subject cap, though the store is nearly empty
    rows = [delta(field=f"f{i}", value=f"v{i}") for i in range(11)]
    ok("apply", "--json", json.dumps({"deltas": [SHORT, *rows]}, ensure_ascii=False))
    assert ok("status")["limits"]["by_scope"]["object"] == {
        "max": 15,
        "per": "subject",
        "policy": "refuse",
    }
    ok(
        "apply",
        "--json",
        json.dumps({"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "f0"}),
    )
    assert ok("status")["limits"] is None  # 11 of 15: below 80 %


def test_what_the_model_must_act_on_stays_in_a_compact_result(enabled: Path) -> None:
    ok("apply", "--json", json.dumps(delta(field="job", value="设计师"), ensure_ascii=False))
    data = ok(
        "apply", "--json", json.dumps(delta(field="occupation", value="老师"), ensure_ascii=False)
    )
    [related] = data["results"][0]["related"]
    assert related["value"] == "设计师"
    replaced = ok(
        "apply",
        "--json",
        json.dumps(
            delta(field="occupation", value="老师", replaces=related["id"]), ensure_ascii=False
        ),
    )["results"][0]["replaced"]
    assert replaced["value"] == "设计师" and "until" in replaced  # ended, as a past value
    events = [
        delta("event", field=f"e{i:02d}", value=f"event {i}", occurred_at=f"2026-03-{i + 1:02d}")
        for i in range(20)
    ]
    ok("apply", "--json", json.dumps({"deltas": events}))
    more = delta("event", field="e99", value="one more", occurred_at="2026-04-01")
    pruned = ok("apply", "--json", json.dumps(more))["pruned"]
    assert [p["field"] for p in pruned] == ["e00"] and pruned[0]["subject_id"] == "obj-a"
    end = {"action": "end", "scope": "object", "subject_id": "obj-a", "field": "occupation"}
    [ended] = ok("apply", "--json", json.dumps(end))["results"]
    assert ended["action"] == "ended"
    assert (ended["memory"]["value"], "until" in ended["memory"]) == ("老师", True)


pytestmark = pytest.mark.anyio


async def test_the_mcp_tools_answer_as_compactly(enabled: Path) -> None:
    store = MemoryStore(enabled)
    async with Client(build_server(store)) as client:
        applied = await call(client, "memory_apply", delta=SHORT)
        status = await call(client, "memory_status")
        whole = await call(
            client, "memory_apply", delta=delta(field="job", value="x"), verbose=True
        )
        caps = await call(client, "memory_status", verbose=True)
        refused = await call(
            client,
            "memory_apply",
            delta=delta("user", field="city", value="x", source="user_report"),
        )
    text = applied.content[0].text
    print(f"memory_apply: {len(text)} characters, memory_status: {len(status.content[0].text)}")
    assert len(text) <= APPLY_MAX and len(status.content[0].text) <= STATUS_MAX
    assert "created_at" not in data_of(applied)["results"][0]["memory"]
    assert data_of(status)["limits"] is None
    assert "created_at" in data_of(whole)["results"][0]["memory"]
    assert data_of(caps)["limits"]["undo_history"] == 20
    assert refusal_payload(refused.content[0].text)["code"] == "SOURCE_NOT_ELIGIBLE"
