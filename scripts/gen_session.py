#!/usr/bin/env python3
"""Re-run documentation/session.md and write every command's real output back into it.

The page is a worked session: prose, and ``console`` blocks of ``$ memory-store …``
lines each followed by what the command printed (envelopes indented for reading,
each memory row and operation kept on one line). After a change to what a command
prints, run this script and read the diff; ``tests/test_docs.py`` replays the page
and fails when an output is stale.

    python scripts/gen_session.py
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "documentation" / "session.md"
ONE_LINE = 88  # a JSON object or list whose compact form fits stays on one line


def _is_row(value: object) -> bool:
    return isinstance(value, dict) and (
        ("scope" in value and "field" in value) or ("op_id" in value and "rows" in value)
    )


def pretty(value: object, indent: int = 0) -> str:
    compact = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value:
        return compact
    if _is_row(value) or (len(compact) <= ONE_LINE and indent > 0):
        return compact
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, indent + 1)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    items = [f"{pad}{pretty(v, indent + 1)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"


def run(args: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", *args], capture_output=True, text=True, env=env
    )
    if "--format" in args:
        return proc.stdout.rstrip("\n")
    return pretty(json.loads(proc.stdout))


_VARYING = [
    (re.compile(r"m-[0-9a-f]{16}"), "m-ID"),
    (re.compile(r"op-[0-9a-f]{8}"), "op-ID"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"), "TIME"),
    (re.compile(r"/\S*memory\.sqlite3"), "PATH"),
    (re.compile(r"--data-dir \S+"), "--data-dir DIR"),  # the run's temporary store
]


def _same(old: str, new: str, old_day: str | None, new_day: str | None) -> bool:
    """Equal but for ids, times, the path and the day each run wrote its rows (a row's
    ``since`` when no date was given), which differ on every run."""
    for pattern, repl in _VARYING:
        old, new = pattern.sub(repl, old), pattern.sub(repl, new)
    if old_day:
        old = re.sub(rf"\b{re.escape(old_day)}\b", "RUN-DAY", old)
    if new_day:
        new = re.sub(rf"\b{re.escape(new_day)}\b", "RUN-DAY", new)
    return old == new


_STAMP_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}Z")


def _run_day(text: str) -> str | None:
    match = _STAMP_DAY.search(text)
    return match.group(1) if match else None


def _steps(body: str) -> list[tuple[str, str]]:
    """(``$`` line, the output under it) for each step of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith(("$ ", "# ")):
            steps.append((line, []))
        elif steps:
            steps[-1][1].append(line)
    return [(line, "\n".join(out)) for line, out in steps]


def render(text: str, env: dict[str, str]) -> str:
    """The page with fresh outputs; if none differs but for ids, times and the path, the
    page as it was (so a re-run changes nothing), else every output of this run (so the
    ids on the page agree with each other)."""
    blocks = re.findall(r"^```console\n(.*?)^```", text, flags=re.M | re.S)
    fresh: list[list[tuple[str, str, str]]] = []  # per block: (line, old output, new output)
    for body in blocks:
        steps = []
        for line, old in _steps(body):
            words = shlex.split(line[2:]) if line.startswith("$ ") else []
            new = run(words[1:], env) if words and words[0] == "memory-store" else old
            steps.append((line, old, new))
        fresh.append(steps)
    old_day = _run_day(text)
    new_day = next((d for steps in fresh for _, _, new in steps if (d := _run_day(new))), None)
    changed = any(not _same(old, new, old_day, new_day) for steps in fresh for _, old, new in steps)
    outputs = iter(fresh)

    def block(match: re.Match[str]) -> str:
        out: list[str] = []
        for line, old, new in next(outputs):
            out.append(line)
            chosen = new if changed else old
            if chosen:
                out.append(chosen)
        return "```console\n" + "\n".join(out) + "\n```"

    return re.sub(r"^```console\n(.*?)^```", block, text, flags=re.M | re.S)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MEMORY_STORE_DIR": os.path.join(tmp, "memory")}
        env.pop("MEMORY_STORE_DEBUG", None)
        # The page shows a shell where memory-store is on PATH: the hints it prints start
        # with the bare name, as they do wherever the shell finds this install (documentation/hosts.md#the-configuration-printed-for-this-install).
        env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
        text = render(PAGE.read_text(encoding="utf-8"), env)
    PAGE.write_text(text.replace(tmp, "/tmp/tmp.Qm3zK81c"), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
