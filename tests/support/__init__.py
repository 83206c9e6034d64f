"""Shared test helpers, one per job (``from support import ...``; fixtures are in conftest.py).

- ``cli(*args)``: the real command line, run in process by ``main(argv)`` —
  for most command tests (a process start costs ~50 ms).
- ``run_cli(*args)``: the real command line in a subprocess — for stdout and
  exit-status discipline, crashes, concurrency, locks held by another
  process, umask and hot-path imports.
- ``run_with_env(args, env)`` / ``envelope_of(proc)``: ``python -m memory_store`` with
  exactly the environment given (a locale, no data directory, a closed stdin), and the
  one envelope it printed.
- ``ok`` / ``fails`` / ``apply`` / ``put``: a command that must succeed or fail,
  in process (``spawn=True`` for a subprocess).
- ``delta`` / ``body_of`` / ``op_ids`` / ``prc_id``: a valid delta, the JSON of a batch,
  the undoable operations, a PRC ID number with a valid check character.
- ``db_connect``: a raw SQLite connection, for tests that inspect or break the
  file behind the tool's back.
- ``raw_files`` / ``find_leaks``: the bytes of memory.sqlite3, -wal and -shm, and which
  of some markers they still hold (erasure is physical, documentation/privacy.md#erasure-is-physical).
- ``held_open``: another process holding the database open (idle, in a read
  transaction, or with the write lock), as a host would. It must be another
  process: POSIX locks belong to the process, so any open/close of the file in
  the test process (reading its bytes) would silently drop a connection's
  locks there, and the store would no longer really be held.
- ``in_tiny_disk``: a script run with its store on a 300 KB tmpfs, a disk that fills up.
- ``MODES`` / ``answering`` / ``YES`` / ``call`` / ``data_of`` / ``refused``: the MCP
  server through the SDK's client — both protocol generations, the person's answer to a
  confirmation, a tool call, its data on success, its ``{code, message, details}`` on a
  refusal.
- ``two_people``: 小A with two memories and Alex with one, each its own undo step.
- ``raw_mcp_session``: raw lines to ``memory-store mcp`` over pipes, below the
  SDK, for what a client library would never send; ``RAW_HANDSHAKE`` first.
- ``ROW_KEYS`` / ``TIME_KEYS`` / ``COMMAND_NAMES``: the row keys (references/memory-rules.md#the-five-kinds), time keys
  (documentation/time.md#where-history-lives) and commands (documentation/commands.md#what-each-command-promises), written out once; ``ROOT``: the checkout.

Modules beside this one: ``browser`` (a real headless Chromium and review pages of a
real store), ``oldstore`` (stores as an earlier schema version left them, for the
migration tests), ``timekit`` (the tests of memory that knows time, documentation/time.md#where-history-lives), ``venvs`` (a
real virtual environment holding the built wheel, with or without the ``mcp`` extra,
whose ``bin`` is on no PATH: conftest's ``venv_install`` and ``venv_install_mcp``).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memory_store.cli import main
from memory_store.errors import EXIT_STATUS

ROOT = Path(__file__).resolve().parents[2]  # the checkout: tests/support/ is two below it
ENVELOPE_KEYS = {"schema", "ok", "command", "data", "error"}
DB_NAME = "memory.sqlite3"
# references/memory-rules.md#the-five-kinds, written out here rather than imported: the tests check the code against it.
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
# Every command of documentation/commands.md#what-each-command-promises, written out for the same reason.
COMMAND_NAMES = [
    "status",
    "enable",
    "pause",
    "resume",
    "apply",
    "undo",
    "log",
    "show",
    "context",
    "search",
    "tidy",
    "forget",
    "forget-object",
    "revoke",
    "clear",
    "export",
    "import",
    "review",
    "open-page",
    "mcp",
    "skill",
    "doctor",
]
# documentation/time.md#where-history-lives: what every row carries about time, after the keys of references/memory-rules.md#the-five-kinds (show, export v2).
TIME_KEYS = ("since", "past", "ended", "pinned")


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

    Asserts: exactly one JSON object on stdout with exactly the envelope's keys (documentation/commands.md#one-envelope-semantic-exit-codes),
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


def run_with_env(
    args: list[str | bytes], env: dict[str, str], **kwargs: Any
) -> subprocess.CompletedProcess[bytes]:
    """``python -m memory_store ARGS`` with exactly ``env`` (plus the import path)."""
    return subprocess.run(
        [sys.executable, "-m", "memory_store", *args],
        capture_output=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=60,
        **kwargs,
    )


def envelope_of(proc: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """The one envelope a process printed, with nothing on stderr."""
    assert proc.stderr == b"", proc.stderr
    lines = proc.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


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
    *deltas: dict[str, Any],
    store: str | None = None,
    dry_run: bool = False,
    spawn: bool = False,
    verbose: bool = True,
) -> Result:
    """``apply`` of ``deltas``; whole rows in the result (``--verbose``) unless told."""
    args = ["apply", "--json", body_of(*deltas)]
    if dry_run:
        args.append("--dry-run")
    if verbose:
        args.append("--verbose")
    if store:
        args = ["--data-dir", store, *args]
    return _runner(spawn)(*args)


def put(*deltas: dict[str, Any], verbose: bool = True) -> dict[str, Any]:
    """Apply deltas that must succeed; return apply's data (whole rows unless told)."""
    return ok("apply", "--json", body_of(*deltas), *(["--verbose"] if verbose else []))


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


def raw_files(store_dir: Path) -> dict[str, bytes]:
    """The bytes of the store's files (memory.sqlite3, -wal, -shm) that exist, by name."""
    out = {}
    for suffix in ("", "-wal", "-shm"):
        path = store_dir / (DB_NAME + suffix)
        if path.exists():
            out[path.name] = path.read_bytes()
    return out


def find_leaks(store_dir: Path, needles: list[str]) -> list[tuple[str, str]]:
    """(needle, file name) for every needle whose UTF-8 bytes are in one of the store's files."""
    files = raw_files(store_dir)
    return [(n, name) for n in needles for name, data in files.items() if n.encode("utf-8") in data]


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


def in_tiny_disk(tmp_path: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``<mount>/store`` and ``args`` in a private mount namespace where
    ``<mount>`` is a 300 KB tmpfs: a disk that fills up."""
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to mount a tiny file system")
    mount = tmp_path / "tiny"
    mount.mkdir()
    path = tmp_path / "script.py"
    path.write_text(script)
    inner = f"mount -t tmpfs -o size=300k tmpfs {mount} && {sys.executable} {path} {mount}/store"
    inner += "".join(f" {a}" for a in args)
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", inner],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


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


def as_shown(document: dict[str, Any]) -> list[dict[str, Any]]:
    """An export document's rows as ``show`` gives them: without ``occurred_offset``,
    which only the export carries (the written offset, for the restore's times)."""
    return [{k: v for k, v in m.items() if k != "occurred_offset"} for m in document["memories"]]


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


# ---------------------------------------------------------------- the MCP server through the SDK

MODES = ["auto", "legacy"]  # the two protocol generations the SDK's client speaks


def answering(action: str, content: dict[str, Any] | None = None, seen: list | None = None) -> Any:
    """An elicitation callback: the person's answer to every confirmation (``seen`` collects
    the questions)."""

    async def callback(context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        if seen is not None:
            seen.append(params)
        return ElicitResult(action=action, content=content)

    return callback


YES = answering("accept", {"confirm": True})


async def call(client: Any, name: str, **args: Any) -> Any:
    """A tool call with keyword arguments."""
    return await client.call_tool(name, args)


def data_of(result: Any) -> dict[str, Any]:
    """A success: the CLI's data as structured content, and as JSON text."""
    assert result.is_error is False, result.structured_content
    if result.structured_content.get("changed") is False:  # a question that changed nothing
        text = result.content[0].text
        assert "nothing changed" in text.lower() or "什么都没有改变" in text, text
    else:
        assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def refusal_payload(text: str) -> dict[str, Any]:
    """The envelope's ``{code, message, details}`` a refusal's text carries, as JSON."""
    payload = json.loads(text)
    assert set(payload) == {"code", "message", "details"}, payload
    return payload


def refused(result: Any, code: str) -> dict[str, Any]:
    """An MCP tool error carrying the envelope's ``{code, message, details}`` as its text,
    and no structured content (which the tool's outputSchema, a success's shape, would
    not describe: the TypeScript SDK 1.x then hides the code)."""
    assert result.is_error is True, result
    assert result.structured_content is None, result.structured_content
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    payload = refusal_payload(result.content[0].text)
    assert payload["code"] == code, payload
    return payload


def two_people() -> None:
    """小A with two memories and Alex with one, each written by its own apply (one undo step)."""
    for d in (
        delta(value="小A"),
        delta(field="job", value="teacher"),
        delta(subject="obj-b", value="Alex", source="user_explicit"),
    ):
        ok("apply", "--json", json.dumps(d, ensure_ascii=False), spawn=True)


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


TOMBSTONE = "revoked.json"


def left_after_revoke_delete(store_dir: Path) -> list[str]:
    """What ``revoke --delete`` left in the data directory besides its tombstone (documentation/privacy.md#what-revoke---delete-leaves-a-tombstone), once the tombstone is checked to hold ``consent_state`` and ``revoked_at`` only."""
    names = sorted(p.name for p in store_dir.iterdir())
    if TOMBSTONE in names:
        kept = json.loads((store_dir / TOMBSTONE).read_text("utf-8"))
        assert set(kept) == {"consent_state", "revoked_at"} and kept["consent_state"] == "revoked"
        names.remove(TOMBSTONE)
    return names


def without_past_ids(past: Any) -> Any:
    """A row's past values (or one of them) with their handles taken out, once each is
    checked to be one (``p-`` and 16 hex digits, references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id): the rest can be compared."""
    if isinstance(past, dict):
        assert re.fullmatch(r"p-[0-9a-f]{16}", past["past_id"]), past
        return {k: v for k, v in past.items() if k != "past_id"}
    return [without_past_ids(p) for p in past]
