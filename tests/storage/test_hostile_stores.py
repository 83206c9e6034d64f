"""documentation/variables.md#where-the-store-lives, documentation/commands.md#one-envelope-semantic-exit-codes, documentation/commands.md#what-each-command-promises, documentation/commands.md#robustness, documentation/guarantees.md#robustness: hostile stores. A data directory that is a file,
symlinked or non-regular store files, a store someone else owns or could write to,
files that are not this product's SQLite database, a store switched out of WAL, a
schema from the future, and a lock held by someone else."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from pathlib import Path

import pytest
from support import (
    DB_NAME,
    db_connect,
    delta,
    fails,
    held_open,
    left_after_revoke_delete,
    ok,
    put,
    run_cli,
)

VALID = json.dumps(delta(field="display_label", value="小A"), ensure_ascii=False)

# Every command that touches the store, with --confirm where it applies.
STORE_COMMANDS: list[list[str]] = [
    ["status"],
    ["enable", "--confirm"],
    ["pause"],
    ["resume"],
    ["apply", "--json", VALID],
    ["apply", "--dry-run", "--json", VALID],
    ["undo"],
    ["log"],
    ["show"],
    ["context"],
    ["context", "--subject-id", "obj-a"],
    ["forget", "m-0123456789abcdef", "--confirm"],
    ["forget-object", "obj-a", "--confirm"],
    ["revoke", "--confirm"],
    ["clear", "--confirm"],
    ["export"],
]
CMD_IDS = [" ".join(a)[:30] for a in STORE_COMMANDS]
SOME_COMMANDS: list[list[str]] = [
    ["status"],
    ["enable", "--confirm"],
    ["apply", "--json", VALID],
    ["show"],
    ["context"],
    ["clear", "--confirm"],
    ["revoke", "--confirm"],
]


def snapshot(store: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry of the store directory, without following or opening anything odd."""
    out: dict[str, tuple[str, bytes | str]] = {}
    for p in sorted(store.iterdir()):
        mode = os.lstat(p).st_mode
        if stat.S_ISLNK(mode):
            out[p.name] = ("link", os.readlink(p))
        elif stat.S_ISDIR(mode):
            out[p.name] = ("dir", ",".join(sorted(c.name for c in p.iterdir())))
        elif stat.S_ISREG(mode):
            out[p.name] = ("file", p.read_bytes())
        else:
            out[p.name] = ("other", oct(mode))
    return out


def doctor_reports_error() -> None:
    data = ok("doctor")
    assert data["ok"] is False
    assert data["findings"], data


# ---------------------------------------------------------------------------
# STORE_UNAVAILABLE: the data directory is a regular file


@pytest.mark.parametrize(
    "args", STORE_COMMANDS + [["revoke", "--delete", "--confirm"]], ids=CMD_IDS + ["revoke-delete"]
)
def test_data_dir_is_a_file(private_store: Path, args: list[str]) -> None:
    private_store.parent.mkdir(parents=True, exist_ok=True)
    private_store.write_bytes(b"i am a file")
    r = fails("STORE_UNAVAILABLE", *args)
    assert r.code == 6
    assert private_store.read_bytes() == b"i am a file"


def test_data_dir_below_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"x")
    store = str(blocker / "store")
    fails("STORE_UNAVAILABLE", "--data-dir", store, "status")
    fails("STORE_UNAVAILABLE", "--data-dir", store, "enable", "--confirm")
    fails("STORE_UNAVAILABLE", "--data-dir", store, "show")
    assert blocker.read_bytes() == b"x"


def test_doctor_on_data_dir_that_is_a_file(private_store: Path) -> None:
    private_store.parent.mkdir(parents=True, exist_ok=True)
    private_store.write_bytes(b"i am a file")
    doctor_reports_error()


# ---------------------------------------------------------------------------
# STORE_UNSAFE: symlinks and non-regular files


def _make_unsafe(store: Path, kind: str, tmp_path: Path) -> None:
    if kind.startswith(("wal", "shm")):
        ok("enable", "--confirm")
        ok("apply", "--json", VALID)
    else:
        store.mkdir(mode=0o700)
    db = store / DB_NAME
    if kind == "db-symlink":
        target = tmp_path / "elsewhere.sqlite3"
        conn = sqlite3.connect(target)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
        db.symlink_to(target)
    elif kind == "db-dangling":
        db.symlink_to(tmp_path / "nowhere.sqlite3")
    elif kind == "db-dir":
        db.mkdir()
    elif kind == "wal-symlink":
        (store / (DB_NAME + "-wal")).symlink_to(tmp_path / "evil-wal")
    elif kind == "shm-symlink":
        (store / (DB_NAME + "-shm")).symlink_to(tmp_path / "evil-shm")
    elif kind == "db-fifo":
        os.mkfifo(db, 0o600)
    elif kind == "wal-dir":
        (store / (DB_NAME + "-wal")).mkdir()
    elif kind == "shm-fifo":
        os.mkfifo(store / (DB_NAME + "-shm"), 0o600)
    elif kind == "orphan-wal-symlink":  # no database, only a planted -wal
        (store / (DB_NAME + "-wal")).symlink_to(tmp_path / "evil-wal")
    else:
        raise AssertionError(kind)


UNSAFE_KINDS = [
    "db-symlink",
    "db-dangling",
    "db-dir",
    "db-fifo",
    "wal-symlink",
    "wal-dir",
    "shm-symlink",
    "shm-fifo",
    "orphan-wal-symlink",
]


@pytest.mark.parametrize("kind", UNSAFE_KINDS)
def test_unsafe_store_files_are_refused(private_store: Path, tmp_path: Path, kind: str) -> None:
    _make_unsafe(private_store, kind, tmp_path)
    before = snapshot(private_store)
    outside = sorted(p.name for p in tmp_path.iterdir())
    commands = STORE_COMMANDS if kind in ("db-symlink", "wal-symlink") else SOME_COMMANDS
    for args in commands:
        r = fails("STORE_UNSAFE", *args)
        assert r.code == 7
    assert snapshot(private_store) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == outside
    assert not (tmp_path / "nowhere.sqlite3").exists()
    assert not (tmp_path / "evil-wal").exists()
    doctor_reports_error()
    assert snapshot(private_store) == before


def test_symlinked_db_target_is_untouched(private_store: Path, tmp_path: Path) -> None:
    _make_unsafe(private_store, "db-symlink", tmp_path)
    target = tmp_path / "elsewhere.sqlite3"
    before = target.read_bytes()
    fails("STORE_UNSAFE", "enable", "--confirm")
    fails("STORE_UNSAFE", "apply", "--json", VALID)
    fails("STORE_UNSAFE", "clear", "--confirm")
    assert target.read_bytes() == before


# ---------------------------------------------------------------------------
# STORE_UNSAFE: a store someone else could swap (owner, permissions)


NOBODY = 65534


GUARDED = [
    ["enable", "--confirm"],
    ["apply", "--json", json.dumps(delta(value="x"))],
    ["context", "--subject-id", "obj-a"],
    ["show"],
    ["log"],
    ["export"],
    ["pause"],
    ["forget-object", "obj-a", "--confirm"],
    ["clear", "--confirm"],
    ["revoke", "--confirm"],
]


def _unsafe(store: Path, how: str) -> None:
    if how == "dir-owned-by-another-user":
        os.chown(store, NOBODY, NOBODY)
    elif how == "dir-writable-by-others":
        os.chmod(store, 0o777)
    elif how == "dir-writable-by-group":
        os.chmod(store, 0o770)
    elif how == "db-owned-by-another-user":
        os.chown(store / DB_NAME, NOBODY, NOBODY)
    else:
        raise AssertionError(how)


UNSAFE = [
    "dir-owned-by-another-user",
    "dir-writable-by-others",
    "dir-writable-by-group",
    "db-owned-by-another-user",
]


@pytest.mark.parametrize("how", UNSAFE)
def test_a_store_someone_else_could_swap_is_unsafe(enabled: Path, how: str) -> None:
    put(delta(value="我的秘密"))
    _unsafe(enabled, how)
    for args in GUARDED:
        r = fails("STORE_UNSAFE", *args)
        assert r.error["details"]["reason"] in ("owner", "permissions"), r.error
    status = ok("status")
    assert status["unsafe"]["code"] == "STORE_UNSAFE"
    assert status["exists"] is True and status["counts"] is None
    report = ok("doctor")
    assert report["ok"] is False
    assert any(f["check"] == "ownership" and f["severity"] == "error" for f in report["findings"])
    gone = ok("revoke", "--delete", "--confirm")
    assert gone["deleted"] is True and gone["rows_deleted"] == 1
    assert not (enabled / DB_NAME).exists()


@pytest.mark.parametrize("how", ["dir-owned-by-another-user", "dir-writable-by-others"])
def test_enable_never_adopts_an_unsafe_directory(private_store: Path, how: str) -> None:
    private_store.mkdir(mode=0o700)
    _unsafe(private_store, how)
    fails("STORE_UNSAFE", "enable", "--confirm")
    assert list(private_store.iterdir()) == []
    assert ok("status")["unsafe"]["code"] == "STORE_UNSAFE"


def test_a_private_store_reports_no_problem(enabled: Path) -> None:
    assert ok("status")["unsafe"] is None
    assert ok("status", spawn=True)["unsafe"] is None


# ---------------------------------------------------------------------------
# STORE_CORRUPT: not SQLite, damaged SQLite, someone else's SQLite


NOT_SQLITE = b"PK\x03\x04 this is a zip, or a note, but not a database\n" * 50
BAD_SQLITE = b"SQLite format 3\x00" + bytes(range(256)) * 16


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=CMD_IDS)
def test_non_sqlite_file_is_corrupt_and_untouched(private_store: Path, args: list[str]) -> None:
    private_store.mkdir(mode=0o700)
    db = private_store / DB_NAME
    db.write_bytes(NOT_SQLITE)
    before = snapshot(private_store)
    r = fails("STORE_CORRUPT", *args)
    assert r.code == 7
    assert db.read_bytes() == NOT_SQLITE
    assert snapshot(private_store) == before


@pytest.mark.parametrize(
    "content",
    [
        BAD_SQLITE,
        b"x",  # SQLite itself would take it for an empty database
        b"SQLite format 3",
        b"SQLite format 3\x00" + b"\xa5" * 495,  # 511 bytes: shorter than any database
        b"SQLite format 3\x00" + bytes(600),  # long enough: SQLite reads and refuses the header
    ],
    ids=["bad-page", "one-byte", "short-magic", "511-bytes", "magic-and-zeros"],
)
def test_other_non_sqlite_files_are_corrupt_and_untouched(
    private_store: Path, content: bytes
) -> None:
    private_store.mkdir(mode=0o700)
    db = private_store / DB_NAME
    db.write_bytes(content)
    before = snapshot(private_store)
    for args in [*SOME_COMMANDS, ["export"]]:
        fails("STORE_CORRUPT", *args)
        assert snapshot(private_store) == before, args
    doctor_reports_error()
    assert db.read_bytes() == content


def test_corrupt_store_doctor_and_confirmation(private_store: Path, tmp_path: Path) -> None:
    private_store.mkdir(mode=0o700)
    db = private_store / DB_NAME
    db.write_bytes(NOT_SQLITE)
    doctor_reports_error()
    ok("doctor", "--fix")
    for args in (["forget", "x"], ["forget-object", "obj-a"], ["clear"], ["revoke"], ["enable"]):
        fails("CONFIRMATION_REQUIRED", *args)
    out = tmp_path / "out.json"
    fails("STORE_CORRUPT", "export", "--output", str(out))
    assert not out.exists()
    assert db.read_bytes() == NOT_SQLITE
    # only revoke --delete --confirm removes it
    ok("revoke", "--delete", "--confirm")
    assert left_after_revoke_delete(private_store) == []


def _damage(db: Path) -> None:
    """Overwrite the pages after the first one, keeping a valid header."""
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    assert len(data) > page
    for i in range(page, len(data)):
        data[i] = 0xA5
    db.write_bytes(bytes(data))


def test_damaged_sqlite_store_is_corrupt(enabled: Path) -> None:
    ok("apply", "--json", VALID)
    db = enabled / DB_NAME
    assert {p.name for p in enabled.iterdir()} == {DB_NAME}
    _damage(db)
    before = db.read_bytes()
    for args in (
        ["status"],
        ["show"],
        ["context"],
        ["apply", "--json", VALID],
        ["log"],
        ["undo"],
        ["clear", "--confirm"],
        ["export"],
        ["pause"],
    ):
        fails("STORE_CORRUPT", *args)
    doctor_reports_error()
    assert db.read_bytes() == before
    ok("revoke", "--delete", "--confirm")
    assert left_after_revoke_delete(enabled) == []


def _foreign_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('someone', 'else')")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=CMD_IDS)
def test_someone_elses_sqlite_is_corrupt(private_store: Path, args: list[str]) -> None:
    private_store.mkdir(mode=0o700)
    db = private_store / DB_NAME
    _foreign_db(db)
    os.chmod(db, 0o600)
    before = db.read_bytes()
    fails("STORE_CORRUPT", *args)
    assert db.read_bytes() == before
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT * FROM contacts").fetchall() == [("someone", "else")]
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    conn.close()
    assert tables == ["contacts"]


def test_someone_elses_sqlite_doctor_and_revoke_delete(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    _foreign_db(private_store / DB_NAME)
    doctor_reports_error()
    ok("revoke", "--delete", "--confirm")
    assert left_after_revoke_delete(private_store) == []


# ---------------------------------------------------------------------------
# a store switched out of WAL


def test_a_store_switched_out_of_wal_is_switched_back_and_reported(enabled: Path) -> None:
    put(delta(value="wal"))
    conn = db_connect(enabled)
    assert conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
    conn.close()
    report = ok("doctor")
    journal = [f for f in report["findings"] if f["check"] == "journal_mode"]
    assert journal and journal[0]["severity"] == "warning", report
    put(delta(field="mbti", value="INFJ"))  # the next write switches it back
    conn = db_connect(enabled)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert [f for f in ok("doctor")["findings"] if f["check"] == "journal_mode"][0][
        "severity"
    ] == "ok"


# ---------------------------------------------------------------------------
# SCHEMA_TOO_NEW


def _future(store: Path) -> None:
    conn = db_connect(store)
    conn.execute("PRAGMA user_version=99")
    conn.close()


def test_schema_too_new_refuses(enabled: Path, tmp_path: Path) -> None:
    ok("apply", "--json", VALID)
    _future(enabled)
    out = tmp_path / "out.json"
    before = snapshot(enabled)
    for args in [a for a in STORE_COMMANDS if a[0] != "status"] + [
        ["export", "--output", str(out)]
    ]:
        r = fails("SCHEMA_TOO_NEW", *args)
        assert r.code == 7
        assert snapshot(enabled) == before, args
    assert not out.exists()


def test_schema_too_new_only_status_and_revoke_delete_run(enabled: Path) -> None:
    ok("apply", "--json", VALID)
    _future(enabled)
    before = snapshot(enabled)
    status = ok("status")
    assert status["exists"] is True
    assert status["schema_version"] == 99
    # documentation/commands.md#what-each-command-promises: under SCHEMA_TOO_NEW only status and revoke --delete --confirm run.
    fails("SCHEMA_TOO_NEW", "doctor")
    assert snapshot(enabled) == before
    conn = db_connect(enabled)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()
    data = ok("revoke", "--delete", "--confirm")
    assert data["deleted"] is True
    assert left_after_revoke_delete(enabled) == []
    assert ok("status")["exists"] is False


# ---------------------------------------------------------------------------
# STORE_BUSY


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "--json", VALID],
        ["pause"],
        ["undo"],
        ["forget-object", "obj-a", "--confirm"],
        ["clear", "--confirm"],
        ["revoke", "--confirm"],
        ["revoke", "--delete", "--confirm"],
        ["enable", "--confirm"],
    ],
    ids=["apply", "pause", "undo", "forget-object", "clear", "revoke", "revoke-delete", "enable"],
)
def test_store_busy_is_bounded_and_writes_nothing(enabled: Path, args: list[str]) -> None:
    ok("apply", "--json", json.dumps(delta(subject="obj-a", field="mbti", value="INFJ")))
    show, log, status = ok("show"), ok("log"), ok("status")
    with held_open(enabled, "write"):  # another process holds the write lock
        start = time.monotonic()
        r = fails("STORE_BUSY", *args, env={"MEMORY_STORE_BUSY_TIMEOUT_MS": "300"}, timeout=30)
        elapsed = time.monotonic() - start
        assert r.code == 6
        assert elapsed < 5, elapsed
    assert (ok("show"), ok("log"), ok("status")) == (show, log, status)
    assert (enabled / DB_NAME).is_file()
    # the lock gone, the same command goes through
    assert run_cli(*args).code == 0


def test_store_busy_apply_then_success(enabled: Path) -> None:
    with held_open(enabled, "write"):
        fails("STORE_BUSY", "apply", "--json", VALID, env={"MEMORY_STORE_BUSY_TIMEOUT_MS": "300"})
        # reads are not blocked by a writer in WAL mode
        assert ok("show")["count"] == 0
        assert ok("status")["consent_enabled"] is True
    assert ok("show")["count"] == 0
    assert ok("log")["operations"] == []
    ok("apply", "--json", VALID, env={"MEMORY_STORE_BUSY_TIMEOUT_MS": "300"})
    assert ok("show")["count"] == 1


# ---------------------------------------------------------------------------
# revoke --delete --confirm always deletes (documentation/privacy.md#what-revoke---delete-leaves-a-tombstone)


SIDE_PLANTS = [
    ("wal-symlink", "-wal", "symlink"),
    ("shm-symlink", "-shm", "symlink"),
    ("journal-symlink", "-journal", "symlink"),
    ("wal-fifo", "-wal", "fifo"),
    ("shm-fifo", "-shm", "fifo"),
    ("journal-fifo", "-journal", "fifo"),
]


def _plant(store: Path, suffix: str, how: str, target: Path) -> Path:
    side = store / (DB_NAME + suffix)
    if how == "symlink":
        side.symlink_to(target)
    else:
        os.mkfifo(side, 0o600)
    return side


@pytest.mark.parametrize("alone", [False, True], ids=["beside-the-database", "alone"])
@pytest.mark.parametrize(("name", "suffix", "how"), SIDE_PLANTS, ids=[p[0] for p in SIDE_PLANTS])
def test_revoke_delete_is_not_blocked_by_planted_side_files(
    private_store: Path, tmp_path: Path, name: str, suffix: str, how: str, alone: bool
) -> None:
    target = tmp_path / "attacker-file"
    target.write_bytes(b"attacker's bytes, never opened by memory-store")
    if alone:
        private_store.mkdir(mode=0o700)
    else:
        ok("enable", "--confirm")
        ok("apply", "--json", VALID)
        assert ok("show")["count"] == 1
    _plant(private_store, suffix, how, target)
    # A FIFO opened for reading or writing would block: the subprocess timeout catches that.
    r = run_cli("revoke", "--delete", "--confirm", timeout=60)
    assert r.code == 0, r.stdout
    assert r.data["deleted"] is True
    assert left_after_revoke_delete(private_store) == []
    assert target.read_bytes() == b"attacker's bytes, never opened by memory-store"
    assert ok("status")["exists"] is False


def test_a_symlinked_journal_is_unsafe_for_other_commands(enabled: Path, tmp_path: Path) -> None:
    _plant(enabled, "-journal", "symlink", tmp_path / "evil-journal")
    fails("STORE_UNSAFE", "apply", "--json", VALID)
    fails("STORE_UNSAFE", "show")
    assert not (tmp_path / "evil-journal").exists()
