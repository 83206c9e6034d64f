"""Every malformed input gets one envelope and leaves the store unchanged (documentation/commands.md#robustness).

Property-based (hypothesis): arbitrary JSON values, arbitrary bytes on stdin and
arbitrary argv. The default run is quick; ``python -m pytest -m slow`` runs the
same properties with 2,000 examples each.

The bulk runs in-process through ``cli.main`` (the same code path the console
script runs, minus the process start); a smaller property drives the real CLI
in a subprocess with undecodable argv bytes.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_store import MemoryStore, MemoryStoreError
from memory_store.cli import COMMANDS, main
from memory_store.errors import EXIT_STATUS

QUICK = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)
DELTA_KEYS = [
    "action",
    "id",
    "scope",
    "subject_id",
    "field",
    "value",
    "source_type",
    "source_ref",
    "occurred_at",
    "confidence",
    "sensitive",
    "deltas",
]
delta_like = st.dictionaries(st.sampled_from(DELTA_KEYS), json_values, max_size=8)
payloads = (
    json_values
    | delta_like
    | st.builds(lambda ds: {"deltas": ds}, st.lists(delta_like, max_size=22))
)

TOKENS = [
    *COMMANDS,
    "--confirm",
    "--json",
    "--file",
    "--dry-run",
    "--op-id",
    "--subject-id",
    "--scope",
    "--max-chars",
    "--output",
    "--delete",
    "--fix",
    "--format",
    "table",
    "json",
    "--data-dir",
    "obj-a",
    "user",
    "500",
    "8001",
    "-1",
    "{}",
    "",
    "--",
    "-x",
]
argvs = st.lists(st.sampled_from(TOKENS) | st.text(max_size=12), max_size=6)


def table_format(argv: list[str]) -> bool:
    """Whether the command line asks for tables: a --format before the command."""
    fmt = "json"
    for i, arg in enumerate(argv):
        if arg in COMMANDS:
            break
        if arg == "--format" and i + 1 < len(argv):
            fmt = argv[i + 1]
        elif arg.startswith("--format="):
            fmt = arg.split("=", 1)[1]
    return fmt == "table"


class _Stdin:
    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


class Harness:
    """A populated, enabled store in its own directory; runs main() and checks the envelope."""

    def __init__(self, root: Path):
        self.dir = root / "store"
        store = MemoryStore(self.dir)
        store.enable(confirm=True)
        store.apply(
            {
                "deltas": [
                    {
                        "scope": "object",
                        "subject_id": "obj-a",
                        "field": "display_label",
                        "value": "小A",
                        "source_type": "user_report",
                    },
                    {
                        "scope": "event",
                        "subject_id": "obj-a",
                        "field": "conflict",
                        "value": "为晚饭吵架",
                        "source_type": "user_report",
                        "occurred_at": "2026-08-02",
                    },
                ]
            }
        )
        self.store = store

    def snapshot(self) -> object:
        """Everything a command could change: rows, consent, history and the files present."""
        files = sorted(p.name for p in self.dir.iterdir()) if self.dir.exists() else None
        try:
            doc = self.store.export()["document"]
            return doc["memories"], doc["consent"], self.store.log()["operations"], files
        except MemoryStoreError as exc:  # a random `revoke --delete --confirm` may have succeeded
            return exc.code, files

    def run(
        self, argv: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes = b""
    ) -> dict | None:
        saved = sys.stdin
        sys.stdin = _Stdin(stdin)  # type: ignore[assignment]
        try:
            code = main(["--data-dir", str(self.dir), *argv])
        finally:
            sys.stdin = saved
        out, err = capsys.readouterr()
        if any(a in ("-h", "--help") for a in argv) and code == 0 and not out.startswith("{"):
            return None  # help text: the one exception to the envelope
        assert "Traceback" not in err
        if code == 0 and any(a in COMMANDS and COMMANDS[a].serves for a in argv):
            # `mcp` speaks the protocol on stdout; empty stdin is a client that
            # closed at once, so the server ends cleanly having said nothing.
            assert out == "" and err == ""
            return None
        if table_format(argv):
            if code:
                assert out == "" and err.count("\n") == 1
            return None
        assert err == ""
        lines = out.splitlines()
        assert len(lines) == 1, out
        env = json.loads(lines[0])
        assert set(env) == {"schema", "ok", "command", "data", "error"}
        if env["ok"]:
            assert code == 0
        else:
            assert env["error"]["code"] in EXIT_STATUS
            assert code == EXIT_STATUS[env["error"]["code"]]
        return env


@pytest.fixture
def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    monkeypatch.chdir(tmp_path)  # a random --output or --data-dir lands here, nowhere else
    return Harness(tmp_path)


def check_payload(h: Harness, capsys: pytest.CaptureFixture[str], payload: object) -> None:
    before = h.snapshot()
    # --json=TEXT: a payload such as -1e+16 would otherwise read as an option.
    env = h.run(["apply", "--json=" + json.dumps(payload, ensure_ascii=False)], capsys)
    assert env is not None
    if not env["ok"]:
        assert env["error"]["code"] in {
            "INVALID_DELTA",
            "SENSITIVE_REJECTED",
            "SOURCE_NOT_ELIGIBLE",
            "MEMORY_NOT_FOUND",
            "MEMORY_LIMIT_REACHED",
        }, env
        assert h.snapshot() == before


def check_stdin(h: Harness, capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    before = h.snapshot()
    env = h.run(["apply"], capsys, stdin=data)
    assert env is not None
    if not env["ok"]:
        assert h.snapshot() == before


def check_argv(h: Harness, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    before = h.snapshot()
    env = h.run(argv, capsys)
    if env is not None and not env["ok"]:
        assert h.snapshot() == before


@QUICK
@given(payload=payloads)
def test_arbitrary_json_payload(
    harness: Harness, capsys: pytest.CaptureFixture[str], payload: object
) -> None:
    check_payload(harness, capsys, payload)


@QUICK
@given(
    data=st.binary(max_size=300)
    | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_arbitrary_stdin_bytes(
    harness: Harness, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    check_stdin(harness, capsys, data)


@QUICK
@given(argv=argvs)
def test_arbitrary_argv(
    harness: Harness, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    check_argv(harness, capsys, argv)


@pytest.mark.slow
@SLOW
@given(payload=payloads)
def test_arbitrary_json_payload_long(
    harness: Harness, capsys: pytest.CaptureFixture[str], payload: object
) -> None:
    check_payload(harness, capsys, payload)


@pytest.mark.slow
@SLOW
@given(data=st.binary(max_size=2000))
def test_arbitrary_stdin_bytes_long(
    harness: Harness, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    check_stdin(harness, capsys, data)


@pytest.mark.slow
@SLOW
@given(argv=argvs)
def test_arbitrary_argv_long(
    harness: Harness, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    check_argv(harness, capsys, argv)


def test_oversized_stdin_is_not_read_past_the_limit(
    harness: Harness, capsys: pytest.CaptureFixture[str]
) -> None:
    env = harness.run(["apply"], capsys, stdin=b"{" * (200 * 1024))
    assert env is not None and env["error"]["code"] == "INVALID_DELTA"
    assert env["error"]["details"]["limit"] == 64 * 1024


# --- the real process: undecodable argv bytes and odd environments -------------------


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    raw=st.lists(st.binary(min_size=1, max_size=10).filter(lambda b: b"\0" not in b), max_size=4)
)
def test_subprocess_with_undecodable_argv(raw: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MEMORY_STORE_DIR": os.path.join(tmp, "store"), "LC_ALL": "C"}
        proc = subprocess.run(
            [sys.executable, "-m", "memory_store", *raw],
            capture_output=True,
            env=env,
            cwd=tmp,
            timeout=60,
        )
        if proc.returncode == 0 and not proc.stdout.startswith(b"{"):
            return  # --help
        assert b"Traceback" not in proc.stderr
        text = proc.stdout.decode("utf-8")  # valid UTF-8 whatever the argv held
        envelope = json.loads(text)
        assert set(envelope) == {"schema", "ok", "command", "data", "error"}
        if not envelope["ok"]:
            assert proc.returncode == EXIT_STATUS[envelope["error"]["code"]]
        assert not os.path.exists(os.path.join(tmp, "store"))  # only enable --confirm creates
