"""Shared test helpers, one per job.

- ``private_store`` (autouse): every test, and every process it starts, uses a
  throwaway data directory.
- ``cli(*args)``: the real command line, run in process by ``main(argv)`` —
  for most command tests (a process start costs ~50 ms).
- ``run_cli(*args)``: the real command line in a subprocess — for stdout and
  exit-status discipline, crashes, concurrency, locks held by another
  process, umask and hot-path imports.
- ``ok`` / ``fails`` / ``apply`` / ``put``: a command that must succeed or fail,
  in process (``spawn=True`` for a subprocess).
- ``db_connect``: a raw SQLite connection, for tests that inspect or break the
  file behind the tool's back.
- ``held_open``: another process holding the database open (idle, in a read
  transaction, or with the write lock), as a host would. It must be another
  process: POSIX locks belong to the process, so any open/close of the file in
  the test process (reading its bytes) would silently drop a connection's
  locks there, and the store would no longer really be held.
- ``raw_mcp_session``: raw lines to ``memory-store mcp`` over pipes, below the
  SDK, for what a client library would never send; ``RAW_HANDSHAKE`` first.
- ``installed_wheel`` (once a session): the wheel built from a clean copy of this
  checkout's files and unpacked as pip installs it, for what only an install shows.
- ``ROW_KEYS``: the contract's row keys (§6), written out once.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memory_store.cli import main
from memory_store.errors import EXIT_STATUS

ENVELOPE_KEYS = {"schema", "ok", "command", "data", "error"}
DB_NAME = "memory.sqlite3"
# Contract §6, written out here rather than imported: the tests check the code against it.
ROW_KEYS = (
    "id",
    "scope",
    "subject_id",
    "field",
    "value",
    "source_type",
    "source_ref",
    "occurred_at",
    "confidence",
    "created_at",
    "updated_at",
)
# Contract §20: what every row carries about time, after the keys of §6 (show, export v2).
TIME_KEYS = ("since", "past", "ended", "pinned")


@pytest.fixture(autouse=True)
def private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every test (and every subprocess it starts) at a throwaway data directory."""
    store_dir = tmp_path / "store"
    monkeypatch.setenv("MEMORY_STORE_DIR", str(store_dir))
    # Belt and braces: even the platformdirs fallback stays inside tmp_path.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.delenv("MEMORY_STORE_DEBUG", raising=False)
    monkeypatch.delenv("MEMORY_STORE_BUSY_TIMEOUT_MS", raising=False)
    return store_dir


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    @property
    def env(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    @property
    def data(self) -> Any:
        return self.env["data"]

    @property
    def error(self) -> dict[str, Any] | None:
        return self.env["error"]

    def __iter__(self) -> Any:
        """``status, envelope = cli(...)``."""
        return iter((self.code, self.env))


class _Sink(io.BytesIO):
    """A byte buffer that keeps its contents when the text wrapper around it is closed."""

    def close(self) -> None:
        pass


def _bytes(input: bytes | str | None) -> bytes:
    if isinstance(input, str):
        return input.encode("utf-8")
    return b"" if input is None else input


def cli(
    *args: str,
    input: bytes | str | None = None,
    env: dict[str, str] | None = None,
    check_envelope: bool = True,
    timeout: float | None = None,  # accepted for symmetry with run_cli
) -> Result:
    """Run ``main(args)`` in this process with its own stdin, stdout and stderr.

    The same checks as :func:`run_cli`. ``env`` is applied for the call only.
    """
    saved_env = {k: os.environ.get(k) for k in env or {}}
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = _Sink(), _Sink()
    sys.stdin = io.TextIOWrapper(io.BytesIO(_bytes(input)), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8")
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8")
    os.environ.update(env or {})
    try:
        code = main(list(args))
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    result = Result(code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8"))
    if check_envelope:
        assert_envelope(result)
    return result


def run_cli(
    *args: str,
    input: bytes | str | None = None,
    env: dict[str, str] | None = None,
    check_envelope: bool = True,
    timeout: float = 60,
) -> Result:
    """Run ``python -m memory_store ARGS`` in a subprocess and check the envelope discipline.

    Asserts: exactly one JSON object on stdout with exactly the contract's keys,
    an exit status that matches the error code, and a clean stderr.
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", *args],
        input=_bytes(input),
        capture_output=True,
        env=full_env,
        timeout=timeout,
    )
    result = Result(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"))
    if check_envelope:
        assert_envelope(result)
    return result


def assert_envelope(result: Result) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    env = json.loads(lines[0])
    assert set(env) == ENVELOPE_KEYS
    assert env["schema"] == "memory-store/v1"
    if env["ok"]:
        assert result.code == 0
        assert env["error"] is None
    else:
        assert env["data"] is None
        assert set(env["error"]) == {"code", "message", "details"}
        assert result.code == EXIT_STATUS[env["error"]["code"]], (result.code, env["error"])


def _runner(spawn: bool) -> Any:
    return run_cli if spawn else cli


def ok(*args: str, spawn: bool = False, **kwargs: Any) -> Any:
    """Run a command that must succeed; return its data."""
    r = _runner(spawn)(*args, **kwargs)
    assert r.code == 0, r.stdout
    return r.data


def fails(code: str, *args: str, spawn: bool = False, **kwargs: Any) -> Result:
    """Run a command that must fail with ``code``; return the result."""
    r = _runner(spawn)(*args, **kwargs)
    assert r.error is not None and r.error["code"] == code, r.stdout
    assert r.code == EXIT_STATUS[code]
    return r


def delta(
    scope: str = "object",
    subject: str = "obj-a",
    field: str = "display_label",
    value: str = "A",
    source: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A valid delta with sensible defaults per scope."""
    default_source = {"user": "user_explicit", "hypothesis": "assistant_inference"}.get(
        scope, "user_report"
    )
    d: dict[str, Any] = {
        "scope": scope,
        "field": field,
        "value": value,
        "source_type": source or default_source,
    }
    if scope != "user":
        d["subject_id"] = subject
    if scope == "event":
        d.setdefault("occurred_at", "2026-08-02")
    if scope == "hypothesis":
        d.setdefault("confidence", "low")
        d.setdefault("source_ref", "turn:3")
    d.update(extra)
    return d


def body_of(*deltas: dict[str, Any]) -> str:
    """The JSON text of one delta, or of a batch of several."""
    body = deltas[0] if len(deltas) == 1 else {"deltas": list(deltas)}
    return json.dumps(body, ensure_ascii=False)


def apply(
    *deltas: dict[str, Any], store: str | None = None, dry_run: bool = False, spawn: bool = False
) -> Result:
    args = ["apply", "--json", body_of(*deltas)]
    if dry_run:
        args.append("--dry-run")
    if store:
        args = ["--data-dir", store, *args]
    return _runner(spawn)(*args)


def put(*deltas: dict[str, Any]) -> dict[str, Any]:
    """Apply deltas that must succeed; return apply's data."""
    return ok("apply", "--json", body_of(*deltas))


def op_ids() -> list[str]:
    """The undoable operations, newest first."""
    return [o["op_id"] for o in ok("log")["operations"]]


def prc_id(first17: str) -> str:
    """A PRC resident ID number with a valid check character."""
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(c) * w for c, w in zip(first17, weights, strict=True))
    return first17 + "10X98765432"[total % 11]


def db_connect(store_dir: Path | str, readonly: bool = False, **kwargs: Any) -> sqlite3.Connection:
    """A raw connection to a store's database that never creates a file.

    ``readonly`` opens it ``mode=ro``. Keyword arguments go to ``sqlite3.connect``.
    """
    path = Path(store_dir)
    if path.is_dir():
        path = path / DB_NAME
    mode = "ro" if readonly else "rw"
    return sqlite3.connect(f"file:{path}?mode={mode}", uri=True, **kwargs)


_HOLDER = r"""
import sqlite3, sys
path, mode = sys.argv[1], sys.argv[2]
conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None, timeout=0)
if mode == "read":  # pins a snapshot: a checkpoint cannot pass it
    conn.execute("BEGIN")
    conn.execute("SELECT COUNT(*) FROM memories").fetchall()
elif mode == "write":
    conn.execute("BEGIN IMMEDIATE")
else:  # idle: keeps -wal and -shm in existence, as a host's open connection does
    conn.execute("SELECT COUNT(*) FROM settings").fetchall()
print("ready", flush=True)
sys.stdin.readline()
if conn.in_transaction:
    conn.execute("ROLLBACK")
conn.close()
"""


class held_open:  # noqa: N801 - used like a function: ``with held_open(store, "read"):``
    """Another process holding the store's database open until the block ends."""

    def __init__(self, store_dir: Path | str, mode: str = "idle"):
        path = Path(store_dir)
        self.path = path / DB_NAME if path.is_dir() else path
        self.mode = mode
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> held_open:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(self.path), self.mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line == b"ready\n", line
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(b"\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def backdate(store_dir: Path, when: str = "2020-01-02T03:04:05Z", where: str = "") -> None:
    """Give stored rows an old created_at/updated_at (all rows, or those matching ``where``)."""
    conn = db_connect(store_dir)
    try:
        with conn:
            conn.execute(
                f"UPDATE memories SET created_at = ?, updated_at = ? {where}", (when, when)
            )
    finally:
        conn.close()


def values_of(obj: Any, key: str) -> list[Any]:
    """Every value stored under ``key`` anywhere in a JSON document."""
    found: list[Any] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                found.append(v)
            found += values_of(v, key)
    elif isinstance(obj, list):
        for v in obj:
            found += values_of(v, key)
    return found


def store_files(store_dir: Path) -> list[Path]:
    return [
        store_dir / (DB_NAME + s)
        for s in ("", "-wal", "-shm")
        if (store_dir / (DB_NAME + s)).exists()
    ]


@pytest.fixture
def enabled(private_store: Path) -> Path:
    """A store with consent given."""
    ok("enable", "--confirm")
    return private_store


# ---------------------------------------------------------------- the MCP server's tests


@pytest.fixture
def anyio_backend() -> str:
    """anyio-marked tests (the MCP SDK's clients) run on asyncio."""
    return "asyncio"


@pytest.fixture
def store(private_store: Path) -> Any:
    """The store an MCP server serves, held open across calls as the server holds it."""
    from memory_store import MemoryStore

    s = MemoryStore(private_store)
    s.hold()
    yield s
    s.release()


def refused(result: Any, code: str) -> dict[str, Any]:
    """An MCP tool error carrying the contract's ``{code, message, details}``."""
    assert result.is_error is True, result
    payload = result.structured_content
    assert set(payload) == {"code", "message", "details"} and payload["code"] == code, payload
    assert result.content[0].text.startswith(f"{code}: ")
    return payload


# ---------------------------------------------------------------- MCP below the SDK

RAW_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
RAW_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
RAW_HANDSHAKE = [json.dumps(RAW_INIT).encode(), json.dumps(RAW_INITIALIZED).encode()]


def raw_mcp_session(lines: list[bytes], want: set[Any]) -> dict[Any, dict[str, Any]]:
    """``lines`` to ``memory-store mcp`` over pipes, then the replies by id (the first
    for each), once every id in ``want`` is answered. Every line on stdout must be
    JSON-RPC, the server must exit 0 when its input ends, and no traceback may reach
    stderr."""
    import select
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_store", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b"".join(line + b"\n" for line in lines))
    proc.stdin.flush()
    out: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while want - {m.get("id") for m in out} and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            if not line:
                break
            out.append(json.loads(line))  # every line on stdout is JSON-RPC
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    out += [json.loads(line) for line in proc.stdout.read().splitlines()]
    assert b"Traceback" not in proc.stderr.read()
    replies: dict[Any, dict[str, Any]] = {}
    for m in out:
        replies.setdefault(m.get("id"), m)
    return replies


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout's files (tracked, or new and not ignored) copied
    into a clean directory, so that nothing a local build left behind (``build/``) can
    slip into it, then unpacked as pip installs it (``--target``). The wheel itself is in
    the site's sibling ``dist/``."""
    base = tmp_path_factory.mktemp("wheel")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    source = base / "source"
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    pip = [sys.executable, "-m", "pip"]
    build = subprocess.run(
        [*pip, "wheel", str(source), "--no-deps", "-q", "-w", str(base / "dist")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (base / "dist").glob("memory_store-*-py3-none-any.whl")
    site = base / "site"
    install = subprocess.run(
        [*pip, "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return site
