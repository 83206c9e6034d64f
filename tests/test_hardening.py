"""Attacks that got through release 1 (contract §17, issue #10): paths, export location,
ownership, races, one-line summaries, the reserved subject id, the journal mode.

The detectors (test_sensitive.py), pending erasure (test_erasure.py), revoke
--delete against planted files and a full disk (test_store_errors.py,
test_hostile_files.py) and option abbreviations (test_commands.py) are tested
beside the behaviour they harden.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DB_NAME, db_connect, delta, fails, ok, put, run_cli

from memory_store.storage import migrations

PROJECT = Path(__file__).resolve().parent.parent


# --- paths are paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape",
    ["//{dir}/x", "/./{dir}/x", "/{dir}//x//", "/{dir}/./x/.", "//{dir}/../{name}/x/"],
)
def test_a_data_dir_is_normalized_before_sqlite_sees_it(tmp_path: Path, shape: str) -> None:
    store = tmp_path / "x"
    given = shape.format(dir=str(tmp_path).lstrip("/"), name=tmp_path.name)
    data = ok("--data-dir", given, "enable", "--confirm")
    assert data["path"] == str(store / DB_NAME)
    ok("--data-dir", given, "apply", "--json", json.dumps(delta(value="路径")))
    assert ok("--data-dir", str(store), "show")["count"] == 1
    gone = ok("--data-dir", given, "revoke", "--delete", "--confirm")
    assert gone["deleted"] is True
    assert list(store.iterdir()) == []


@pytest.mark.parametrize("variable", ["XDG_DATA_HOME", "HOME"])
def test_a_home_starting_with_two_slashes_is_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.delenv("MEMORY_STORE_DIR")
    if variable == "HOME":
        monkeypatch.delenv("XDG_DATA_HOME")
        expected = tmp_path / ".local" / "share" / "memory-store"
    else:
        expected = tmp_path / "memory-store"
    monkeypatch.setenv(variable, "//" + str(tmp_path).lstrip("/"))
    r = run_cli("enable", "--confirm")
    assert r.code == 0, r.stdout
    assert r.data["path"] == str(expected / DB_NAME)
    assert ok("revoke", "--delete", "--confirm", spawn=True)["deleted"] is True
    assert list(expected.iterdir()) == []


# --- export never into the store's directory ----------------------------------------------


@pytest.mark.parametrize(
    "name", ["memory.sqlite3-wal", "memory.sqlite3-shm", "memory.sqlite3-journal", "export.json"]
)
def test_export_refuses_a_path_inside_the_store_directory(enabled: Path, name: str) -> None:
    put(delta(value="别导出到这里"))
    r = fails("INVALID_ARGUMENTS", "export", "--output", str(enabled / name))
    assert "store's directory" in r.error["message"]
    assert sorted(p.name for p in enabled.iterdir() if p.name == name) == []
    assert ok("show")["count"] == 1


def test_export_refuses_the_store_directory_reached_another_way(
    enabled: Path, tmp_path: Path
) -> None:
    link = tmp_path / "alias"
    link.symlink_to(enabled)
    (enabled / "sub").mkdir()
    for target in (
        link / "copy.json",
        enabled / "sub" / "copy.json",
        enabled / ".." / enabled.name / "c.json",
    ):
        fails("INVALID_ARGUMENTS", "export", "--output", str(target))
    assert not (enabled / "copy.json").exists() and not (enabled / "sub" / "copy.json").exists()
    assert ok("export", "--output", str(tmp_path / "outside.json"))["count"] == 0


# --- ownership --------------------------------------------------------------------------

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
    assert list(enabled.iterdir()) == []  # nothing was recreated or written
    assert ok("status")["exists"] is False


# --- one line, one reserved id, one journal mode -------------------------------------------


def test_the_summary_is_one_line(enabled: Path) -> None:
    data = put(delta(field="fact", value="第一行\n第二行\twith a tab"))
    assert data["summary"] == "obj-a object.fact → 第一行⏎第二行 with a tab"
    logged = ok("log")["operations"][0]["summary"]
    assert logged == data["summary"]
    assert "\n" not in ok("undo")["summary"]
    table = run_cli("--format", "table", "log", check_envelope=False)
    assert table.code == 0


@pytest.mark.parametrize("subject", ["User", "USER", "uSeR"])
@pytest.mark.parametrize("scope", ["object", "relationship", "event", "hypothesis"])
def test_user_is_reserved_whatever_its_case(enabled: Path, scope: str, subject: str) -> None:
    r = fails("INVALID_DELTA", "apply", "--json", json.dumps(delta(scope=scope, subject=subject)))
    assert r.error["details"]["path"] == "$.subject_id"
    assert ok("show")["count"] == 0


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
