"""Benchmark: what a call to `memory-store mcp` costs, against a bare MCP server, in one run.

Run from a virtual environment with the package and its MCP extra installed:

    python -m venv /tmp/bench && /tmp/bench/bin/pip install ".[mcp]"
    /tmp/bench/bin/python tests/benchmarks/bench_mcp.py

With the MCP SDK's own client over stdio (protocol auto-negotiated), it measures:

- the round trip of `memory_context` (with a query) and `memory_apply` (a real
  write into a full store whose undo window is full, so every call also erases:
  documentation/privacy.md#retention-the-undo-window) against the round trip of a trivial tool on a bare `MCPServer`
  started the same way; median and p95, the calls interleaved so that machine
  noise hits all alike;
- `memory_apply` against `memory_status`, a trivial tool of the same server,
  interleaved in the same phase (documentation/performance.md#targets);
- start-up: spawn + initialize + list tools, `memory-store mcp` against the
  bare server, alternately;
- where `npx` exists, the reference `@modelcontextprotocol/server-memory`
  doing comparable calls (create an entity; search), for orientation.

The targets (documentation/performance.md#targets) are printed beside the ratios; the exit status is 1 if
one is missed. Figures: documentation/performance.md.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli import fill_store  # noqa: E402

CONTEXT_TARGET, APPLY_TARGET, STARTUP_TARGET = 1.5, 4.0, 1.25
# documentation/performance.md#targets: memory_apply against a trivial tool of the same server (memory_status),
# interleaved, so that the server's own share (the SDK, the wire checks) is the base.
APPLY_SAME_SERVER_TARGET = 2.5
BARE = """
from mcp.server import MCPServer

server = MCPServer("bare")


@server.tool()
def ping() -> str:
    return "pong"


server.run("stdio")
"""


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


class Servers:
    def __init__(self, root: str):
        self.bare = os.path.join(root, "bare_server.py")
        Path(self.bare).write_text(BARE)
        self.store = os.path.join(root, "store")
        fill_store(self.store)
        self.memory_file = os.path.join(root, "server-memory.jsonl")

    def params(self, which: str) -> StdioServerParameters:
        if which == "bare":
            return StdioServerParameters(command=sys.executable, args=[self.bare])
        if which == "reference":
            return StdioServerParameters(
                command="npx",
                args=["-y", "@modelcontextprotocol/server-memory"],
                env={"MEMORY_FILE_PATH": self.memory_file, "PATH": os.environ["PATH"]},
            )
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "memory_store", "mcp"],
            env={"MEMORY_STORE_DIR": self.store},
        )


async def timed(client: Client, tool: str, args: dict[str, Any]) -> float:
    start = time.perf_counter()
    result = await client.call_tool(tool, args)
    seconds = time.perf_counter() - start
    if result.is_error:
        raise RuntimeError(f"{tool}: {result.content[0].text}")
    return seconds


async def round_trips(s: Servers, n: int) -> dict[str, list[float]]:
    """Two interleaved phases against the same bare server: ping/context, then ping/apply.

    Apart, so that an apply's erasure (a VACUUM and a synced checkpoint) is not
    charged to the context call after it; each ratio uses its own phase's pings.
    """
    times: dict[str, list[float]] = {
        "ping": [],
        "context": [],
        "ping2": [],
        "status": [],
        "apply": [],
    }
    question = "他们最近一次吵架是因为什么？ what was the last conflict about?"
    context = {"subject_id": "obj-c", "query": question}
    async with Client(s.params("bare")) as bare, Client(s.params("store")) as store:
        for _ in range(20):  # warm-up: imports, caches, the first round of each tool
            await timed(bare, "ping", {})
            await timed(store, "memory_context", context)
        for _ in range(n):
            times["ping"].append(await timed(bare, "ping", {}))
            times["context"].append(await timed(store, "memory_context", context))
        for i in range(n):
            delta = {
                "scope": "user",
                "field": "goal",
                "value": f"目标 {i}",
                "source_type": "user_explicit",
            }
            times["ping2"].append(await timed(bare, "ping", {}))
            times["status"].append(await timed(store, "memory_status", {}))
            times["apply"].append(await timed(store, "memory_apply", {"delta": delta}))
    return times


async def startup(s: Servers, which: str) -> float:
    start = time.perf_counter()
    async with Client(s.params(which)) as client:
        await client.list_tools()
        seconds = time.perf_counter() - start
    return seconds


async def reference(s: Servers, n: int) -> dict[str, list[float]] | None:
    if shutil.which("npx") is None:
        return None
    times: dict[str, list[float]] = {"create": [], "search": []}
    async with Client(s.params("reference")) as ref:
        for i in range(n):
            entity = {
                "name": f"person{i}",
                "entityType": "person",
                "observations": [f"likes hiking {i}"],
            }
            times["create"].append(await timed(ref, "create_entities", {"entities": [entity]}))
            times["search"].append(await timed(ref, "search_nodes", {"query": "hiking"}))
    return times


def row(name: str, xs: list[float], base: list[float] | None, target: float | None) -> str:
    med, p95 = statistics.median(xs) * 1000, percentile(xs, 0.95) * 1000
    ratio = statistics.median(xs) / statistics.median(base) if base else None
    text = f"{name:<46} {med:8.2f} {p95:8.2f}"
    text += f" {ratio:8.2f}" if ratio is not None else " " * 9
    text += f"   <= {target}" if target else ""
    return text


async def main() -> int:
    n = int(os.environ.get("BENCH_CALLS", "200"))
    k = int(os.environ.get("BENCH_STARTS", "10"))
    missed = []
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as root:
        s = Servers(root)
        times = await round_trips(s, n)
        starts: dict[str, list[float]] = {"bare": [], "store": []}
        for _ in range(k):
            for which in starts:
                starts[which].append(await startup(s, which))
        ref = await reference(s, min(n, 100))
    print(f"Round trips over stdio, n={n} each, interleaved; start-up k={k}, alternating")
    print(f"{'measure':<46} {'median':>8} {'p95':>8} {'ratio':>8}   target")
    print(f"{'':<46} {'ms':>8} {'ms':>8}")
    print(row("trivial tool, bare MCPServer (the base)", times["ping"], None, None))
    print(
        row("memory_context (query, full store)", times["context"], times["ping"], CONTEXT_TARGET)
    )
    print(row("trivial tool, bare MCPServer (apply phase)", times["ping2"], None, None))
    print(row("memory_apply (erasure on every call)", times["apply"], times["ping2"], APPLY_TARGET))
    print(row("memory_status, same server (apply phase)", times["status"], None, None))
    print(
        row(
            "memory_apply / memory_status, same server",
            times["apply"],
            times["status"],
            APPLY_SAME_SERVER_TARGET,
        )
    )
    print(row("start-up, bare MCPServer (the base)", starts["bare"], None, None))
    print(row("start-up, memory-store mcp", starts["store"], starts["bare"], STARTUP_TARGET))
    if ref is None:
        print("reference @modelcontextprotocol/server-memory: npx not found, not measured")
    else:
        print(row("server-memory create_entities (reference)", ref["create"], times["ping"], None))
        print(row("server-memory search_nodes (reference)", ref["search"], times["ping"], None))
    for name, target, xs, base in (
        ("memory_context", CONTEXT_TARGET, times["context"], times["ping"]),
        ("memory_apply", APPLY_TARGET, times["apply"], times["ping2"]),
        ("memory_apply / memory_status", APPLY_SAME_SERVER_TARGET, times["apply"], times["status"]),
        ("start-up", STARTUP_TARGET, starts["store"], starts["bare"]),
    ):
        ratio = statistics.median(xs) / statistics.median(base)
        if ratio > target:
            missed.append(f"{name} {ratio:.2f} > {target}")
    print(json.dumps({"missed": missed}))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
