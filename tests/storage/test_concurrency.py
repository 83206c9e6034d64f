"""Concurrency (documentation/commands.md#robustness): many processes at once, a held lock, and lock-free reads.

- Eight worker processes each make twenty writes through the real CLI at the same
  time on one store: every acknowledged write is present exactly once, every write
  that reported ``STORE_BUSY`` is absent, nothing crashes, the file is intact.
- A writer blocked longer than the busy timeout gets ``STORE_BUSY`` (exit 6) in
  bounded time and writes nothing.
- Every read path (status, show, context, log, export, doctor) answers while the
  test holds the write lock: none of them takes one.
- Races (documentation/architecture.md#races-and-how-each-is-closed), with one process paused at a chosen point: two first enables at once
  never report a corrupt store, and a write that loses to revoke --delete answers
  ``NOT_INITIALIZED`` and recreates nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support import db_connect, delta, left_after_revoke_delete, ok, put, run_cli

from memory_store import MemoryStore, MemoryStoreError
from memory_store.storage import migrations

WORKERS = 8
WRITES_PER_WORKER = 20
READERS = 2

# A worker waits for "go" on stdin, then runs its CLI calls one after another and
# prints one JSON line per call. Writers alternate object and relationship fields
# of their own subject, so no write is ever pruned or refused by a cap
# (8 x 20 = 160 rows: 10 object + 10 relationship rows per subject, 160 <= 200).
WORKER = r"""
import json, subprocess, sys
import os
role, index, count, busy_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
env = dict(os.environ, **({"MEMORY_STORE_BUSY_TIMEOUT_MS": busy_ms} if busy_ms else {}))
sys.stdin.readline()
for j in range(count):
    if role == "writer":
        scope = "object" if j % 2 == 0 else "relationship"
        body = {"scope": scope, "subject_id": f"w{index}", "field": f"f{j:02d}",
                "value": f"worker {index} write {j}", "source_type": "user_report"}
        args = ["apply", "--json", json.dumps(body)]
    else:
        body = None
        args = [["status"], ["show"], ["context", "--subject-id", "w0"], ["log"],
                ["export"], ["context"]][j % 6]
    proc = subprocess.run([sys.executable, "-m", "memory_store", *args],
                          capture_output=True, timeout=300, env=env)
    print(json.dumps({"args": args, "body": body, "code": proc.returncode,
                      "stdout": proc.stdout.decode("utf-8", "replace"),
                      "stderr": proc.stderr.decode("utf-8", "replace")}), flush=True)
"""


def integrity(store_dir: Path) -> str:
    conn = db_connect(store_dir, readonly=True)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def parse_envelope(call: dict[str, Any]) -> dict[str, Any]:
    assert "Traceback" not in call["stderr"], call
    assert call["stderr"] == "", call
    lines = call["stdout"].splitlines()
    assert len(lines) == 1, call
    return json.loads(lines[0])


def run_workers(roles: list[tuple[str, int, int, str]], timeout: float = 600) -> list[list[dict]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, role, str(index), str(count), busy_ms],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for role, index, count, busy_ms in roles
    ]
    try:
        for p in procs:  # all started: release them together
            assert p.stdin is not None
            p.stdin.write(b"go\n")
            p.stdin.flush()
        outputs = []
        deadline = time.monotonic() + timeout
        for p in procs:
            out, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            assert p.returncode == 0, err.decode()
            outputs.append([json.loads(line) for line in out.decode().splitlines()])
        return outputs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_many_writers_lose_no_acknowledged_write(enabled: Path) -> None:
    # Half the writers are impatient (a 30 ms busy timeout), so that under
    # contention some writes are refused with STORE_BUSY: those must leave no trace.
    roles = [("writer", i, WRITES_PER_WORKER, "30" if i % 2 else "") for i in range(WORKERS)]
    roles += [("reader", i, 12, "") for i in range(READERS)]
    outputs = run_workers(roles)

    acked: dict[tuple[str, str, str], dict[str, Any]] = {}
    busy: list[tuple[str, str, str]] = []
    acked_ops: set[str] = set()
    for calls in outputs[:WORKERS]:
        assert len(calls) == WRITES_PER_WORKER
        for call in calls:
            env = parse_envelope(call)
            body = call["body"]
            key = (body["scope"], body["subject_id"], body["field"])
            if call["code"] == 0:
                assert env["ok"] is True
                (result,) = env["data"]["results"]
                assert result["action"] == "created"
                assert env["data"]["pruned"] == []
                acked[key] = result["memory"]
                acked_ops.add(env["data"]["op_id"])
            else:
                # The only acceptable failure under contention is a lock not obtained in time.
                assert (call["code"], env["error"]["code"]) == (6, "STORE_BUSY"), call
                busy.append(key)
    for calls in outputs[WORKERS:]:
        for call in calls:
            env = parse_envelope(call)
            assert call["code"] == 0 and env["ok"] is True, call

    print(f"acknowledged {len(acked)}, busy {len(busy)}")
    assert acked, "no write was acknowledged at all"
    assert len(acked) + len(busy) == WORKERS * WRITES_PER_WORKER

    rows = ok("show")["memories"]
    by_key: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by_key.setdefault((row["scope"], row["subject_id"], row["field"]), []).append(row)
    for key, memory in acked.items():
        # present, exactly once, as acknowledged (apply answered with the compact row)
        found = by_key.get(key, [])
        assert [{k: r[k] for k in memory} for r in found] == [memory], key
    for key in busy:
        assert key not in by_key, key
    assert len(rows) == len(acked)
    assert len({row["id"] for row in rows}) == len(rows)

    # The undo window holds the most recent acknowledged operations, and nothing else.
    log = ok("log")["operations"]
    assert len(log) == min(20, len(acked_ops))
    assert {op["op_id"] for op in log} <= acked_ops

    assert integrity(enabled) == "ok"
    report = MemoryStore(enabled).doctor()
    assert report["ok"] is True, report["findings"]


def test_a_blocked_writer_gets_store_busy_and_writes_nothing(
    enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok("apply", "--json", json.dumps(delta(value="before the lock")))
    before_rows = ok("show")["memories"]
    before_log = ok("log")["operations"]

    holder = db_connect(enabled, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        env = {"MEMORY_STORE_BUSY_TIMEOUT_MS": "200"}
        attempts = [
            ["apply", "--json", json.dumps(delta(value="while locked"))],
            ["apply", "--json", json.dumps(delta(subject="obj-b", value="new while locked"))],
            ["undo"],
            ["forget-object", "obj-a", "--confirm"],
            ["clear", "--confirm"],
            ["pause"],
            ["revoke", "--confirm"],
            ["enable", "--confirm"],
        ]
        for args in attempts:
            start = time.monotonic()
            r = run_cli(*args, env=env, timeout=120)
            elapsed = time.monotonic() - start
            assert r.code == 6, (args, r.stdout)
            assert r.error is not None and r.error["code"] == "STORE_BUSY", (args, r.stdout)
            # Bounded: a 200 ms timeout must not turn into an indefinite wait.
            assert elapsed < 60, (args, elapsed)
        # The in-process API refuses the same way.
        store = MemoryStore(enabled)
        monkeypatch.setenv("MEMORY_STORE_BUSY_TIMEOUT_MS", "200")
        with pytest.raises(MemoryStoreError) as excinfo:
            store.apply(delta(value="library while locked"))
        assert excinfo.value.code == "STORE_BUSY"
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    assert ok("show")["memories"] == before_rows
    assert ok("log")["operations"] == before_log
    status = ok("status")
    assert status["consent_enabled"] is True and status["paused"] is False
    assert integrity(enabled) == "ok"


def test_a_writer_waits_for_a_lock_released_within_the_timeout(enabled: Path) -> None:
    holder = db_connect(enabled, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    env = dict(os.environ, MEMORY_STORE_BUSY_TIMEOUT_MS="120000")
    body = json.dumps(delta(value="after the wait"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_store", "apply", "--json", body],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        time.sleep(1.0)  # the writer is (most likely) now waiting on the lock
        holder.execute("ROLLBACK")
        holder.close()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert err == b""
    assert proc.returncode == 0, out
    assert json.loads(out)["data"]["results"][0]["action"] == "created"
    assert [m["value"] for m in ok("show")["memories"]] == ["after the wait"]


READ_COMMANDS = [
    ["status"],
    ["show"],
    ["show", "--subject-id", "obj-a"],
    ["context"],
    ["context", "--subject-id", "obj-a"],
    ["log"],
    ["export"],
    ["doctor"],
    ["--format", "table", "show"],
    ["--format", "table", "status"],
]


def test_reads_succeed_while_the_write_lock_is_held(
    enabled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(
        "apply",
        "--json",
        json.dumps(
            {
                "deltas": [
                    delta(value="Alice"),
                    delta(scope="relationship", field="stage", value="friends"),
                    delta(
                        scope="user", field="goal", value="learn to cook", source="user_explicit"
                    ),
                ]
            }
        ),
    )
    expected_rows = ok("show")["memories"]

    holder = db_connect(enabled, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    # An uncommitted change inside the held transaction: readers must not see it.
    holder.execute("UPDATE memories SET value = 'uncommitted' WHERE scope = 'object'")
    try:
        # A read that tried to take the write lock would fail fast with STORE_BUSY.
        env = {"MEMORY_STORE_BUSY_TIMEOUT_MS": "300"}
        for args in READ_COMMANDS:
            r = run_cli(*args, env=env, timeout=120, check_envelope=args[0] != "--format")
            assert r.code == 0, (args, r.stdout, r.stderr)
        assert run_cli("show", env=env).data["memories"] == expected_rows
        out = tmp_path / "export.json"
        r = run_cli("export", "--output", str(out), env=env)
        assert r.code == 0 and out.exists()
        report = run_cli("doctor", env=env).data
        assert report["ok"] is True, report

        # The in-process API's read methods too.
        monkeypatch.setenv("MEMORY_STORE_BUSY_TIMEOUT_MS", "300")
        store = MemoryStore(enabled)
        assert store.status()["counts"]["total"] == 3
        assert store.show()["memories"] == expected_rows
        assert store.context(subject_id="obj-a")["memories"]
        assert len(store.log()["operations"]) == 1
        assert len(store.export()["document"]["memories"]) == 3
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert ok("show")["memories"] == expected_rows


# --- races ------------------------------------------------------------------------------


# A process paused at one point of a command, while another process runs. It patches the
# function that runs at that point (by its name in the module that owns it), says "paused"
# on stdout, waits for a line on stdin, then lets the command finish and prints its envelope.
DRIVER = r"""
import json, sys, threading
import memory_store.storage.db as db
point, argv = sys.argv[1], json.loads(sys.argv[2])

def pause():
    sys.__stdout__.write("paused\n")
    sys.__stdout__.flush()
    sys.stdin.readline()

def before(module, name):
    real = getattr(module, name)
    def wrapped(*a, **k):
        pause()
        return real(*a, **k)
    setattr(module, name, wrapped)

def after(module, name):
    real = getattr(module, name)
    def wrapped(*a, **k):
        out = real(*a, **k)
        pause()
        return out
    setattr(module, name, wrapped)

if point == "schema-read":
    # Right after the blank file's schema version was read: release 1 read the table
    # list in a second statement, this release reads both in one.
    if hasattr(db, "read_schema"):
        after(db, "read_schema")
    else:
        before(db, "has_tables")
elif point == "before-connect":
    before(db, "connect")
elif point == "after-connect":
    after(db, "connect")
from memory_store.cli import main
main(argv)  # its envelope is the last line on stdout
"""


class Paused:
    """A CLI command in another process, stopped at ``point`` until ``resume()``."""

    def __init__(self, point: str, *args: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", DRIVER, point, json.dumps(list(args))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ},
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line == b"paused\n", line

    def resume(self) -> dict:
        out, _ = self.proc.communicate(b"\n", timeout=60)
        return json.loads(out.decode("utf-8").strip().splitlines()[-1])


def test_two_first_enables_at_once_never_report_corrupt(private_store: Path) -> None:
    first = Paused("schema-read", "enable", "--confirm")  # it has read the blank file's schema
    ok("enable", "--confirm", spawn=True)  # the second completes the store meanwhile
    envelope = first.resume()
    assert envelope["ok"] is True, envelope["error"]
    status = ok("status")
    assert status["consent_enabled"] is True and status["schema_version"] == len(
        migrations.MIGRATIONS
    )
    assert ok("doctor")["ok"] is True


@pytest.mark.parametrize("point", ["before-connect", "after-connect"])
def test_a_write_that_loses_a_race_with_revoke_delete_answers_not_initialized(
    enabled: Path, point: str
) -> None:
    put(delta(value="before the race"))
    racer = Paused(point, "apply", "--json", json.dumps(delta(field="mbti", value="INFJ")))
    ok("revoke", "--delete", "--confirm", spawn=True)
    envelope = racer.resume()
    assert envelope["ok"] is False, envelope
    assert envelope["error"]["code"] == "NOT_INITIALIZED", envelope
    assert left_after_revoke_delete(enabled) == []  # nothing was recreated or written
    assert ok("status")["exists"] is False
