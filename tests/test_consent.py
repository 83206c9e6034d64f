"""documentation/variables.md#where-the-store-lives, documentation/commands.md#consent-states-and-the-order-of-checks: the consent states (``consent_state`` tells revoked from never
asked, documentation/commands.md#consent-states-and-the-order-of-checks), the gate's position in the check order, a zero-length database, and file
modes whatever the umask."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import (
    DB_NAME,
    as_shown,
    call,
    data_of,
    delta,
    fails,
    left_after_revoke_delete,
    ok,
    run_cli,
    values_of,
)

from memory_store.mcp import build_server

VALID = json.dumps(delta("relationship", field="stage", value="确认约会"), ensure_ascii=False)
GARBAGE = (b"\xff\xfe{not json at all " * 6000)[: 100 * 1024]


def _files(store: Path) -> dict[str, bytes]:
    if not store.exists():
        return {}
    return {p.name: p.read_bytes() for p in sorted(store.iterdir())}


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _set_settings(db: Path, **values: str) -> None:
    conn = sqlite3.connect(db)
    try:
        with conn:
            for k, v in values.items():
                conn.execute("UPDATE settings SET value = ? WHERE key = ?", (v, k))
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# absent: no file


def test_status_on_absent_store_creates_nothing(private_store: Path) -> None:
    data = ok("status")
    assert data["exists"] is False
    assert data["consent_enabled"] is False
    assert data["undo_available"] == 0
    assert not private_store.exists()


ABSENT_CASES: list[tuple[list[str], str | None]] = [
    (["enable"], "CONFIRMATION_REQUIRED"),
    (["pause"], "NOT_INITIALIZED"),
    (["resume"], "NOT_INITIALIZED"),
    (["apply", "--json", VALID], "NOT_INITIALIZED"),
    (["apply", "--dry-run", "--json", VALID], "NOT_INITIALIZED"),
    (["apply", "--file", "/nonexistent/delta.json"], "NOT_INITIALIZED"),
    (["apply", "--json", "not json"], "NOT_INITIALIZED"),
    (["undo"], "NOT_INITIALIZED"),
    (["undo", "--op-id", "op-12345678"], "NOT_INITIALIZED"),
    (["log"], "NOT_INITIALIZED"),
    (["show"], "NOT_INITIALIZED"),
    (["show", "--subject-id", "obj-a", "--scope", "object"], "NOT_INITIALIZED"),
    (["context"], "NOT_INITIALIZED"),
    (["context", "--subject-id", "obj-a", "--max-chars", "500"], "NOT_INITIALIZED"),
    (["forget", "m-0123456789abcdef", "--confirm"], "NOT_INITIALIZED"),
    # The command line, --confirm included, is checked before the store (documentation/commands.md#consent-states-and-the-order-of-checks order).
    (["forget", "m-0123456789abcdef"], "CONFIRMATION_REQUIRED"),
    (["forget-object", "obj-a", "--confirm"], "NOT_INITIALIZED"),
    (["forget-object", "obj-a"], "CONFIRMATION_REQUIRED"),
    (["revoke", "--confirm"], "NOT_INITIALIZED"),
    (["revoke"], "CONFIRMATION_REQUIRED"),
    (["revoke", "--delete"], "CONFIRMATION_REQUIRED"),
    (["clear", "--confirm"], "NOT_INITIALIZED"),
    (["clear"], "CONFIRMATION_REQUIRED"),
    (["export"], "NOT_INITIALIZED"),
    (["revoke", "--delete", "--confirm"], None),
    (["doctor"], None),
    (["doctor", "--fix"], None),
    (["status"], None),
]


@pytest.mark.parametrize(
    ("args", "code"), ABSENT_CASES, ids=[" ".join(a)[:40] for a, _ in ABSENT_CASES]
)
def test_absent_store_every_command_creates_nothing(
    args: list[str], code: str | None, private_store: Path
) -> None:
    if code is None:
        ok(*args)
    else:
        fails(code, *args)
    assert not private_store.exists()
    assert not private_store.parent.joinpath("xdg-data").exists()


def test_absent_store_apply_from_stdin_creates_nothing(private_store: Path) -> None:
    fails("NOT_INITIALIZED", "apply", input=GARBAGE)
    fails("NOT_INITIALIZED", "apply", input=VALID)
    assert not private_store.exists()


def test_absent_export_output_is_not_created(private_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    fails("NOT_INITIALIZED", "export", "--output", str(out))
    assert not out.exists()
    assert not private_store.exists()


def test_absent_nested_data_dir_is_not_created(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b" / "store"
    for args in (["show"], ["apply", "--json", VALID], ["clear", "--confirm"], ["status"]):
        run_cli("--data-dir", str(nested), *args)
    ok("--data-dir", str(nested), "revoke", "--delete", "--confirm")
    assert not (tmp_path / "a").exists()


def test_default_location_is_not_created_by_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no --data-dir and no MEMORY_STORE_DIR the platformdirs location is used;
    it too is created only by enable --confirm. (An empty MEMORY_STORE_DIR is refused,
    documentation/variables.md#where-the-store-lives: tests/storage/test_data_directory.py.)"""
    monkeypatch.delenv("MEMORY_STORE_DIR")
    env: dict[str, str] = {}
    xdg = tmp_path / "xdg-data"
    status = ok("status", env=env)
    assert status["exists"] is False
    assert status["path"] == str(xdg / "memory-store" / DB_NAME)
    for args in (["show"], ["apply", "--json", VALID], ["context"], ["pause"], ["log"]):
        fails("NOT_INITIALIZED", *args, env=env)
    assert not xdg.exists()
    ok("enable", "--confirm", env=env)
    assert _mode(xdg / "memory-store") == 0o700
    assert _mode(xdg / "memory-store" / DB_NAME) == 0o600
    assert ok("status", env=env)["exists"] is True


def test_absent_revoke_delete_removes_stray_side_files(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / (DB_NAME + "-wal")).write_bytes(b"stale wal holding secret-value")
    (private_store / (DB_NAME + "-shm")).write_bytes(b"\0" * 32768)
    other = private_store / "notes.txt"
    other.write_text("not ours")
    assert ok("status")["exists"] is False
    data = ok("revoke", "--delete", "--confirm")
    assert data["deleted"] is True
    assert private_store.is_dir()
    assert left_after_revoke_delete(private_store) == ["notes.txt"]
    assert ok("status")["exists"] is False


def test_absent_enable_without_confirm_leaves_existing_dir_empty(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    fails("CONFIRMATION_REQUIRED", "enable")
    assert list(private_store.iterdir()) == []


# ---------------------------------------------------------------------------
# enabled


def test_enable_records_consent(private_store: Path) -> None:
    data = ok("enable", "--confirm")
    assert data["consent_enabled"] is True
    status = ok("status")
    assert status["exists"] is True
    assert status["consent_enabled"] is True
    assert status["paused"] is False
    assert status["policy_version"] == 1
    assert status["consent_at"] == data["consent_at"]
    # enabled: every kind of command is allowed
    applied = ok("apply", "--json", VALID)
    assert (
        ok("context", "--subject-id", "obj-a")["memories"][0]["id"]
        == (applied["results"][0]["memory"]["id"])
    )
    ok("show")
    ok("log")
    ok("export")
    ok("undo")
    ok("pause")
    ok("resume")


def test_enable_twice_is_harmless(enabled: Path) -> None:
    first = ok("status")["consent_at"]
    ok("apply", "--json", VALID)
    ok("enable", "--confirm")
    assert ok("status")["consent_at"] == first
    assert ok("show")["count"] == 1
    assert ok("log")["operations"]


# ---------------------------------------------------------------------------
# paused


def test_paused_state(enabled: Path, tmp_path: Path) -> None:
    applied = ok("apply", "--json", VALID)
    mid = applied["results"][0]["memory"]["id"]
    ok("pause")
    assert ok("status")["paused"] is True
    # apply / context refused, whatever the input
    fails("MEMORY_PAUSED", "apply", "--json", VALID)
    fails("MEMORY_PAUSED", "apply", "--dry-run", "--json", VALID)
    fails("MEMORY_PAUSED", "context")
    fails("MEMORY_PAUSED", "context", "--subject-id", "obj-a")
    # reading for the user is allowed
    assert ok("show")["count"] == 1
    assert ok("status")["consent_enabled"] is True
    assert len(ok("log")["operations"]) == 1
    assert len(ok("export")["document"]["memories"]) == 1
    ok("export", "--output", str(tmp_path / "paused.json"))
    # pause / resume idempotent
    ok("pause")
    assert ok("status")["paused"] is True
    # undo, forget, clear allowed while paused
    assert ok("undo")["undone_op_id"] == applied["op_id"]
    assert ok("show")["count"] == 0
    assert ok("status")["paused"] is True
    ok("resume")
    again = ok("apply", "--json", VALID)
    ok("pause")
    assert ok("forget", again["results"][0]["memory"]["id"], "--confirm")["deleted"] == 1
    assert mid != again["results"][0]["memory"]["id"]
    ok("resume")
    ok("apply", "--json", VALID)
    ok("pause")
    assert ok("forget-object", "obj-a", "--confirm")["deleted"] == 1
    ok("resume")
    ok("apply", "--json", VALID)
    ok("pause")
    assert ok("clear", "--confirm")["deleted"] == 1
    assert ok("status")["paused"] is True
    # resume idempotent
    ok("resume")
    ok("resume")
    assert ok("status")["paused"] is False
    ok("apply", "--json", VALID)
    ok("context")


def test_pause_changes_nothing_but_the_flag(enabled: Path) -> None:
    ok("apply", "--json", VALID)
    before = ok("show")
    log_before = ok("log")
    ok("pause")
    ok("resume")
    assert ok("show") == before
    assert ok("log") == log_before


def test_paused_refusal_writes_nothing(enabled: Path) -> None:
    ok("pause")
    files = _files(enabled)
    fails("MEMORY_PAUSED", "apply", "--json", VALID)
    fails("MEMORY_PAUSED", "context")
    assert _files(enabled) == files


# ---------------------------------------------------------------------------
# revoked, data kept


def test_revoked_data_kept_state(enabled: Path, tmp_path: Path) -> None:
    db = enabled / DB_NAME
    applied = ok("apply", "--json", VALID)
    data = ok("revoke", "--confirm")
    assert data["consent_enabled"] is False and data["deleted"] is False
    status = ok("status")
    assert status["consent_enabled"] is False
    assert status["paused"] is True
    assert status["exists"] is True
    # gate
    fails("CONSENT_REQUIRED", "apply", "--json", VALID)
    fails("CONSENT_REQUIRED", "apply", "--dry-run", "--json", VALID)
    fails("CONSENT_REQUIRED", "context")
    fails("CONSENT_REQUIRED", "context", "--subject-id", "obj-a")
    fails("CONSENT_REQUIRED", "pause")
    fails("CONSENT_REQUIRED", "resume")
    assert ok("status")["consent_enabled"] is False
    # access
    shown = ok("show")
    assert shown["count"] == 1
    assert shown["memories"][0]["id"] == applied["results"][0]["memory"]["id"]
    doc = ok("export")["document"]
    assert as_shown(doc) == shown["memories"]
    assert len(ok("log")["operations"]) == 1
    # enable --confirm restores, keeping the first consent time
    _set_settings(db, consent_at="2020-01-01T00:00:00Z", consent_renewed_at="2020-01-01T00:00:00Z")
    ok("enable", "--confirm")
    status = ok("status")
    assert status["consent_enabled"] is True
    assert status["paused"] is False
    assert status["consent_at"] == "2020-01-01T00:00:00Z"
    # the export carries the consent state: the first consent kept, the renewal updated
    doc = ok("export")["document"]
    assert values_of(doc, "consent_at") == ["2020-01-01T00:00:00Z"]
    [renewed] = values_of(doc, "consent_renewed_at")
    assert isinstance(renewed, str) and renewed > "2020-01-01T00:00:00Z"
    # data survived the round trip and the store works again
    assert ok("show") == shown
    ok("context", "--subject-id", "obj-a")
    ok("apply", "--json", json.dumps(delta(field="display_label", value="B")))


def test_revoked_allows_undo_forget_clear(enabled: Path) -> None:
    first = ok("apply", "--json", VALID)
    second = ok("apply", "--json", json.dumps(delta(field="display_label", value="A")))
    ok("apply", "--json", json.dumps(delta(subject="obj-b", field="display_label", value="B")))
    ok("revoke", "--confirm")
    assert ok("undo")["removed"][0]["subject_id"] == "obj-b"
    assert ok("forget", second["results"][0]["memory"]["id"], "--confirm")["deleted"] == 1
    assert ok("forget-object", "obj-a", "--confirm")["deleted"] == 1
    assert first["op_id"] not in [o["op_id"] for o in ok("log")["operations"]]
    assert ok("clear", "--confirm")["deleted"] == 0
    status = ok("status")
    assert status["consent_enabled"] is False
    assert status["counts"]["total"] == 0


def test_revoked_refusal_writes_nothing(enabled: Path) -> None:
    ok("apply", "--json", VALID)
    ok("revoke", "--confirm")
    files = _files(enabled)
    fails("CONSENT_REQUIRED", "apply", "--json", VALID)
    fails("CONSENT_REQUIRED", "pause")
    fails("CONSENT_REQUIRED", "resume")
    fails("CONSENT_REQUIRED", "context")
    assert _files(enabled) == files


# ---------------------------------------------------------------------------
# consent_state: revoked is not "never asked"


def _consent() -> tuple[str, Any]:
    status = ok("status")
    return status["consent_state"], status["revoked_at"]


def test_consent_state_walks_every_state(private_store: Path) -> None:
    assert _consent() == ("absent", None)
    ok("enable", "--confirm")
    assert _consent() == ("enabled", None)
    ok("pause")
    assert _consent() == ("paused", None)
    ok("revoke", "--confirm")
    state, revoked_at = _consent()
    status = ok("status")
    assert state == "revoked" and revoked_at is not None
    assert status["consent_enabled"] is False and status["consent_at"] is not None
    ok("enable", "--confirm")  # consent restored: the revoke is no longer the answer
    assert _consent() == ("enabled", None)
    ok("revoke", "--delete", "--confirm")
    # documentation/privacy.md#what-revoke---delete-leaves-a-tombstone: revoked stays revoked
    state, revoked_at = _consent()
    assert state == "revoked" and revoked_at is not None
    assert ok("status")["exists"] is False


@pytest.mark.anyio
async def test_memory_status_tells_revoked_from_never_asked(store: Any) -> None:
    ok("enable", "--confirm")
    ok("revoke", "--confirm")
    async with Client(build_server(store)) as client:
        status = data_of(await call(client, "memory_status"))
    assert status["consent_state"] == "revoked" and status["revoked_at"]


# ---------------------------------------------------------------------------
# the gate comes before the input


GATE_INPUTS: list[tuple[str, list[str], bytes]] = [
    ("file-missing", ["--file", "/nonexistent/delta.json"], b""),
    ("file-dev-zero", ["--file", "/dev/zero"], b""),
    ("json-garbage", ["--json", "not json"], b""),
    ("stdin-garbage", [], GARBAGE),
    ("stdin-empty", [], b""),
    (
        "json-sensitive",
        ["--json", json.dumps(delta(field="password", value="hunter2", sensitive=True))],
        b"",
    ),
    ("json-huge", ["--json", "[" * 70000], b""),
    ("dry-run-garbage", ["--dry-run", "--json", "{"], b""),
]


@pytest.mark.parametrize("state", ["absent", "revoked", "paused", "blank"])
def test_gate_checks_before_reading_input(state: str, private_store: Path) -> None:
    expected = {
        "absent": "NOT_INITIALIZED",
        "revoked": "CONSENT_REQUIRED",
        "paused": "MEMORY_PAUSED",
        "blank": "CONSENT_REQUIRED",
    }[state]
    if state == "blank":
        private_store.mkdir(mode=0o700)
        fd = os.open(private_store / DB_NAME, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    elif state != "absent":
        ok("enable", "--confirm")
        if state == "revoked":
            ok("revoke", "--confirm")
        else:
            ok("pause")
    files = _files(private_store)
    for how, args, stdin in GATE_INPUTS:
        r = run_cli("apply", *args, input=stdin, timeout=30)
        assert r.error is not None and r.error["code"] == expected, (how, r.stdout)
        assert "hunter2" not in r.stdout
        assert _files(private_store) == files, how
    if state == "absent":
        assert not private_store.exists()


# ---------------------------------------------------------------------------
# a zero-length database: a store that exists without consent


def _blank(store: Path) -> Path:
    store.mkdir(mode=0o700)
    db = store / DB_NAME
    fd = os.open(db, os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)
    return db


def test_zero_length_database_exists_without_consent(private_store: Path) -> None:
    db = _blank(private_store)
    status = ok("status")
    assert status["exists"] is True
    assert status["consent_enabled"] is False
    fails("CONSENT_REQUIRED", "apply", "--json", VALID)
    fails("CONSENT_REQUIRED", "context")
    fails("CONSENT_REQUIRED", "pause")
    fails("CONSENT_REQUIRED", "resume")
    assert ok("show")["count"] == 0
    assert ok("log")["operations"] == []
    assert ok("export")["document"]["memories"] == []
    fails("CONFIRMATION_REQUIRED", "enable")
    assert db.stat().st_size == 0
    assert sorted(p.name for p in private_store.iterdir()) == [DB_NAME]


def test_enable_completes_a_zero_length_database(private_store: Path) -> None:
    db = _blank(private_store)
    data = ok("enable", "--confirm")
    assert data["consent_enabled"] is True
    status = ok("status")
    assert status["exists"] is True
    assert status["consent_enabled"] is True
    assert status["schema_version"] >= 1
    assert db.stat().st_size > 0
    assert _mode(db) == 0o600
    applied = ok("apply", "--json", VALID)
    assert applied["results"][0]["action"] == "created"
    assert ok("show")["count"] == 1


def test_revoke_delete_on_zero_length_database(private_store: Path) -> None:
    _blank(private_store)
    ok("revoke", "--delete", "--confirm")
    assert left_after_revoke_delete(private_store) == []
    assert ok("status")["exists"] is False


def test_a_first_enable_that_did_not_finish_is_never_enabled(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / "memory.sqlite3").touch(mode=0o600)  # zero-length, as a crash leaves it
    status = ok("status")
    assert status["exists"] is True
    assert (status["consent_state"], status["revoked_at"]) == ("never_enabled", None)
    ok("enable", "--confirm")
    assert _consent() == ("enabled", None)


# ---------------------------------------------------------------------------
# modes: 0700 directory, 0600 files, whatever the umask


def _run_umask(umask: int, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        env=dict(os.environ),
        timeout=60,
        preexec_fn=lambda: os.umask(umask),  # noqa: PLW1509 - the point of the test
    )


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_modes_whatever_the_umask(umask: int, tmp_path: Path) -> None:
    store = tmp_path / "deep" / "er" / "store"
    env_args = ["-m", "memory_store", "--data-dir", str(store)]
    proc = _run_umask(umask, *env_args, "enable", "--confirm")
    assert proc.returncode == 0, proc.stdout
    assert _mode(store) == 0o700
    assert _mode(store.parent) == 0o700
    assert _mode(tmp_path / "deep") == 0o700
    assert _mode(store / DB_NAME) == 0o600
    proc = _run_umask(umask, *env_args, "apply", "--json", VALID)
    assert proc.returncode == 0, proc.stdout
    for p in store.iterdir():
        assert _mode(p) == 0o600, (p.name, oct(_mode(p)))
    # Keep a reader open (through the package's own connect) so that -wal and -shm
    # exist, let an apply write into the WAL, and look at every file's mode.
    script = f"""
import json, os, stat, sys
from memory_store.storage import db
from memory_store.cli import main
path = {str(store / DB_NAME)!r}
reader = db.connect(path)
reader.execute("BEGIN")
reader.execute("SELECT COUNT(*) FROM memories").fetchone()
rc = main(["--data-dir", {str(store)!r}, "apply", "--json", {VALID!r}])
assert rc == 0, rc
modes = {{n: oct(stat.S_IMODE(os.lstat(os.path.join({str(store)!r}, n)).st_mode))
         for n in os.listdir({str(store)!r})}}
reader.execute("COMMIT")
reader.close()
sys.stderr.write(json.dumps(modes))
"""
    proc = _run_umask(umask, "-c", script)
    assert proc.returncode == 0, proc.stderr
    modes = json.loads(proc.stderr.decode())
    assert {DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"} <= set(modes), modes
    assert set(modes.values()) == {"0o600"}, modes


def test_umask_000_store_dir_created_private_via_env(private_store: Path) -> None:
    proc = _run_umask(0, "-m", "memory_store", "enable", "--confirm")
    assert proc.returncode == 0
    assert _mode(private_store) == 0o700
    assert _mode(private_store / DB_NAME) == 0o600
    proc = _run_umask(0, "-m", "memory_store", "pause")
    assert proc.returncode == 0
    # never inside the store's directory (documentation/privacy.md#what-is-kept-and-where)
    out = private_store.parent / "x.json"
    proc = _run_umask(0, "-m", "memory_store", "export", "--output", str(out))
    assert proc.returncode == 0
    assert _mode(out) == 0o600


def test_existing_directory_is_never_chmodded(private_store: Path) -> None:
    private_store.mkdir()
    os.chmod(private_store, 0o755)
    ok("enable", "--confirm")
    assert _mode(private_store) == 0o755
    assert _mode(private_store / DB_NAME) == 0o600
    findings = ok("doctor")["findings"]
    assert any(f["severity"] == "warning" for f in findings), findings
    ok("doctor", "--fix")
    assert _mode(private_store) == 0o755


# --- documentation/privacy.md#what-revoke---delete-leaves-a-tombstone: revoked stays revoked ------------------------------------------


def test_revoke_delete_leaves_only_a_tombstone_that_says_revoked(private_store: Path) -> None:
    ok("enable", "--confirm", spawn=True)
    made = ok(
        "apply",
        "--json",
        json.dumps(
            {
                "deltas": [
                    delta(value="小林（读书会认识的）"),
                    delta(field="job", value="产品经理在上海"),
                ]
            }
        ),
        spawn=True,
    )
    ids = [r["memory"]["id"] for r in made["results"]]
    gone = ok("revoke", "--delete", "--confirm", spawn=True)
    assert gone["deleted"] is True and gone["tombstone"] is True
    assert left_after_revoke_delete(private_store) == []  # the database and its side files
    # Every byte left in the directory: no memory, no label, no id, no subject code.
    left = b"".join(p.read_bytes() for p in private_store.iterdir())
    for needle in ("小林", "读书会", "产品经理", "obj-a", *ids, "display_label"):
        assert needle.encode() not in left
    status = ok("status", spawn=True)
    assert status["exists"] is False and status["consent_state"] == "revoked"
    assert status["revoked_at"] and status["counts"]["total"] == 0
    # The assistant that tries anyway is told not to ask again.
    refused = fails("NOT_INITIALIZED", "context", spawn=True).error
    assert refused["details"]["consent_state"] == "revoked"
    assert "do not ask again" in refused["message"]


def test_enable_after_a_tombstone_starts_fresh_and_removes_it(private_store: Path) -> None:
    ok("enable", "--confirm")
    ok("apply", "--json", json.dumps(delta(value="小林")))
    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm", spawn=True)
    status = ok("status")
    assert status["consent_state"] == "enabled" and status["revoked_at"] is None
    assert ok("show")["count"] == 0 and ok("log")["operations"] == []
    assert sorted(p.name for p in private_store.iterdir() if not p.name.startswith(DB_NAME)) == []


def test_a_removed_tombstone_leaves_a_store_never_asked(private_store: Path) -> None:
    # documentation/privacy.md: deleting the file removes even the tombstone.
    ok("enable", "--confirm")
    ok("revoke", "--delete", "--confirm")
    (private_store / "revoked.json").unlink()
    assert ok("status")["consent_state"] == "absent"
    fails("NOT_INITIALIZED", "context")
