"""Hostile file systems (documentation/variables.md#where-the-store-lives, documentation/commands.md#robustness): read-only, unreadable and full locations end in
STORE_UNAVAILABLE with nothing lost; private modes hold whatever the umask.

These tests run as root on the CI machine, where permission bits do not stop
root: a read-only location is made with the immutable attribute (chattr +i),
an unreadable one by running the CLI as the unprivileged user `nobody`
(setpriv), and a full disk with a tiny tmpfs in a private mount namespace
(unshare).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from support import (
    DB_NAME,
    ROOT,
    TOMBSTONE,
    apply,
    db_connect,
    delta,
    fails,
    in_tiny_disk,
    ok,
    run_cli,
)

from memory_store import MemoryStore


def _run_as_nobody(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-m",
            "memory_store",
            *args,
        ],
        capture_output=True,
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )


@pytest.fixture
def immutable(tmp_path: Path):
    """Make directories immutable for the test, and always undo it."""
    marked: list[Path] = []

    def mark(path: Path) -> None:
        subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
        marked.append(path)

    yield mark
    for path in marked:
        subprocess.run(["chattr", "-i", str(path)], check=False, capture_output=True)


def test_enable_under_a_read_only_parent_is_unavailable(tmp_path: Path, immutable) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    immutable(parent)
    r = fails("STORE_UNAVAILABLE", "--data-dir", str(parent / "store"), "enable", "--confirm")
    assert r.code == 6
    assert not (parent / "store").exists()


def test_writes_in_a_read_only_directory_are_unavailable_and_change_nothing(
    enabled: Path, immutable
) -> None:
    apply(delta(value="before read-only"))
    before = (enabled / DB_NAME).read_bytes()
    immutable(enabled)
    fails("STORE_UNAVAILABLE", "apply", "--json", json.dumps(delta(field="fact", value="after")))
    fails("STORE_UNAVAILABLE", "forget-object", "obj-a", "--confirm")
    assert (enabled / DB_NAME).read_bytes() == before


def test_unreadable_directory_is_unavailable(enabled: Path) -> None:
    apply(delta(value="private"))
    os.chmod(enabled, 0o700)  # root's own directory: nobody may not enter it
    for args in (
        ["status"],
        ["show"],
        ["apply", "--json", json.dumps(delta(field="f2", value="x"))],
    ):
        proc = _run_as_nobody(args, {"MEMORY_STORE_DIR": str(enabled)})
        assert proc.returncode == 6, proc.stdout + proc.stderr
        env = json.loads(proc.stdout)
        assert env["error"]["code"] == "STORE_UNAVAILABLE"
        assert b"Traceback" not in proc.stderr
    assert ok("show")["count"] == 1


def test_unreadable_database_file_is_unavailable(enabled: Path) -> None:
    os.chmod(enabled, 0o755)
    proc = _run_as_nobody(["status"], {"MEMORY_STORE_DIR": str(enabled)})
    assert proc.returncode == 6, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "STORE_UNAVAILABLE"


FULL_DISK_SCRIPT = r"""
import json, os, sys
from memory_store import MemoryStore, MemoryStoreError
store = MemoryStore(sys.argv[1])
store.enable(confirm=True)
kept = []
code = None
for i in range(2000):
    value = f"row {i} " + "满" * 150
    try:
        store.apply({"scope": "event", "subject_id": f"obj-{i % 9}", "field": f"e{i}", "value": value,
                     "source_type": "user_report", "occurred_at": "2026-08-02"})
        kept.append(i)
    except MemoryStoreError as exc:
        code = exc.code
        if code != "MEMORY_LIMIT_REACHED":
            break
print(json.dumps({"code": code, "kept": len(kept), "status": store.status()["counts"],
                  "doctor": store.doctor()["ok"]}))
"""


def test_disk_full_is_unavailable_and_loses_nothing(tmp_path: Path) -> None:
    proc = in_tiny_disk(tmp_path, FULL_DISK_SCRIPT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["code"] == "STORE_UNAVAILABLE", result
    assert result["kept"] > 0
    # Every acknowledged write survived the failed one, and the file is sound.
    assert result["status"]["total"] == min(result["kept"], 200)
    assert result["doctor"] is True


def test_modes_are_private_under_umask_000(tmp_path: Path) -> None:
    store_dir = tmp_path / "a" / "b" / "store"
    out = tmp_path / "export.json"
    script = (
        "import os, sys; os.umask(0); from memory_store.cli import main; "
        "sys.exit(max(main(['--data-dir', sys.argv[1], 'enable', '--confirm']), "
        "main(['--data-dir', sys.argv[1], 'export', '--output', sys.argv[2]])))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(store_dir), str(out)], capture_output=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for directory in (tmp_path / "a", tmp_path / "a" / "b", store_dir):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((store_dir / DB_NAME).stat().st_mode) == 0o600
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    # -wal and -shm exist while a connection is open; SQLite gives them the database's mode.
    store = MemoryStore(store_dir)

    conn = db_connect(store.path)
    try:
        os.umask(0)
        conn.execute("SELECT COUNT(*) FROM settings").fetchall()
        store.apply(delta(value="mode check"))
        for suffix in ("-wal", "-shm"):
            assert stat.S_IMODE(os.stat(store.path + suffix).st_mode) == 0o600
    finally:
        os.umask(0o022)
        conn.close()


def test_existing_directory_is_never_chmodded(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    ok("--data-dir", str(shared), "enable", "--confirm")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    findings = ok("--data-dir", str(shared), "doctor")["findings"]
    assert any(f["check"] == "dir_mode" and f["severity"] == "warning" for f in findings)


def test_export_refuses_a_symlink_target(enabled: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    r = run_cli("export", "--output", str(link))
    assert r.error["code"] == "INVALID_ARGUMENTS"
    assert not target.exists()


REVOKE_ON_FULL_DISK = r"""
import json, os, sys
from memory_store import MemoryStore, MemoryStoreError
from memory_store.cli import main
store_dir, sparse = sys.argv[1], sys.argv[2] == "sparse"
store = MemoryStore(store_dir)
store.enable(confirm=True)
for i in range(2000):
    try:
        store.apply({"scope": "event", "subject_id": f"obj-{i % 9}", "field": f"e{i}",
                     "value": f"row {i} " + "满" * 150, "source_type": "user_report",
                     "occurred_at": "2026-08-02"})
    except MemoryStoreError as exc:
        if exc.code != "MEMORY_LIMIT_REACHED":
            break
fd = os.open(os.path.join(os.path.dirname(store_dir), "filler"), os.O_WRONLY | os.O_CREAT)
try:  # whatever space is left
    while True:
        os.write(fd, b"x" * 4096)
except OSError:
    os.close(fd)
if sparse:  # a side file whose blocks the full disk cannot supply: zeroing it must fail
    fd = os.open(os.path.join(store_dir, "memory.sqlite3-journal"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.ftruncate(fd, 1 << 20)
    os.close(fd)
code = main(["--data-dir", store_dir, "revoke", "--delete", "--confirm"])
print(json.dumps({"code": code, "left": sorted(os.listdir(store_dir))}), file=sys.stderr)
"""


@pytest.mark.parametrize("sparse", [False, True], ids=["full", "full-and-sparse"])
def test_revoke_delete_deletes_on_a_full_disk(tmp_path: Path, sparse: bool) -> None:
    proc = in_tiny_disk(tmp_path, REVOKE_ON_FULL_DISK, "sparse" if sparse else "plain")
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    envelope = json.loads(proc.stdout)
    assert report == {"code": 0, "left": [TOMBSTONE]}, (report, envelope)
    assert envelope["ok"] is True and envelope["data"]["deleted"] is True
    assert envelope["data"]["rows_deleted"] > 0
    if sparse:
        assert envelope["data"]["overwritten"] is False
        assert envelope["data"]["erased"] is False
