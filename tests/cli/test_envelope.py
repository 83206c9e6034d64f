"""documentation/commands.md#one-envelope-semantic-exit-codes, documentation/commands.md#what-each-command-promises: one envelope per invocation, semantic exit codes, argparse errors,
--format table, the in-process entry point, the entry points, the data keys and
INTERNAL_ERROR without a traceback.

Help and the version are in test_help.py; UTF-8 and the standard streams in
test_text_and_streams.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import COMMAND_NAMES, ENVELOPE_KEYS, ROW_KEYS, db_connect, delta, fails, ok, run_cli

import memory_store.cli
from memory_store import MemoryStore
from memory_store.errors import EXIT_STATUS

ZH = "双方已确认进入排他约会"


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


# ---------------------------------------------------------------------------
# Store states used by the success / failure matrix


def make_state(state: str, store: Path) -> dict[str, str]:
    """Bring the private store into ``state`` (through the library, to keep the suite fast);
    return ids the command lines may name."""
    info: dict[str, str] = {}
    if state == "absent":
        return info
    if state == "dir_is_file":
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_bytes(b"not a directory")
        return info
    lib = MemoryStore(store)
    lib.enable(confirm=True)
    if state == "enabled":
        return info
    assert state == "populated", state
    data = lib.apply(
        {
            "deltas": [
                delta("user", field="goal", value="长期关系", source="user_explicit"),
                delta("object", field="display_label", value="小A"),
                delta("relationship", field="stage", value=ZH),
                delta("event", field="invitation", value="周六晚饭"),
                delta("hypothesis", field="intent", value="可能在试探"),
            ]
        }
    )
    info["memory_id"] = data["results"][1]["memory"]["id"]
    info["op_id"] = data["op_id"]
    return info


def expand(args: list[str], info: dict[str, str], tmp_path: Path) -> list[str]:
    out = []
    for a in args:
        if a == "{mid}":
            a = info["memory_id"]
        elif a == "{out}":
            a = str(tmp_path / "export.json")
        elif a == "{page}":
            a = str(tmp_path / "review.html")
        elif a == "{skills}":
            a = str(tmp_path / "skills")
        elif a == "{doc}":  # the store's own export, to bring back
            a = str(tmp_path / "doc.json")
            MemoryStore().export(output=a)
        out.append(a)
    return out


VALID_DELTA = _json(delta("relationship", field="stage", value=ZH))

STATUS_KEYS = {
    "exists",
    "consent_enabled",
    "consent_at",
    "paused",
    "policy_version",
    "schema_version",
    "counts",
    "limits",
    "undo_available",
    "path",
}

# (state, args, data keys the documentation/commands.md#what-each-command-promises table names)
SUCCESS_CASES: list[tuple[str, list[str], set[str]]] = [
    (
        "absent",
        ["status"],
        STATUS_KEYS,
    ),
    (
        "populated",
        ["status"],
        STATUS_KEYS,
    ),
    ("absent", ["enable", "--confirm"], set()),
    ("enabled", ["pause"], set()),
    ("enabled", ["resume"], set()),
    (
        "enabled",
        ["apply", "--json", VALID_DELTA],
        {"op_id", "results", "pruned", "summary", "undo_hint", "dry_run"},
    ),
    (
        "enabled",
        ["apply", "--dry-run", "--json", VALID_DELTA],
        {"op_id", "results", "pruned", "summary", "undo_hint", "dry_run"},
    ),
    ("populated", ["undo"], {"undone_op_id", "restored", "removed", "summary", "erased"}),
    ("populated", ["log"], {"operations"}),
    ("populated", ["show"], {"count", "memories"}),
    (
        "populated",
        ["context", "--subject-id", "obj-a"],
        {"subject_id", "memories", "truncated", "omitted", "max_chars"},
    ),
    (
        "populated",
        ["context"],
        {"subject_id", "memories", "roster", "truncated", "omitted", "max_chars"},
    ),
    ("populated", ["forget", "{mid}", "--confirm"], {"deleted", "operations_removed", "erased"}),
    (
        "populated",
        ["forget-object", "obj-a", "--confirm"],
        {"deleted", "operations_removed", "erased"},
    ),
    ("populated", ["revoke", "--confirm"], {"consent_enabled", "deleted"}),
    ("populated", ["revoke", "--delete", "--confirm"], {"consent_enabled", "deleted"}),
    ("populated", ["clear", "--confirm"], {"deleted", "operations_removed", "erased"}),
    ("populated", ["export"], {"document"}),
    ("populated", ["export", "--output", "{out}"], {"path"}),
    ("populated", ["search", "--query", "晚饭"], {"query", "count", "memories", "truncated"}),
    ("populated", ["tidy"], {"subject_id", "findings", "proposal"}),
    ("populated", ["import", "{doc}"], {"op_id", "counts", "summary", "undo_hint", "dry_run"}),
    ("populated", ["import", "--dry-run", "{doc}"], {"op_id", "counts", "dry_run"}),
    ("populated", ["review", "--output", "{page}"], {"path", "count", "people"}),
    # No desktop in the tests: the page is not opened, and the result says what to run.
    ("populated", ["open-page"], {"opened", "subject_id", "idle_minutes", "command"}),
    ("absent", ["open-page"], {"opened", "subject_id", "idle_minutes", "command"}),
    ("populated", ["doctor"], {"ok", "findings"}),
    ("absent", ["doctor"], {"ok", "findings"}),
    ("absent", ["mcp", "--print-config", "codex"], {"host", "format", "config", "args"}),
    ("absent", ["skill", "path"], {"action", "path", "files", "installed"}),
    ("absent", ["skill", "install", "--dir", "{skills}"], {"action", "path", "changed"}),
]

# (state, args, expected error code): every command fails at least once here.
FAILURE_CASES: list[tuple[str, list[str], str]] = [
    ("dir_is_file", ["status"], "STORE_UNAVAILABLE"),
    ("absent", ["enable"], "CONFIRMATION_REQUIRED"),
    ("dir_is_file", ["enable", "--confirm"], "STORE_UNAVAILABLE"),
    ("absent", ["pause"], "NOT_INITIALIZED"),
    ("absent", ["resume"], "NOT_INITIALIZED"),
    ("enabled", ["apply", "--json", "not json"], "INVALID_DELTA"),
    ("absent", ["apply", "--json", VALID_DELTA], "NOT_INITIALIZED"),
    ("enabled", ["undo"], "NOTHING_TO_UNDO"),
    ("populated", ["undo", "--op-id", "op-nonexistent"], "OPERATION_NOT_FOUND"),
    ("absent", ["log"], "NOT_INITIALIZED"),
    ("absent", ["show"], "NOT_INITIALIZED"),
    ("absent", ["context"], "NOT_INITIALIZED"),
    ("populated", ["forget", "m-0000000000000000", "--confirm"], "MEMORY_NOT_FOUND"),
    ("populated", ["forget", "{mid}"], "CONFIRMATION_REQUIRED"),
    ("populated", ["forget-object", "obj-zzz", "--confirm"], "SUBJECT_NOT_FOUND"),
    ("populated", ["revoke"], "CONFIRMATION_REQUIRED"),
    ("populated", ["revoke", "--delete"], "CONFIRMATION_REQUIRED"),
    ("populated", ["clear"], "CONFIRMATION_REQUIRED"),
    ("absent", ["export"], "NOT_INITIALIZED"),
    ("dir_is_file", ["export"], "STORE_UNAVAILABLE"),
    ("enabled", ["import", "{out}"], "INVALID_ARGUMENTS"),
    ("enabled", ["search", "--query", " "], "INVALID_ARGUMENTS"),
    ("enabled", ["tidy", "--subject-id", " "], "INVALID_ARGUMENTS"),
    ("absent", ["review", "--output", "{page}"], "NOT_INITIALIZED"),
    # The page starts in any consent state (documentation/page.md); a request it
    # cannot show is refused before it listens.
    ("absent", ["open-page", "--ask", "forget"], "INVALID_ARGUMENTS"),
    ("absent", ["review", "--serve", "--no-open", "--memory-id", "x"], "INVALID_ARGUMENTS"),
    ("enabled", ["open-page", "--subject-id", "obj-nobody"], "SUBJECT_NOT_FOUND"),
    ("absent", ["doctor", "--no-such-flag"], "INVALID_ARGUMENTS"),
    ("absent", ["mcp", "--print-config", "notepad"], "INVALID_ARGUMENTS"),
    ("absent", ["skill", "install", "--host", "claude", "--dir", "{skills}"], "INVALID_ARGUMENTS"),
]


def _ids(cases: list[tuple[Any, ...]]) -> list[str]:
    return [f"{c[0]}:{' '.join(c[1])[:40]}" for c in cases]


def test_matrix_covers_every_command() -> None:
    succeeded = {args[0] for _, args, _ in SUCCESS_CASES}
    failed = {args[0] for _, args, _ in FAILURE_CASES}
    assert succeeded == set(COMMAND_NAMES)
    assert failed == set(COMMAND_NAMES)
    # mcp serves only without --print-config (tests/mcp/); with it, it prints the envelope.
    assert set(memory_store.cli.COMMANDS) == set(COMMAND_NAMES)


@pytest.mark.parametrize(("state", "args", "keys"), SUCCESS_CASES, ids=_ids(SUCCESS_CASES))
def test_success_envelope(
    state: str, args: list[str], keys: set[str], private_store: Path, tmp_path: Path
) -> None:
    info = make_state(state, private_store)
    r = run_cli(*expand(args, info, tmp_path))  # asserts one envelope, exact keys, exit status
    assert r.code == 0
    env = r.env
    assert env["ok"] is True
    assert env["command"] == args[0]
    assert env["error"] is None
    assert isinstance(env["data"], dict)
    missing = keys - set(env["data"])
    assert not missing, (missing, env["data"])


@pytest.mark.parametrize(("state", "args", "code"), FAILURE_CASES, ids=_ids(FAILURE_CASES))
def test_failure_envelope(
    state: str, args: list[str], code: str, private_store: Path, tmp_path: Path
) -> None:
    info = make_state(state, private_store)
    r = fails(code, *expand(args, info, tmp_path))
    env = r.env
    assert env["ok"] is False
    assert env["command"] == args[0]
    assert env["data"] is None
    assert r.code == EXIT_STATUS[code] != 0
    assert isinstance(env["error"]["message"], str) and env["error"]["message"]
    assert isinstance(env["error"]["details"], dict)


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_unknown_flag_names_the_command(command: str) -> None:
    r = fails("INVALID_ARGUMENTS", command, "--no-such-flag")
    assert r.env["command"] == command
    assert r.code == 2


# ---------------------------------------------------------------------------
# argparse errors become envelopes


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["bogus"], None),
        ([], None),
        (["--format", "xml", "status"], None),
        (["--data-dir"], None),
        (["status", "extra"], "status"),
        (["apply", "--bogus"], "apply"),
        (["forget"], "forget"),
        (["forget-object"], "forget-object"),
        (["forget", "--confirm"], "forget"),
        (["forget", "   ", "--confirm"], "forget"),
        (["apply", "--json"], "apply"),
        (["apply", "--json", "{}", "--file", "x.json"], "apply"),
        (["undo", "--op-id"], "undo"),
        (["context", "--max-chars", "499"], "context"),
        (["context", "--max-chars", "8001"], "context"),
        (["context", "--max-chars", "abc"], "context"),
        (["context", "--max-chars", ""], "context"),
        (["show", "--scope", "bogus"], "show"),
        (["show", "--subject-id"], "show"),
        (["export", "--output"], "export"),
    ],
)
def test_argparse_errors_are_envelopes(args: list[str], command: str | None) -> None:
    r = fails("INVALID_ARGUMENTS", *args)
    assert r.code == 2
    assert r.env["command"] == command
    assert r.env["data"] is None


def test_argparse_error_on_a_missing_store_creates_nothing(private_store: Path) -> None:
    fails("INVALID_ARGUMENTS", "enable", "--confirm", "--bogus")
    fails("INVALID_ARGUMENTS", "context", "--max-chars", "499")
    assert not private_store.exists()


def test_max_chars_bounds_are_inclusive(enabled: Path) -> None:
    assert ok("context", "--max-chars", "500")["max_chars"] == 500
    assert ok("context", "--max-chars", "8000")["max_chars"] == 8000
    assert ok("context")["max_chars"] == 4000


def test_scope_choices_accepted(enabled: Path) -> None:
    for scope in ("user", "object", "relationship", "event", "hypothesis"):
        assert ok("show", "--scope", scope)["count"] == 0


# ---------------------------------------------------------------------------
# --format table


def _table(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "--format", "table", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=60,
        input="",
    )
    assert "Traceback" not in proc.stderr
    return proc


def _populate_for_tables() -> None:
    ok("enable", "--confirm")
    ok(
        "apply",
        "--json",
        _json(
            {
                "deltas": [
                    delta("user", field="goal", value="长期关系", source="user_explicit"),
                    delta("object", field="display_label", value="小A"),
                    delta("relationship", field="stage", value=ZH),
                ]
            }
        ),
    )


@pytest.mark.parametrize(
    ("args", "headers"),
    [
        (
            ["status"],
            ["exists", "consent_enabled", "paused", "policy_version", "undo_available"],
        ),
        (["show"], sorted(ROW_KEYS)),
        (["log"], ["op_id", "created_at", "action", "summary", "rows"]),
        (
            ["context", "--subject-id", "obj-a"],
            # compact rows (documentation/recall.md#what-context---query-returns)
            sorted(set(ROW_KEYS) - {"created_at", "updated_at"}),
        ),
        (["context"], ["subject_id", "display_label", "counts", "last_updated", "value"]),
        (["doctor"], ["check", "severity", "message"]),
    ],
)
def test_table_format_renders_headers(args: list[str], headers: list[str]) -> None:
    _populate_for_tables()
    proc = _table(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = proc.stdout
    assert out.strip()
    # Not a JSON envelope.
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)
    for h in headers:
        assert h in out, (h, out)
    if args[0] in ("show", "context"):
        assert "小A" in out or "长期关系" in out


def test_table_format_status_on_absent_store(private_store: Path) -> None:
    proc = _table("status")
    assert proc.returncode == 0
    assert "exists" in proc.stdout
    assert not private_store.exists()


@pytest.mark.parametrize(("state", "args", "code"), FAILURE_CASES, ids=_ids(FAILURE_CASES))
def test_table_format_error_is_one_stderr_line(
    state: str, args: list[str], code: str, private_store: Path, tmp_path: Path
) -> None:
    info = make_state(state, private_store)
    proc = _table(*expand(args, info, tmp_path))
    assert proc.returncode == EXIT_STATUS[code]
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert code in lines[0]


@pytest.mark.parametrize(
    "args",
    [["bogus"], ["context", "--max-chars", "499"], ["show", "--scope", "bogus"], ["forget"]],
)
def test_table_format_argparse_error_is_one_stderr_line(args: list[str]) -> None:
    proc = _table(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "INVALID_ARGUMENTS" in lines[0]


# ---------------------------------------------------------------------------
# In-process entry point


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = memory_store.cli.main(list(args))
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 1, out
    env = json.loads(lines[0])
    assert set(env) == ENVELOPE_KEYS
    return code, env


@pytest.mark.parametrize(("state", "args", "code"), FAILURE_CASES, ids=_ids(FAILURE_CASES))
def test_in_process_main_failure_codes(
    state: str,
    args: list[str],
    code: str,
    private_store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    info = make_state(state, private_store)
    rc, env = _main(capsys, *expand(args, info, tmp_path))
    assert rc == EXIT_STATUS[code]
    assert env["ok"] is False
    assert env["error"]["code"] == code
    assert env["command"] == args[0]


@pytest.mark.parametrize(("state", "args", "keys"), SUCCESS_CASES, ids=_ids(SUCCESS_CASES))
def test_in_process_main_success_codes(
    state: str,
    args: list[str],
    keys: set[str],
    private_store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    info = make_state(state, private_store)
    rc, env = _main(capsys, *expand(args, info, tmp_path))
    assert rc == 0
    assert env["ok"] is True
    assert keys <= set(env["data"])


@pytest.mark.parametrize(
    ("args", "command"),
    [(["bogus"], None), ([], None), (["context", "--max-chars", "abc"], "context")],
)
def test_in_process_main_argparse_errors(
    args: list[str], command: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, env = _main(capsys, *args)
    assert rc == 2
    assert env["command"] == command
    assert env["error"]["code"] == "INVALID_ARGUMENTS"


def test_in_process_and_subprocess_agree(
    private_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, env = _main(capsys, "enable", "--confirm")
    assert rc == 0
    rc, env = _main(capsys, "apply", "--json", VALID_DELTA)
    assert rc == 0
    sub = run_cli("show")
    assert sub.data["memories"][0]["id"] == env["data"]["results"][0]["memory"]["id"]
    rc, env = _main(capsys, "forget", "m-0000000000000000", "--confirm")
    sub = run_cli("forget", "m-0000000000000000", "--confirm")
    assert rc == sub.code == 3
    assert env["error"]["code"] == sub.error["code"] == "MEMORY_NOT_FOUND"


# ---------------------------------------------------------------------------
# Entry points


def test_python_dash_m_works(private_store: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "status"],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0
    env = json.loads(proc.stdout)
    assert env["command"] == "status" and env["data"]["exists"] is False
    assert proc.stderr == b""


def test_data_dir_option_overrides_environment(private_store: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-store"
    data = ok("--data-dir", str(other), "enable", "--confirm")
    assert data["path"] == str(other / "memory.sqlite3")
    assert (other / "memory.sqlite3").is_file()
    assert not private_store.exists()
    assert ok("--data-dir", str(other), "status")["exists"] is True
    assert ok("status")["exists"] is False


# ---------------------------------------------------------------------------
# Data keys in detail


def test_status_data_keys_in_detail(enabled: Path) -> None:
    ok("apply", "--json", VALID_DELTA)
    data = ok("status")
    assert data["exists"] is True
    assert data["consent_enabled"] is True
    assert isinstance(data["consent_at"], str)
    assert data["paused"] is False
    assert data["policy_version"] == 1
    assert isinstance(data["schema_version"], int) and data["schema_version"] >= 1
    assert data["counts"]["total"] == 1
    assert set(data["counts"]["by_scope"]) == {
        "user",
        "object",
        "relationship",
        "event",
        "hypothesis",
    }
    assert data["counts"]["by_scope"]["relationship"] == 1
    assert data["undo_available"] == 1
    assert data["path"] == str(enabled / "memory.sqlite3")
    assert data["limits"] is None  # inside the caps; --verbose shows them
    assert ok("status", "--verbose")["limits"]["total_rows"] == 200


def test_row_data_keys_in_detail(enabled: Path) -> None:
    applied = ok("apply", "--json", VALID_DELTA)
    result = applied["results"][0]
    assert set(result) >= {"index", "action", "memory"}
    assert result["index"] == 0 and result["action"] == "created"
    # compact (documentation/mcp.md#the-tools): what context returns, without the subject the delta named
    assert {"id", "scope", "field", "value"} <= set(result["memory"]) < set(ROW_KEYS)
    assert "subject_id" not in result["memory"]
    assert isinstance(applied["summary"], str) and applied["summary"]
    assert "undo" in applied["undo_hint"]
    assert applied["dry_run"] is False
    assert applied["pruned"] == []
    for m in ok("show")["memories"]:
        assert set(m) >= set(ROW_KEYS)
    # compact (documentation/recall.md#what-context---query-returns)
    for m in ok("context", "--subject-id", "obj-a")["memories"]:
        assert {"id", "scope", "field", "value"} <= set(m) < set(ROW_KEYS) | {"since", "pinned"}
    op = ok("log")["operations"][0]
    assert set(op) >= {"op_id", "created_at", "action", "summary", "rows"}
    assert op["op_id"] == applied["op_id"] and op["rows"] == 1
    undone = ok("undo")
    assert undone["undone_op_id"] == applied["op_id"]
    assert [m["id"] for m in undone["removed"]] == [result["memory"]["id"]]
    assert undone["restored"] == []
    assert isinstance(undone["erased"], bool)


def test_revoke_and_doctor_data_values(enabled: Path) -> None:
    doc = ok("doctor")
    assert doc["ok"] is True
    for f in doc["findings"]:
        assert set(f) >= {"check", "severity", "message"}
    data = ok("revoke", "--confirm")
    assert data["consent_enabled"] is False and data["deleted"] is False
    data = ok("revoke", "--delete", "--confirm")
    assert data["consent_enabled"] is False and data["deleted"] is True


def test_console_script_works(private_store: Path) -> None:
    script = Path(sys.executable).with_name("memory-store")
    proc = subprocess.run([str(script), "status"], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    env = json.loads(proc.stdout)
    assert set(env) == ENVELOPE_KEYS and env["data"]["exists"] is False


# ---------------------------------------------------------------------------
# An unexpected exception


def test_unexpected_exception_is_internal_error_without_traceback(enabled: Path) -> None:
    """documentation/commands.md#one-envelope-semantic-exit-codes: an unexpected exception becomes INTERNAL_ERROR (exit 1); the traceback goes to
    stderr only with MEMORY_STORE_DEBUG=1. Triggered for real: a settings value edited
    by hand into something the code never writes."""
    conn = db_connect(enabled)
    conn.execute("UPDATE settings SET value = 'not-a-number' WHERE key = 'policy_version'")
    conn.commit()
    conn.close()
    r = fails("INTERNAL_ERROR", "status")
    assert r.code == 1 and r.stderr == ""
    debug = run_cli("status", env={"MEMORY_STORE_DEBUG": "1"}, check_envelope=False)
    assert debug.code == 1
    assert "Traceback" in debug.stderr
    assert json.loads(debug.stdout)["error"]["code"] == "INTERNAL_ERROR"
    assert len(debug.stdout.splitlines()) == 1
