"""``doctor [--fix]`` (documentation/commands.md#what-each-command-promises): read-only checks of files, schema and stored rows.

Stores are broken by hand with the sqlite3 module, the way a user with the
sqlite3 shell would; doctor must answer ``ok: false`` with one finding per
problem, ``--fix`` must repair file modes and nothing else, and doctor must
never create, change or delete anything.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
from support import DB_NAME, db_connect, delta, ok, run_cli

from memory_store import MemoryStore

NOW = "2026-11-30T12:00:00Z"


def edit(store_dir: Path, *statements: tuple[str, tuple] | str) -> None:
    """Change the store by hand, outside the product."""
    conn = db_connect(store_dir)
    try:
        for st in statements:
            sql, params = (st, ()) if isinstance(st, str) else st
            conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def row_sql(
    mid: str,
    scope: str,
    subject: str,
    field: str,
    value: str = "hand-written value",
    source_type: str = "user_report",
    occurred_at: str | None = None,
    seq: int = 1000,
) -> tuple[str, tuple]:
    return (
        "INSERT INTO memories (id, scope, subject_id, field, occurred_key, value, source_type, "
        "source_ref, occurred_at, confidence, created_at, updated_at, write_seq) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'hand', ?, 'low', ?, ?, ?)",
        (
            mid,
            scope,
            subject,
            field,
            occurred_at or "",
            value,
            source_type,
            occurred_at,
            NOW,
            NOW,
            seq,
        ),
    )


def op_sql(seq: int, snapshot: str = "[]", rows: int = 0) -> tuple[str, tuple]:
    return (
        "INSERT INTO operations (seq, op_id, created_at, action, summary, rows, snapshot) "
        "VALUES (?, ?, ?, 'apply', 'by hand', ?, ?)",
        (seq, f"op-hand{seq:04d}", NOW, rows, snapshot),
    )


def errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["severity"] == "error"]


def dump(store_dir: Path) -> dict[str, Any]:
    conn = db_connect(store_dir, readonly=True)
    try:
        out: dict[str, Any] = {
            t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in ("settings", "memories", "operations", "operation_rows")
        }
        out["user_version"] = conn.execute("PRAGMA user_version").fetchone()[0]
        return out
    finally:
        conn.close()


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def listing(root: Path) -> list[tuple[str, int]]:
    if not root.exists():
        return []
    return sorted((str(p.relative_to(root)), mode(p)) for p in root.rglob("*"))


@pytest.fixture
def healthy(enabled: Path) -> Path:
    ok(
        "apply",
        "--json",
        json.dumps(
            {
                "deltas": [
                    delta(value="Ann"),
                    delta(scope="relationship", field="stage", value="friends"),
                    delta(scope="event", field="invitation", value="dinner"),
                    delta(scope="hypothesis", field="intent", value="curious"),
                    delta(scope="user", field="goal", value="cook", source="user_explicit"),
                ]
            }
        ),
    )
    ok("apply", "--json", json.dumps(delta(value="Ann B.")))
    return enabled


# --------------------------------------------------------------------------- healthy


def test_doctor_on_a_healthy_store_is_ok(healthy: Path) -> None:
    report = ok("doctor")
    assert report["ok"] is True
    assert errors(report) == []
    checks = {f["check"]: f["severity"] for f in report["findings"]}
    for check in ("dir_mode", "integrity", "schema", "rows", "history"):
        assert checks[check] == "ok", report
    for f in report["findings"]:
        assert set(f) >= {"check", "severity", "message"}
    assert MemoryStore(healthy).doctor()["ok"] is True


# --------------------------------------------------------------------------- broken by hand


def hypotheses_over_cap(store_dir: Path) -> None:
    edit(
        store_dir,
        *(
            row_sql(
                f"m-hyp{i:013d}",
                "hypothesis",
                "obj-a",
                f"extra{i}",
                source_type="assistant_inference",
            )
            for i in range(5)
        ),
    )  # 1 + 5 = 6 hypotheses for obj-a


def user_rows_over_cap(store_dir: Path) -> None:
    edit(
        store_dir,
        *(
            row_sql(f"m-usr{i:013d}", "user", "user", f"pref{i}", source_type="user_explicit")
            for i in range(30)
        ),
    )  # 1 + 30 = 31 user rows


def ineligible_source(store_dir: Path) -> None:
    edit(
        store_dir,
        row_sql(
            "m-badsource000001", "user", "user", "mbti", "INFP", source_type="assistant_inference"
        ),
    )


def orphan_operation_row(store_dir: Path) -> None:
    edit(
        store_dir,
        (
            "INSERT INTO operation_rows (seq, memory_id, subject_id, row_key) VALUES (?, ?, ?, ?)",
            (9999, "m-0000000000000000", "obj-z", '["object", "obj-z", "x", ""]'),
        ),
    )


def unreadable_snapshot(store_dir: Path) -> None:
    edit(store_dir, op_sql(500, snapshot="{this is not json"))


def history_over_window(store_dir: Path) -> None:
    edit(store_dir, *(op_sql(100 + i) for i in range(20)))  # 2 + 20 = 22 operations


BREAKAGES = {
    "hypothesis cap": (hypotheses_over_cap, "caps", "hypothesis"),
    "user cap": (user_rows_over_cap, "caps", "user"),
    "ineligible source": (ineligible_source, "eligibility", "m-badsource000001"),
    "orphan operation row": (orphan_operation_row, "history", "point at no operation"),
    "unreadable snapshot": (unreadable_snapshot, "history", "op-hand0500"),
    "history over window": (history_over_window, "history", "undo window"),
}


@pytest.mark.parametrize("name", list(BREAKAGES))
def test_each_hand_made_problem_is_reported(healthy: Path, name: str) -> None:
    breakage, check, words = BREAKAGES[name]
    breakage(healthy)
    before = dump(healthy)
    report = ok("doctor")
    assert report["ok"] is False
    (finding,) = errors(report)
    assert finding["check"] == check
    assert words in finding["message"]
    assert dump(healthy) == before  # read-only
    assert MemoryStore(healthy).doctor()["ok"] is False


def test_every_problem_gets_its_own_finding(healthy: Path) -> None:
    for breakage, _, _ in BREAKAGES.values():
        breakage(healthy)
    # A second ineligible row is a second problem.
    edit(healthy, row_sql("m-badsource000002", "object", "obj-b", "fact", source_type="tool"))
    report = ok("doctor")
    assert report["ok"] is False
    found = errors(report)
    assert len(found) == len(BREAKAGES) + 1, found
    for _, check, words in BREAKAGES.values():
        assert any(f["check"] == check and words in f["message"] for f in found), (check, words)
    assert any("m-badsource000002" in f["message"] for f in found)


def test_a_renamed_kind_and_a_long_value_are_reported(healthy: Path) -> None:
    edit(
        healthy,
        row_sql("m-badscope0000001", "diary", "obj-a", "note"),
        row_sql("m-longvalue000001", "object", "obj-a", "essay", value="x" * 201),
        row_sql("m-usersubject0001", "object", "user", "fact"),
    )
    report = ok("doctor")
    assert report["ok"] is False
    assert len(errors(report)) == 3


# --------------------------------------------------------------------------- file modes


def test_a_loose_file_mode_is_reported_and_fix_repairs_only_that(healthy: Path) -> None:
    db_file = healthy / DB_NAME
    before = dump(healthy)
    for suffix in ("-wal", "-shm"):  # left behind by the read-only dump: not under test here
        (healthy / (DB_NAME + suffix)).unlink(missing_ok=True)
    raw = db_file.read_bytes()
    os.chmod(db_file, 0o644)

    report = ok("doctor")
    assert report["ok"] is False
    (finding,) = errors(report)
    assert finding["check"] == "file_mode" and "644" in finding["message"]
    assert finding["details"]["file"] == DB_NAME
    assert mode(db_file) == 0o644  # doctor without --fix changes nothing

    fixed = ok("doctor", "--fix")
    assert fixed["ok"] is True
    assert fixed["fixed"] == [DB_NAME]
    assert mode(db_file) == 0o600
    assert db_file.read_bytes() == raw
    assert dump(healthy) == before
    assert ok("doctor")["ok"] is True


def test_fix_repairs_wal_and_shm_but_never_the_directory(healthy: Path) -> None:
    os.chmod(healthy, 0o755)
    before = dump(healthy)
    holder = db_connect(healthy)  # keeps -wal and -shm in existence
    try:
        holder.execute("SELECT COUNT(*) FROM memories").fetchall()
        for suffix in ("-wal", "-shm"):
            os.chmod(healthy / (DB_NAME + suffix), 0o664)
        fixed = ok("doctor", "--fix")
        assert fixed["ok"] is True
        assert sorted(fixed["fixed"]) == [DB_NAME + "-shm", DB_NAME + "-wal"]
        for suffix in ("", "-wal", "-shm"):
            assert mode(healthy / (DB_NAME + suffix)) == 0o600
        assert mode(healthy) == 0o755  # an existing directory is never chmodded
        dir_warning = [f for f in fixed["findings"] if f["check"] == "dir_mode"]
        assert dir_warning[0]["severity"] == "warning"

        # Without --fix the loose -shm is reported and left alone.
        os.chmod(healthy / (DB_NAME + "-shm"), 0o664)
        report = ok("doctor")
        assert report["ok"] is False
        assert [f["details"]["file"] for f in errors(report)] == [DB_NAME + "-shm"]
        assert mode(healthy / (DB_NAME + "-shm")) == 0o664
        assert ok("doctor", "--fix")["fixed"] == [DB_NAME + "-shm"]
    finally:
        holder.close()
    assert dump(healthy) == before


# --------------------------------------------------------------------------- table output


def test_table_format_renders_the_findings(healthy: Path) -> None:
    ineligible_source(healthy)
    r = run_cli("--format", "table", "doctor", check_envelope=False)
    assert r.code == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    header = next(line for line in lines if line.split()[:3] == ["check", "severity", "message"])
    assert header
    assert any(line.startswith("ok") and "false" in line for line in lines)
    assert any("eligibility" in line and "m-badsource000001" in line for line in lines)
    assert any(line.startswith("integrity") for line in lines)


# --------------------------------------------------------------------------- unreadable stores


def doctor_reports(store_dir: Path, check: str, code: str | None = None) -> dict[str, Any]:
    before = listing(store_dir)
    raw = {p: p.read_bytes() for p in store_dir.glob(DB_NAME + "*") if p.is_file()}
    r = run_cli("doctor")
    assert r.code == 0 and r.env["ok"] is True
    report = r.data
    assert report["ok"] is False
    found = [f for f in errors(report) if f["check"] == check]
    assert found, report
    if code is not None:
        assert found[0]["details"]["code"] == code
    assert listing(store_dir) == before  # nothing created, removed or chmodded
    for p, data in raw.items():
        assert p.read_bytes() == data  # never overwritten
    return report


def test_a_file_that_is_not_sqlite(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / DB_NAME).write_bytes(b"these are my notes, not a database\n" * 50)
    os.chmod(private_store / DB_NAME, 0o600)
    doctor_reports(private_store, "integrity", "STORE_CORRUPT")


def test_a_damaged_sqlite_file(healthy: Path) -> None:
    ok(
        "apply",
        "--json",
        json.dumps(
            {"deltas": [delta(subject="obj-c", field=f"f{i}", value="v" * 190) for i in range(15)]}
        ),
    )
    path = healthy / DB_NAME
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 4 * page
    for offset in range(page + 100, len(data) - 100, 7):
        data[offset] = 0xA5
    path.write_bytes(bytes(data))
    doctor_reports(healthy, "integrity")


def test_a_sqlite_file_of_another_application(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    conn = sqlite3.connect(private_store / DB_NAME)  # creates it
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    os.chmod(private_store / DB_NAME, 0o600)
    report = doctor_reports(private_store, "schema")
    assert "not a memory store" in errors(report)[0]["message"]


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_a_symlinked_store_file(healthy: Path, tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"elsewhere{suffix}"
    link = healthy / (DB_NAME + suffix)
    if link.exists():
        os.replace(link, target)
    else:
        target.write_bytes(b"")
        os.chmod(target, 0o600)
    link.symlink_to(target)
    target_bytes = target.read_bytes()
    doctor_reports(healthy, "files", "STORE_UNSAFE")
    assert link.is_symlink() and target.read_bytes() == target_bytes


def test_a_store_path_that_is_a_directory(private_store: Path) -> None:
    (private_store / DB_NAME).mkdir(parents=True, mode=0o700)
    doctor_reports(private_store, "files", "STORE_UNSAFE")


def test_a_data_dir_that_is_a_file(private_store: Path) -> None:
    private_store.write_text("not a directory")
    r = run_cli("doctor")
    assert r.code == 0 and r.data["ok"] is False
    assert private_store.read_text() == "not a directory"


# --------------------------------------------------------------------------- absent stores


@pytest.mark.parametrize("fix", [False, True])
def test_doctor_creates_nothing_on_an_absent_store(private_store: Path, fix: bool) -> None:
    args = ["doctor", "--fix"] if fix else ["doctor"]
    report = ok(*args)
    assert report["ok"] is True
    assert not private_store.exists() and not private_store.parent.joinpath("xdg-data").exists()
    private_store.mkdir(mode=0o700)
    report = ok(*args)
    assert report["ok"] is True
    assert list(private_store.iterdir()) == []
    assert MemoryStore(private_store).doctor(fix=fix)["ok"] is True
    assert list(private_store.iterdir()) == []


def test_doctor_on_an_empty_file_from_an_unfinished_enable(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / DB_NAME).touch(mode=0o600)
    os.chmod(private_store / DB_NAME, 0o600)
    before = listing(private_store)
    report = ok("doctor")
    assert report["ok"] is True  # not damage: enable --confirm completes it
    assert any(f["check"] == "schema" and f["severity"] == "info" for f in report["findings"])
    assert listing(private_store) == before
    assert (private_store / DB_NAME).stat().st_size == 0
