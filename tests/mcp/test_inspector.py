"""The MCP Inspector's CLI, a third-party client built on the TypeScript SDK 1.x (documentation/mcp.md#tests, documentation/mcp.md#the-tools), against ``memory-store mcp`` as a host starts it.

That SDK validates any structured content of a tool result against the tool's
``outputSchema``, errors included, and shows the model only the mismatch: a refusal must
carry its ``{code, message, details}`` as text and no structured content. The Inspector
is pinned (``INSPECTOR``) so that what is tested does not change under the test; ``npx``
fetches it on first use. Node.js is required, not optional: ``.ci/run`` installs
Debian's ``nodejs`` and ``npm`` where they are missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, delta, ok, refusal_payload

from memory_store.commands.catalog import TOOLS

# The last Inspector on the TypeScript SDK 1.x (its 2.x moved to the SDK's 2.x packages).
INSPECTOR = "@modelcontextprotocol/inspector@1.0.3"


def _npx() -> str:
    found = shutil.which("npx")
    if found is None:
        pytest.fail("npx (Node.js) is missing: install it (Debian: apt-get install nodejs npm)")
    return found


def inspector(method: str, tool: str | None = None, **args: str) -> dict[str, Any]:
    """One Inspector CLI call against a fresh server process; its JSON output."""
    command = [_npx(), "-y", INSPECTOR, "--cli", sys.executable, "-m", "memory_store", "mcp"]
    command += ["--method", method]
    if tool is not None:
        command += ["--tool-name", tool]
    for name, value in args.items():
        command += ["--tool-arg", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_UPDATE_NOTIFIER": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    return json.loads(done.stdout)


def _refusal(result: dict[str, Any], code: str) -> dict[str, Any]:
    """What the Inspector shows of a refusal: the code and message, readable as text."""
    assert result["isError"] is True, result
    assert "structuredContent" not in result, result
    [content] = result["content"]
    payload = refusal_payload(content["text"])
    assert payload["code"] == code and payload["message"], payload
    return payload


def test_the_inspector_lists_the_tools_and_calls_one(enabled: Path) -> None:
    ok("apply", "--json", json.dumps(delta(value="小林"), ensure_ascii=False))
    names = {t["name"] for t in inspector("tools/list")["tools"]}
    assert names == {t.name for t in TOOLS.values()}
    result = inspector("tools/call", "memory_show", subject_id="obj-a")
    assert result["isError"] is False
    assert [m["value"] for m in result["structuredContent"]["memories"]] == ["小林"]


def test_the_inspector_shows_a_refusal_before_memory_is_enabled(private_store: Path) -> None:
    payload = _refusal(
        inspector("tools/call", "memory_context", subject_id="obj-a"), "NOT_INITIALIZED"
    )
    assert "memory_enable" in payload["message"]  # the fix, in the tools' own terms


def test_the_inspector_shows_refusals_of_a_write_and_of_an_unknown_person(enabled: Path) -> None:
    ok("apply", "--json", json.dumps(delta(value="小林"), ensure_ascii=False))
    # A fact about the user must come from the user: a report is not eligible for it.
    told = json.dumps(
        {"scope": "user", "field": "city", "value": "上海", "source_type": "user_report"},
        ensure_ascii=False,
    )
    _refusal(inspector("tools/call", "memory_apply", delta=told), "SOURCE_NOT_ELIGIBLE")
    payload = _refusal(
        inspector("tools/call", "memory_forget_object", subject_id="obj-zz"), "SUBJECT_NOT_FOUND"
    )
    assert payload["details"]["known_subjects"] == ["obj-a"]
