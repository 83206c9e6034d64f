"""Erasure is physical (documentation/privacy.md#erasure-is-physical): removed values' bytes are in none of the store's files.

Every value written here carries a unique marker. After each command the test
asks the database which markers it still *retains* (live rows and the undo
snapshots of the remaining operations) and searches the raw bytes of
memory.sqlite3, -wal and -shm for every other marker ever written.

revoke --delete also unlinks every file on a disk without one free byte.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path

import pytest
from support import (
    DB_NAME,
    TOMBSTONE,
    db_connect,
    delta,
    find_leaks,
    held_open,
    in_tiny_disk,
    left_after_revoke_delete,
    ok,
    raw_files,
)
from support import apply as _apply

from memory_store import MemoryStore, MemoryStoreError

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "river",
    "mountain",
    "coffee",
    "dinner",
    "晚饭",
    "电影",
    "散步",
    "周末",
    "约会",
    "咖啡",
]


def retained_markers(store_dir: Path) -> set[str]:
    """Markers the store is still allowed to hold: live rows, their past values (documentation/time.md#where-history-lives) and
    undo snapshots."""
    conn = db_connect(store_dir, readonly=True)
    try:
        text = " ".join(r[0] for r in conn.execute("SELECT value FROM memories"))
        text += " ".join(
            r[0] for r in conn.execute("SELECT past FROM memories WHERE past NOT NULL")
        )
        text += " ".join(r[0] for r in conn.execute("SELECT snapshot FROM operations"))
    finally:
        conn.close()
    return set(re.findall(r"mk[0-9]{2}x[0-9]{5}q", text))


def apply(*deltas: dict) -> object:
    r = _apply(*deltas)
    assert r.code == 0, r.stdout
    return r


def make_value(rng: random.Random, marker: str) -> str:
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 60)))
    return (marker + " " + body)[: rng.randint(len(marker) + 1, 200)].strip()


# --- each erasing path, through the CLI ---------------------------------------------


@pytest.fixture
def watched(enabled: Path):
    """An enabled store that another process keeps open, as a host process would.

    While it is open, closing the CLI's connection neither checkpoints nor
    deletes the WAL, so old page images survive unless erasure removes them.
    The holder is a separate process: reading the files' bytes here would drop
    a connection's POSIX locks if that connection lived in this process.
    """
    with held_open(enabled, "idle"):
        yield enabled


def test_forget_erases_value(watched: Path) -> None:
    secret, keep = "forgetme-ascii-7731", "留下的记忆-keep-1"
    r = apply(delta(field="fact", value=secret), delta(field="label", value=keep))
    memory_id = r.data["results"][0]["memory"]["id"]
    assert find_leaks(watched, [secret])  # sanity: the search sees stored values
    ok("forget", memory_id, "--confirm")
    assert find_leaks(watched, [secret]) == []
    assert find_leaks(watched, [keep])


def test_forget_object_erases_every_row_and_snapshot(watched: Path) -> None:
    values = ["她喜欢的餐厅-秘密-01", "second-value-for-b-02", "第三条-03"]
    apply(*(delta(subject="obj-b", field=f"f{i}", value=v) for i, v in enumerate(values)))
    apply(
        delta(subject="obj-b", field="f0", value="overwritten-b-04")
    )  # f0's old value now in a snapshot
    apply(delta(subject="obj-c", field="f0", value="other-subject-stays"))
    data = ok("forget-object", "obj-b", "--confirm")
    assert data["deleted"] == 3 and data["erased"] is True
    assert find_leaks(watched, [*values, "overwritten-b-04"]) == []
    assert find_leaks(watched, ["other-subject-stays"])


def test_clear_erases_everything(watched: Path) -> None:
    values = [f"clear-me-{i}-清除" for i in range(10)]
    apply(*(delta(field=f"f{i}", value=v) for i, v in enumerate(values)))
    ok("clear", "--confirm")
    assert find_leaks(watched, values) == []


def test_revoke_delete_removes_files(watched: Path) -> None:
    apply(delta(value="revoke-delete-value"))
    ok("revoke", "--delete", "--confirm")
    assert raw_files(watched) == {}
    assert left_after_revoke_delete(watched) == []


def test_undo_erases_the_written_value(watched: Path) -> None:
    apply(delta(field="stage", value="first-stage-value"))
    apply(delta(field="stage", value="撤销的值-undo-me"))
    ok("undo")
    assert find_leaks(watched, ["撤销的值-undo-me"]) == []
    assert find_leaks(watched, ["first-stage-value"])


def test_overwritten_value_leaves_with_the_undo_window(watched: Path) -> None:
    # A correction keeps no past value (documentation/time.md#writing), so the old value lives only in the snapshot.
    apply(delta(field="stage", value="old-stage-will-expire"))
    apply(delta(field="stage", value="new-stage", correction=True))
    for i in range(19):
        apply(delta(subject=f"pad-{i}", field="fact", value=f"pad {i}"))
    # The overwriting operation is still in the window: its snapshot keeps the old value.
    assert find_leaks(watched, ["old-stage-will-expire"])
    apply(delta(subject="pad-last", field="fact", value="pad last"))
    assert find_leaks(watched, ["old-stage-will-expire"]) == []


def test_pruned_row_leaves_with_the_undo_window(watched: Path) -> None:
    apply(*(delta(scope="hypothesis", field=f"h{i}", value=f"hypo-{i}-pruned") for i in range(5)))
    apply(delta(scope="hypothesis", field="h5", value="hypo-5"))  # prunes h0
    assert find_leaks(watched, ["hypo-0-pruned"])  # restorable by undo
    for i in range(20):
        apply(delta(subject=f"pad-{i}", field="fact", value=f"pad {i}"))
    assert find_leaks(watched, ["hypo-0-pruned"]) == []


# --- with another process holding the database open ---------------------------------


def test_erasure_completes_while_a_reader_holds_a_connection(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "s")
    store.enable(confirm=True)
    store.apply(delta(field="fact", value="held-open-secret"))
    with held_open(store.path, "idle"):  # an idle connection keeps -wal and -shm alive
        result = store.forget_object("obj-a", confirm=True)
        assert result["erased"] is True
        assert find_leaks(tmp_path / "s", ["held-open-secret"]) == []


def _pin_and_forget(store_dir: Path, secret: str) -> None:
    """forget-object while another process pins an old snapshot: erased false, the
    secret still in the files when the reader lets go."""
    ok("apply", "--json", json.dumps(delta(field="fact", value=secret)))
    ok("apply", "--json", json.dumps(delta(subject="obj-z", field="fact", value="unrelated")))
    with held_open(store_dir, "read"):
        result = ok("forget-object", "obj-a", "--confirm")
        assert result["erased"] is False  # honest: the reader still sees the old pages
    assert find_leaks(store_dir, [secret])  # pending: this is what the next write must finish


@pytest.mark.parametrize(
    "command",
    [
        ["apply", "--json", json.dumps(delta(subject="obj-z", field="fact2", value="next"))],
        ["pause"],
        ["resume"],
        ["enable", "--confirm"],
        ["revoke", "--confirm"],
        ["undo"],
        ["clear", "--confirm"],
    ],
    ids=lambda c: c[0],
)
def test_the_next_committed_write_of_any_kind_finishes_a_pending_erasure(
    watched: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setenv("MEMORY_STORE_BUSY_TIMEOUT_MS", "200")
    _pin_and_forget(watched, "reader-pinned-secret")
    ok(*command)
    assert find_leaks(watched, ["reader-pinned-secret"]) == []


# --- revoke --delete on a disk with no free byte ------------------------------------


REVOKE_ON_A_FULL_TMPFS = r"""
import json, os, sqlite3, sys
from memory_store import MemoryStore, MemoryStoreError
from memory_store.cli import main
store_dir, left_behind = sys.argv[1], sys.argv[2]
store = MemoryStore(store_dir)
store.enable(confirm=True)
for i in range(12):
    store.apply({"scope": "event", "subject_id": f"obj-{i % 9}", "field": f"e{i}",
                 "value": f"row {i} " + "满" * 150, "source_type": "user_report",
                 "occurred_at": "2026-08-02"})
path = os.path.join(store_dir, "memory.sqlite3")
pid = os.fork()
if pid == 0:  # a host that died with the store open: its -wal and -shm stay behind
    if left_behind != "nothing":
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("UPDATE settings SET value = value WHERE key = 'write_seq'")
    os._exit(0)
os.waitpid(pid, 0)
if left_behind == "wal":
    os.unlink(path + "-shm")
before = sorted(os.listdir(store_dir))
fd = os.open(os.path.join(os.path.dirname(store_dir), "filler"), os.O_WRONLY | os.O_CREAT)
for chunk in (b"x" * 65536, b"x" * 4096, b"x"):  # dd until it fails, to the last byte
    try:
        while True:
            os.write(fd, chunk)
    except OSError:
        pass
os.close(fd)
vfs = os.statvfs(store_dir)
code = main(["--data-dir", store_dir, "revoke", "--delete", "--confirm"])
print(json.dumps({"code": code, "before": before, "left": sorted(os.listdir(store_dir)),
                  "free": vfs.f_bavail * vfs.f_frsize}), file=sys.stderr)
"""


LEFT_BEHIND = {
    # As every command leaves it: revoke's own open must create -wal and -shm, and cannot.
    "nothing": ["memory.sqlite3"],
    # A host that died with the store open: SQLite truncates the -shm and regrows it.
    "wal-and-shm": ["memory.sqlite3", "memory.sqlite3-shm", "memory.sqlite3-wal"],
    # A -wal whose -shm someone removed: the -wal must be read without one.
    "wal": ["memory.sqlite3", "memory.sqlite3-wal"],
}


@pytest.mark.parametrize("left_behind", sorted(LEFT_BEHIND))
def test_revoke_delete_unlinks_every_file_on_a_disk_with_no_free_byte(
    tmp_path: Path, left_behind: str
) -> None:
    proc = in_tiny_disk(tmp_path, REVOKE_ON_A_FULL_TMPFS, left_behind)
    assert proc.stderr.strip(), proc
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    envelope = json.loads(proc.stdout)
    assert report["before"] == LEFT_BEHIND[left_behind]
    assert report["free"] == 0, report  # not one byte left
    assert report["code"] == 0 and report["left"] == [TOMBSTONE], (report, envelope)
    data = envelope["data"]
    assert data["deleted"] is True and data["consent_enabled"] is False, envelope
    assert data["rows_deleted"] == 12  # counted even where SQLite could not open a -shm
    # Zeroing overwrites pages the files already hold, so even a full tmpfs allows it;
    # where it cannot (a sparse file), the result says overwritten: false
    # (storage/test_hostile_file_systems.py). Either way the result tells the truth about
    # the bytes.
    assert data["erased"] is data["overwritten"]


# --- randomized churn over a large store ---------------------------------------------


def churn(tmp_path: Path, seed: int, steps: int) -> None:
    """Random batches, overwrites of varying length, deletes, undo and forget over a
    store of ~150 rows with values near 200 characters; after every command no
    marker the store no longer retains may remain in its files."""
    rng = random.Random(seed)
    store_dir = tmp_path / f"churn-{seed}"
    store = MemoryStore(store_dir)
    store.enable(confirm=True)
    markers: list[str] = []
    counter = 0
    subjects = [f"obj-{i}" for i in range(10)]

    def new_value() -> str:
        nonlocal counter
        counter += 1
        marker = f"mk{seed:02d}x{counter:05d}q"
        markers.append(marker)
        return make_value(rng, marker)

    # Fill to roughly 150 rows.
    for s in subjects:
        store.apply(
            {
                "deltas": [delta(subject=s, field=f"fact{i}", value=new_value()) for i in range(8)]
                + [
                    delta(scope="relationship", subject=s, field=f"r{i}", value=new_value())
                    for i in range(4)
                ]
                + [
                    delta(
                        scope="event",
                        subject=s,
                        field="conflict",
                        value=new_value(),
                        occurred_at=f"2026-0{rng.randint(1, 9)}-{d:02d}",
                    )
                    for d in range(1, 4)
                ]
            }
        )
    for step in range(steps):
        roll = rng.random()
        s = rng.choice(subjects)
        try:
            if roll < 0.45:
                batch = [
                    delta(subject=s, field=f"fact{rng.randint(0, 9)}", value=new_value())
                    for _ in range(rng.randint(1, 4))
                ]
                # Distinct keys within one batch.
                batch = list({d["field"]: d for d in batch}.values())
                if rng.random() < 0.3:
                    batch.append(
                        delta(
                            scope="event",
                            subject=s,
                            field="repair",
                            value=new_value(),
                            occurred_at=f"2026-1{rng.randint(0, 2)}-{rng.randint(10, 28)}",
                        )
                    )
                store.apply({"deltas": batch})
            elif roll < 0.60:
                rows = store.show(subject_id=s)["memories"]
                if rows:
                    victim = rng.choice(rows)
                    ends = (
                        victim["scope"] == "object" and not victim["ended"] and rng.random() < 0.4
                    )
                    store.apply({"action": "end" if ends else "delete", "id": victim["id"]})
            elif roll < 0.75:
                store.undo()
            elif roll < 0.85:
                rows = store.show()["memories"]
                if rows:
                    store.forget(rng.choice(rows)["id"], confirm=True)
            elif roll < 0.95:
                store.forget_object(s, confirm=True)
            else:
                store.apply(
                    {
                        "deltas": [
                            delta(scope="hypothesis", subject=s, field=f"h{i}", value=new_value())
                            for i in range(rng.randint(1, 5))
                        ]
                    }
                )
        except MemoryStoreError as exc:
            # Refusals are fine (caps, conflicts, nothing to undo); they change nothing.
            assert exc.code in {
                "MEMORY_LIMIT_REACHED",
                "UNDO_CONFLICT",
                "NOTHING_TO_UNDO",
                "SUBJECT_NOT_FOUND",
                "MEMORY_NOT_FOUND",
            }, exc.to_dict()
        retained = retained_markers(store_dir)
        present = {
            (m.decode(), name)
            for name, data in raw_files(store_dir).items()
            for m in re.findall(rb"mk[0-9]{2}x[0-9]{5}q", data)
        }
        leaks = sorted(p for p in present if p[0] not in retained)
        assert leaks == [], f"seed {seed} step {step}: {leaks[:5]}"
    # The store really was large and busy.
    assert counter > 150


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_randomized_churn_leaves_no_stale_bytes(tmp_path: Path, seed: int) -> None:
    churn(tmp_path, seed, steps=150)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 18))
def test_randomized_churn_long(tmp_path: Path, seed: int) -> None:
    churn(tmp_path, seed, steps=400)


def test_marker_search_would_see_a_leak(tmp_path: Path) -> None:
    """The forensic search is not vacuous: with erasure switched off, a deleted
    value is still found in the files."""
    path = tmp_path / DB_NAME
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA secure_delete=OFF")
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.execute("INSERT INTO t VALUES (?)", (json.dumps("leaky-marker-value"),))
    conn.commit()
    conn.execute("DELETE FROM t")
    conn.commit()
    conn.close()
    assert find_leaks(tmp_path, ["leaky-marker-value"])
