"""Drive a real headless Chromium, and build review pages from a real store.

Used by the review page's tests (tests/review/) and scripts/review_screenshot.py. The page is
written by the real ``review`` command (``write_review``), so the browser checks
what a person would see of a store the CLI wrote.
"""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import tempfile
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from . import apply, delta, ok

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# Headless, no GPU, and nothing that reaches the network on its own: the page
# must render from the file alone. --no-sandbox because tests run as root.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
TIMEOUT = 90.0


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def run_browser(*args: str, timeout: float = TIMEOUT) -> str:
    """Run the browser with FLAGS, a fresh profile and ARGS; return its stdout."""
    browser = find_browser()
    if browser is None:
        raise RuntimeError(f"no browser on PATH (looked for {', '.join(BROWSERS)})")
    with tempfile.TemporaryDirectory(prefix="review-profile-") as profile:
        # A session of its own, so that a hung browser is ended with all its helpers.
        proc = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    if proc.returncode != 0:
        raise RuntimeError(
            f"{browser} exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}"
        )
    return out.decode("utf-8")


def dump_dom(page: Path) -> str:
    return run_browser("--dump-dom", page.resolve().as_uri())


def screenshot(page: Path, out: Path, width: int = 1280, height: int = 2000) -> Path:
    out.unlink(missing_ok=True)
    run_browser(f"--screenshot={out}", f"--window-size={width},{height}", page.resolve().as_uri())
    if not out.exists():
        raise RuntimeError(f"the browser wrote no screenshot to {out}")
    return out


def browser_version() -> str:
    return run_browser("--version").strip()


# ---------------------------------------------------------------- the page


def write_review(path: Path) -> Path:
    """The page of the private store, written by the real ``review`` command."""
    data = ok("review", "--output", str(path))
    assert data["path"] == str(path.resolve())
    return path


def _ev(subject: str, field: str, when: str, value: str, **kw: Any) -> dict[str, Any]:
    return delta("event", subject, field, value, occurred_at=when, **kw)


def _guess(
    subject: str, field: str, value: str, confidence: str, evidence: str, **kw: Any
) -> dict[str, Any]:
    return delta(
        "hypothesis", subject, field, value, confidence=confidence, source_ref=evidence, **kw
    )


# One batch per apply, so the log holds several operations to undo.
REALISTIC: tuple[tuple[dict[str, Any], ...], ...] = (
    (
        delta("user", field="goal", value="想在三个月内和小林把关系稳定下来"),
        delta(
            "user", field="communication_style", value="Prefers direct feedback, no sugar-coating"
        ),
        delta("user", field="boundary", value="不聊前任"),
        delta("user", field="mbti", value="INFJ"),
    ),
    (
        delta("object", "obj-a", "display_label", "小林"),
        delta("object", "obj-a", "mbti", "ENFP"),
        delta("object", "obj-a", "job", "在杭州做平面设计"),
        delta("object", "obj-a", "likes", "喜欢猫和手冲咖啡\n讨厌早起"),
        delta("relationship", "obj-a", "stage", "暧昧期，每周见一次"),
        delta("relationship", "obj-a", "agreement", "周末不谈工作"),
        delta("relationship", "obj-a", "next_goal", "Plan a weekend trip to Qiandao Lake together"),
    ),
    (
        _ev("obj-a", "conflict", "2026-07-20T19:30:00+08:00", "因为回消息慢吵了一架"),
        _ev("obj-a", "first_date", "2026-05-03", "第一次约会：西湖边散步到很晚"),
        _ev("obj-a", "repair", "2026-07-22", "Talked it through; agreed to say so when busy"),
        _ev("obj-a", "promise_kept", "2026-06-14", "她答应来我的生日会，真的来了"),
    ),
    (
        _guess(
            "obj-a",
            "attachment_style",
            "可能偏焦虑型依恋",
            "low",
            "她说「你不回我我会一直想」(turn:12)",
        ),
        _guess(
            "obj-a",
            "intent",
            "Seems to want something serious",
            "medium",
            "chat 2026-07-22: 'I want this to last'",
            source="chatlab",
        ),
    ),
    (
        delta("object", "obj-b", "display_label", "Alex"),
        delta("object", "obj-b", "role", "Colleague on the data team"),
        delta("object", "obj-b", "mbti", "ISTJ"),
        delta("relationship", "obj-b", "stage", "Friendly colleagues"),
        delta("relationship", "obj-b", "constraint", "同组，不想影响工作"),
        _ev("obj-b", "invitation", "2026-04-10", "Invited me to the climbing gym"),
        _ev("obj-b", "conflict", "2026-09-01", "Disagreed about credit for the Q3 report"),
        _guess(
            "obj-b",
            "intent",
            "May want a closer friendship",
            "low",
            "turn:40, asked me to climb twice",
        ),
    ),
)


def build_realistic_store() -> None:
    """Fill the current, enabled store through the real CLI: you, 小林 and Alex."""
    for batch in REALISTIC:
        result = apply(*batch)
        assert result.code == 0, result.stdout


# ---------------------------------------------------------------- reading a DOM

# Elements that start a new line when read, so their texts are not run together.
BLOCKS = {
    "p",
    "div",
    "li",
    "tr",
    "td",
    "th",
    "dt",
    "dd",
    "br",
    "h1",
    "h2",
    "h3",
    "section",
    "article",
    "header",
    "footer",
    "table",
    "ol",
    "ul",
    "dl",
}
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class Dom(HTMLParser):
    """Elements (tag, attrs) and text chunks with the indices of their ancestors."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[tuple[str, tuple[int, ...]]] = []
        self._open: list[int] = []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self._open.append(len(self.elements) - 1)
        if tag in BLOCKS:
            self.texts.append((" ", tuple(self._open)))

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCKS:
            self.texts.append((" ", tuple(self._open)))
        for depth in range(len(self._open) - 1, -1, -1):
            if self.elements[self._open[depth]][0] == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.texts.append((data, tuple(self._open)))

    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    def find(self, tag: str | None = None, cls: str | None = None) -> list[int]:
        return [
            i
            for i, (t, attrs) in enumerate(self.elements)
            if (tag is None or t == tag)
            and (cls is None or cls in (attrs.get("class") or "").split())
        ]

    def text(self, within: int | None = None) -> str:
        """The visible text (inside body), or only that inside element ``within``."""
        body = self.find("body")[0]
        anchor = body if within is None else within
        return "".join(data for data, path in self.texts if anchor in path)


def norm(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- reading a PNG


def read_png(path: Path, limit: int | None = None) -> tuple[int, int, int, list[bytes]]:
    """(width, height, bytes per pixel, rows) of an 8-bit RGB or RGBA PNG: the first
    ``limit`` rows unfiltered (all by default; pure Python takes a second per 1000 rows)."""
    blob = path.read_bytes()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = 8, [], b""
    while pos < len(blob):
        (length,) = struct.unpack(">I", blob[pos : pos + 4])
        kind, data = blob[pos + 4 : pos + 8], blob[pos + 8 : pos + 8 + length]
        header = data if kind == b"IHDR" else header
        idat += [data] if kind == b"IDAT" else []
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    if depth != 8 or colour not in (2, 6):
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height if limit is None else min(limit, height)):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


# ---------------------------------------------------------------- a fuller store: 32 memories

# You (4) and four people (7 each): a name, facts, where you stand, two events, a guess.
# What documentation/page.md measures the served page's height against.
_PEOPLE = (
    ("obj-lin", "小林", "在杭州做平面设计", "杭州", "暧昧期，每周见一次", "2026-05-03", "第一次约会：西湖边散步到很晚"),
    ("obj-alex", "Alex", "Colleague on the data team", "Shanghai", "Friendly colleagues", "2026-04-10", "Invited me to the climbing gym"),
    ("obj-wang", "老王", "大学室友，现在在深圳做硬件", "深圳", "多年的朋友，一个月聊一次", "2025-12-24", "平安夜一起吃了火锅"),
    ("obj-mia", "Mia", "Runs a small bakery near the office", "Suzhou", "Getting to know each other", "2026-06-14", "Came to my birthday party, brought a cake"),
)  # fmt: skip


def dense_batches() -> list[tuple[dict[str, Any], ...]]:
    """32 memories about you and four people, one apply per person."""
    batches: list[tuple[dict[str, Any], ...]] = [
        (
            delta("user", field="goal", value="想在三个月内和小林把关系稳定下来"),
            delta("user", field="communication_style", value="Prefers direct feedback"),
            delta("user", field="boundary", value="不聊前任"),
            delta("user", field="fact_job", value="产品经理，常加班"),
        )
    ]
    for subject, name, job, city, stage, day, event in _PEOPLE:
        batches.append(
            (
                delta("object", subject, "display_label", name),
                delta("object", subject, "job", job),
                delta("object", subject, "city", city, occurred_at="2025-03-01"),
                delta("relationship", subject, "stage", stage),
                _ev(subject, "first_meeting", "2025-03-02", f"{name}: 在朋友聚会上认识"),
                _ev(subject, "milestone_day", day, event),
                _guess(subject, "intent", f"{name} may want to be closer", "low", "turn:12"),
            )
        )
    return batches


def build_dense_store() -> int:
    """Fill the current, enabled store through the real CLI; the number of memories."""
    for batch in dense_batches():
        result = apply(*batch)
        assert result.code == 0, result.stdout
    return int(ok("status")["counts"]["total"])


def measure(tab: Any) -> dict[str, float]:
    """The page's height in screens of its viewport, and how far anything reaches right."""
    size = tab.viewport_size
    height = tab.evaluate("document.documentElement.scrollHeight")
    return {
        "screens": height / size["height"],
        "height": height,
        "scroll_width": tab.evaluate("document.documentElement.scrollWidth"),
        "width": size["width"],
    }
