"""Shared test helpers: a private data directory per test, and a real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memory_store.errors import EXIT_STATUS

ENVELOPE_KEYS = {"schema", "ok", "command", "data", "error"}
DB_NAME = "memory.sqlite3"


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


def run_cli(
    *args: str,
    input: bytes | str | None = None,
    env: dict[str, str] | None = None,
    check_envelope: bool = True,
    timeout: float = 60,
) -> Result:
    """Run ``python -m memory_store ARGS`` and check the envelope discipline.

    Asserts: exactly one JSON object on stdout with exactly the contract's keys,
    an exit status that matches the error code, and a clean stderr.
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    if isinstance(input, str):
        input = input.encode("utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", *args],
        input=input if input is not None else b"",
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


def ok(*args: str, **kwargs: Any) -> Any:
    """Run a command that must succeed; return its data."""
    r = run_cli(*args, **kwargs)
    assert r.code == 0, r.stdout
    return r.data


def fails(code: str, *args: str, **kwargs: Any) -> Result:
    """Run a command that must fail with ``code``; return the result."""
    r = run_cli(*args, **kwargs)
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


def apply(*deltas: dict[str, Any], store: str | None = None, dry_run: bool = False) -> Result:
    body = deltas[0] if len(deltas) == 1 else {"deltas": list(deltas)}
    args = ["apply", "--json", json.dumps(body, ensure_ascii=False)]
    if dry_run:
        args.append("--dry-run")
    if store:
        args = ["--data-dir", store, *args]
    return run_cli(*args)


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
