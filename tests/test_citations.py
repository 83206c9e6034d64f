"""Every citation a reader meets can be looked up in the repository itself.

The code, the tests and the documents say why by pointing at the page and
heading that states the promise (``documentation/time.md#writing``,
``[privacy](privacy.md#erasure-is-physical)``), never at a numbered section of
a document outside the repository. This holds it:

- no section-sign citation ("\u00a7" and a number) and no "contract section N"
  in any file a reader of the repository reads;
- every ``documentation/…`` or ``references/…`` page named exists;
- every link or citation to ``page.md#anchor`` names a heading of that page, by
  GitHub's rules for heading anchors (lowercase, punctuation dropped, spaces to
  hyphens, ``-1``, ``-2`` … for repeats);
- ``documentation/guarantees.md`` links every page of ``documentation/``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from support import ROOT

SCANNED_DIRS = ("memory_store", "tests", "documentation", "references", "scripts", ".ci")
SCANNED_FILES = ("README.md", "SKILL.md", "pyproject.toml")
SUFFIXES = {".py", ".md", ".json", ".toml", ".sh", ".txt", ".html", ".css", ".js"}

# "\u00a7 13", "\u00a713", "\u00a7\u00a720-24": a section of a document that is not here.
SECTION_SIGN = re.compile("\u00a7+\\s*\\d")
# "contract section N", "contract sections N, M", "the contract's table (section N)",
# across a line break too.
CONTRACT_SECTION = re.compile(
    r"\bcontract(?:'s)?\s+(?:#\s*)?sections?\s+\d|\bcontract\b[^\n]{0,40}\(sections?\s+\d",
    re.IGNORECASE,
)
# A page of the repository named in prose, a comment or a link, with its anchor if any.
PAGE = re.compile(
    r"(?<![\w/.-])((?:\.\./)?(?:documentation|references)/[\w./-]+?\.md)(?:#([\w\-\u0080-\uffff]+))?"
)
# A relative Markdown link inside documentation/ or references/: ](x.md#a) or ](#a).
LINK = re.compile(r"\]\(((?:\.\./)?[\w./-]*?\.md)?(?:#([^)\s]+))?\)")


def _scanned() -> list[Path]:
    files = [ROOT / name for name in SCANNED_FILES if (ROOT / name).is_file()]
    for folder in SCANNED_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if path.suffix in SUFFIXES or path.parent.name == ".ci":
                files.append(path)
    return files


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every heading anchor of one Markdown page (fenced code skipped)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _check_target(target: Path, anchor: str | None, where: str) -> list[str]:
    if not target.is_file():
        return [
            f"{where}: {_rel(target) if target.is_relative_to(ROOT) else target} does not exist"
        ]
    if anchor and target.suffix == ".md" and anchor not in anchors(target):
        return [f"{where}: {_rel(target)} has no heading #{anchor}"]
    return []


def test_slug_follows_githubs_rules() -> None:
    assert slug("As of a time: anchors and `--as-of`") == "as-of-a-time-anchors-and---as-of"
    assert (
        slug("What `revoke --delete` leaves: a tombstone")
        == "what-revoke---delete-leaves-a-tombstone"
    )
    assert (
        slug("Arguments checked like the command line's")
        == "arguments-checked-like-the-command-lines"
    )
    assert slug("2. The consent question / 征求同意") == "2-the-consent-question--征求同意"


def test_no_citation_of_a_document_outside_the_repository() -> None:
    here = Path(__file__).resolve()
    bad = []
    for path in _scanned():
        if path.resolve() == here:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern in (SECTION_SIGN, CONTRACT_SECTION):
            for match in pattern.finditer(text):
                bad.append(f"{_rel(path)}:{_line(text, match.start())}: {match.group(0)!r}")
    assert not bad, "cite documentation/<page>.md#<heading> instead:\n" + "\n".join(bad)


def test_every_page_and_heading_cited_exists() -> None:
    bad = []
    for path in _scanned():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in PAGE.finditer(text):
            name = match.group(1).removeprefix("../")
            if "<" in name or "*" in name or name.endswith("/x.md"):
                continue
            where = f"{_rel(path)}:{_line(text, match.start())}"
            bad += _check_target(ROOT / name, match.group(2), where)
        if path.suffix != ".md":
            continue
        for match in LINK.finditer(text):
            page, anchor = match.group(1), match.group(2)
            if page is None and anchor is None:
                continue
            target = (path.parent / page).resolve() if page else path
            where = f"{_rel(path)}:{_line(text, match.start())}"
            bad += _check_target(target, anchor, where)
    assert not bad, "\n".join(bad)


def test_the_guarantees_page_indexes_every_documentation_page() -> None:
    text = (ROOT / "documentation" / "guarantees.md").read_text(encoding="utf-8")
    linked = {m.group(1) for m in re.finditer(r"\]\(([\w-]+\.md)(?:#[^)]*)?\)", text)}
    pages = {p.name for p in (ROOT / "documentation").glob("*.md")} - {"guarantees.md"}
    assert pages <= linked, sorted(pages - linked)


@pytest.mark.parametrize("page", ["performance.md", "recall.md", "time.md"])
def test_benchmark_figures_say_where_their_data_come_from(page: str) -> None:
    text = (ROOT / "documentation" / page).read_text(encoding="utf-8")
    assert "(benchmarks.md" in text, page
    sources = (ROOT / "documentation" / "benchmarks.md").read_text(encoding="utf-8")
    for needed in ("LoCoMo", "arXiv:2402.17753", "snap-research/locomo", "licence"):
        assert needed in sources, needed
