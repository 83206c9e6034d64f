"""Benchmark: how often the sensitive-content detectors refuse an ordinary value.

documentation/privacy.md#what-they-look-for makes the detectors closer (health, passwords) and asks that false
alarms stay rare: no value of the benchmarks' data — LoCoMo observations and the
Chinese set (``../shared/recall/``), the time scenarios (``../shared/time/``) —
may be refused. This script reads that data in place (it is never copied),
runs every stored string through the same checks ``apply`` makes (the field
name, then the value and its source reference) and prints the false-alarm rate;
each refusal is listed with its detector. The ordinary sentences kept with the tests
(``tests/writes/ordinary_sentences.txt``) are run the same way, and the slowest check of
a few long adversarial values (repeated secret words, links and digits, the longest a
value may be) is printed, to show the detection stays linear in the text.

    .venv/bin/python tests/benchmarks/bench_sensitive.py [--shared ../shared]

Exit status 1 if anything is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
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


def ordinary_sentences() -> list[str]:
    path = Path(__file__).resolve().parent.parent / "writes" / "ordinary_sentences.txt"
    lines = (line.strip() for line in path.read_text("utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


# Values of the longest length a value may have (200 characters), built to make a
# backtracking pattern work hard: words that announce a secret with no secret after
# them, links with nothing linked, long runs of digits and of symbols.
ADVERSARIAL = [
    ("password " * 25)[:200],
    ("wifi code is " * 16)[:200],
    ("portal: " * 25)[:200],
    ("密码是" * 67)[:200],
    ("pin码 " * 40)[:200],
    ("1 " * 100)[:200],
    ("a" * 199) + "!",
    ("x@" * 100)[:200],
    ("has " * 50)[:200],
    ("correct horse " * 15)[:200],
]


def slowest_check() -> tuple[float, str]:
    """The longest time one check of an adversarial value took, in microseconds."""
    worst = (0.0, "")
    for text in ADVERSARIAL:
        start = time.perf_counter()
        for _ in range(20):
            sensitive_text(text)
        took = (time.perf_counter() - start) / 20 * 1e6
        worst = max(worst, (took, text[:20]))
    return worst


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
    ordinary = ordinary_sentences()
    alarms = [text for text in ordinary if sensitive_text(text)]
    for text in alarms:
        print(f"refused  ordinary_sentences.txt  {sensitive_text(text)}  {text[:80]}")
    print(f"SUMMARY {len(alarms)} of {len(ordinary)} ordinary sentences refused")
    took, which = slowest_check()
    print(f"SUMMARY slowest check of a 200-character adversarial value: {took:.0f} µs ({which!r}…)")
    return 1 if refused or alarms else 0


if __name__ == "__main__":
    sys.exit(main())
