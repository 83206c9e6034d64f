"""Benchmark: how often the sensitive-content detectors refuse an ordinary value.

Contract §23 makes the detectors closer (health, passwords) and asks that false
alarms stay rare: no value of the benchmarks' data — LoCoMo observations and the
Chinese set (``../shared/recall/``), the time scenarios (``../shared/time/``) —
may be refused. This script reads that data in place (it is never copied),
runs every stored string through the same checks ``apply`` makes (the field
name, then the value and its source reference) and prints the false-alarm rate;
each refusal is listed with its detector.

    .venv/bin/python tests/benchmarks/bench_sensitive.py [--shared ../shared]

Exit status 1 if anything is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from memory_store.writes.sensitive import sensitive_field, sensitive_text

# The keys under which the data holds what the benchmarks store: a delta's value and
# source reference, a LoCoMo observation's text (stored as a value by bench_recall).
TEXT_KEYS = ("value", "text", "source_ref")


def strings(node: object) -> Iterator[tuple[str, str]]:
    """(key, string) for every stored text and every field name in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str) and (key in TEXT_KEYS or key == "field"):
                yield key, value
            else:
                yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


def measure(roots: list[Path]) -> tuple[int, int, list[tuple[str, str, str]]]:
    """(values checked, field names checked, refusals as (file, detector, text))."""
    values = fields = 0
    refused: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for root in roots:
        for path in sorted(root.rglob("*.json")):
            for key, text in strings(json.loads(path.read_text("utf-8"))):
                if (key, text) in seen:
                    continue
                seen.add((key, text))
                if key == "field":
                    fields += 1
                    found = sensitive_field(text)
                    found = f"field:{found}" if found else None
                else:
                    values += 1
                    found = sensitive_text(text)
                if found:
                    refused.append((path.name, found, text))
    return values, fields, refused


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default="../shared", help="the benchmarks' folder")
    args = parser.parse_args()
    shared = Path(args.shared)
    roots = [shared / "recall" / "data", shared / "time" / "data"]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        print(f"no benchmark data at {', '.join(missing)}", file=sys.stderr)
        return 2
    values, fields, refused = measure(roots)
    for name, detector, text in refused:
        print(f"refused  {name}  {detector}  {text[:80]}")
    total = values + fields
    print(
        f"SUMMARY {len(refused)} of {total} refused ({100 * len(refused) / max(total, 1):.2f} %): "
        f"{values} distinct values and source references, {fields} distinct field names"
    )
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
