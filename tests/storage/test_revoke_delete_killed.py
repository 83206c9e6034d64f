"""``revoke --delete`` killed half-way still reads as revoked (documentation/privacy.md).

The real command line runs in its own process on a real store; the process kills
itself with SIGKILL at one file removal (just before or just after the system removes
the database file or a side file: the instants a crash can fall between). Whatever
the instant, ``status`` then answers ``revoked``: the tombstone is written before any
of the store's files goes, so no instant leaves a directory that reads as "never asked".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support import DB_NAME, delta, ok, put

# The command line, with os.unlink made to kill the process at the chosen removal: the
# file system and SQLite are real; only the moment of death is chosen.
_KILLED_AT_REMOVAL = """
import os, signal, sys
target, when = sys.argv[1], sys.argv[2]
real_unlink = os.unlink

def unlink(path, *args, **kwargs):
    hit = os.fspath(path).endswith(target)
    if hit and when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    try:
        real_unlink(path, *args, **kwargs)
    finally:  # removed, or already gone (SQLite removes its own side files on close)
        if hit and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)

os.unlink = unlink
from memory_store.cli import main
sys.exit(main(["revoke", "--delete", "--confirm"]))
"""


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("target", [DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"])
def test_killed_at_a_removal_the_store_reads_revoked(enabled: Path, target: str, when: str) -> None:
    put(delta(value="小A"), delta(field="job", value="在上海做平面设计师"))
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_AT_REMOVAL, target, when],
        capture_output=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()

    status = ok("status")
    assert status["consent_state"] == "revoked", (target, when, sorted(os.listdir(enabled)))
    assert status["consent_enabled"] is False
    # What the killed command left, a rerun finishes; revoked stays revoked.
    assert ok("revoke", "--delete", "--confirm")["deleted"] is True
    assert ok("status")["consent_state"] == "revoked"
    assert sorted(os.listdir(enabled)) == ["revoked.json"]
    assert json.loads((enabled / "revoked.json").read_text())["consent_state"] == "revoked"
