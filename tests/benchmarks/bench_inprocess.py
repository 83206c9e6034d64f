"""Benchmark: in-process calls per second, interleaved with another build's.

The rate of a ~1 ms call moves with the machine's load by a third within a
minute, so an absolute figure from one moment says little. This script runs
short rounds of each measure in turn, in fresh processes, and reports the
median, minimum and maximum of each: measures taken in one run, side by side,
as ratios that hold while the machine is noisy.

    python -m venv /tmp/bench && /tmp/bench/bin/pip install .
    /tmp/bench/bin/python tests/benchmarks/bench_inprocess.py [--rounds 12]
        [--baseline NAME=PYTHON ...]

``--baseline`` names another interpreter with a memory-store installed (release
1, say: ``pip install git+…@<commit>`` into a second venv); its ``context`` (no
``--query``: release 1 has none) is measured in the same rounds. Each process
copies one full 200-row store built by ``bench_cli.fill_store`` and asks about one
subject with a 4,000-character budget: one session per call (``MemoryStore``),
and held (``MemoryStore.hold()``). Nothing is written outside a temporary
directory. Exit status 1 if the median of a per-call measure of this build is
under 1,000 calls/s (documentation/performance.md#targets).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli import CONTEXT_PER_SECOND, QUERIES, fill_store  # noqa: E402

CHILD = r"""
import os, shutil, sys, tempfile, time
from memory_store import MemoryStore
source, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
queries = sys.argv[4:]
root = tempfile.mkdtemp()
try:
    shutil.copytree(source, os.path.join(root, "s"))
    store = MemoryStore(os.path.join(root, "s"))
    if mode.startswith("held"):
        store.hold()
    def call(i):
        if mode.endswith("query"):
            store.context(subject_id="obj-c", max_chars=4000, query=queries[i % len(queries)])
        else:
            store.context(subject_id="obj-c", max_chars=4000)
    for i in range(30):
        call(i)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        call(n)
        n += 1
    print(n / (time.perf_counter() - start))
finally:
    shutil.rmtree(root)
"""

MODES = {
    "context": "context, one session per call",
    "query": "context --query, one session per call",
    "held": "context, held",
    "held-query": "context --query, held",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="rounds of every measure (12)")
    parser.add_argument("--seconds", type=float, default=0.6, help="length of one measure (0.6)")
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="NAME=PYTHON",
        help="another build's interpreter; its per-call context is measured alongside",
    )
    args = parser.parse_args(argv)
    from tabulate import tabulate

    measures = [("this build", sys.executable, mode) for mode in MODES]
    for spec in args.baseline:
        name, _, python = spec.partition("=")
        measures.append((name, python, "context"))
    root = tempfile.mkdtemp(prefix="memory-store-bench-")
    try:
        store = os.path.join(root, "store")
        fill_store(store)
        rates: dict[tuple[str, str], list[float]] = {(n, m): [] for n, _, m in measures}
        for _ in range(args.rounds):
            for name, python, mode in measures:
                out = subprocess.run(
                    [python, "-c", CHILD, store, mode, str(args.seconds), *QUERIES],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                rates[(name, mode)].append(float(out))
    finally:
        shutil.rmtree(root)
    # The ratios are to the first baseline's context, else to this build's.
    reference_name = measures[len(MODES)][0] if args.baseline else "this build"
    reference = statistics.median(rates[(reference_name, "context")])
    rows = []
    for (name, mode), values in rates.items():
        median = statistics.median(values)
        rows.append(
            {
                "build": name,
                "measure": MODES[mode],
                "median calls/s": round(median),
                "min": round(min(values)),
                "max": round(max(values)),
                f"÷ {reference_name} context": round(median / reference, 2),
            }
        )
    print(tabulate(rows, headers="keys", tablefmt="github"))
    low = [
        r
        for r in rows
        if r["build"] == "this build"
        and "per call" in str(r["measure"])
        and int(r["median calls/s"]) < CONTEXT_PER_SECOND  # type: ignore[call-overload]
    ]
    for r in low:
        print(f"below {CONTEXT_PER_SECOND}/s: {r['measure']} ({r['median calls/s']})")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
