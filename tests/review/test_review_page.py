"""The review page (documentation/review.md#what-the-review-page-shows): built from a real store, read by a real headless browser.

The browser tests render what the CLI stored (``browser.write_review``) and
check the DOM Chromium builds from it, so escaping and grouping are judged by
a real HTML parser; they skip, with the reason, only where no browser exists.
The unit tests at the end need no browser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support import apply, delta, fails, ok
from support.browser import (
    BROWSERS,
    Dom,
    build_realistic_store,
    dump_dom,
    find_browser,
    norm,
    read_png,
    screenshot,
    write_review,
)

from memory_store.review import CONFIDENCE, CSP, KIND_TITLES, command_text, render_review
from memory_store.store import limits

needs_browser = pytest.mark.skipif(
    find_browser() is None,
    reason=f"no chromium: none of {', '.join(BROWSERS)} on PATH (apt-get install -y chromium)",
)

# Every element the page itself uses: anything else in the DOM was injected.
PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "footer", "section",
    "article", "div", "p", "span", "code", "time", "br", "h1", "h2", "h3", "a",
    "table", "thead", "tbody", "tr", "th", "td", "ol", "ul", "li", "dl", "dt", "dd",
    "details", "summary", "nav",
}  # fmt: skip

HOSTILE = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "</td></tr></table><h1>pwned</h1>",
    "\"'><b>x</b>",
    "&amp;",
    "<style>body{display:none}</style>",
)


@pytest.fixture
def realistic(enabled: Path, tmp_path: Path) -> dict[str, Any]:
    """You, 小林 and Alex with every kind, written by the CLI, and the page made from them."""
    build_realistic_store()
    return {
        "store": enabled,  # named by MEMORY_STORE_DIR, so the page's commands name it
        "page": write_review(tmp_path / "review.html"),
        "memories": ok("show")["memories"],
        "operations": ok("log")["operations"],
        "limits": ok("status", "--verbose")["limits"],
    }


def _sections(dom: Dom) -> dict[str, int]:
    """Each person's card by its heading (the display label, or "You")."""
    cards = {}
    for card in dom.find("section", "person"):
        heading = next(i for i in dom.find("h2") if i > card)
        cards[norm(dom.text(heading))] = card
    return cards


@needs_browser
def test_page_text_matches_the_store(realistic: dict[str, Any]) -> None:
    dom = Dom(dump_dom(realistic["page"]))
    text = norm(dom.text())
    for row in realistic["memories"]:
        assert norm(row["value"]) in text, row
        assert row["id"] in text, row
        if row["source_ref"]:
            assert norm(row["source_ref"]) in text, row
    store = realistic["store"]
    for op in realistic["operations"]:
        assert command_text(f"undo --op-id {op['op_id']}", store) in text
    assert len(realistic["operations"]) == 5
    assert command_text("forget MEMORY_ID --confirm", store) in text
    for subject in ("user", "obj-a", "obj-b"):
        assert command_text(f"forget-object {subject} --confirm", store) in text
    # A newline in a value stays one (the page shows it with white-space: pre-wrap).
    assert any(data == "喜欢猫和手冲咖啡\n讨厌早起" for data, _ in dom.texts)
    assert "white-space: pre-wrap" in realistic["page"].read_text(encoding="utf-8")


@needs_browser
def test_page_groups_by_person_with_caps(realistic: dict[str, Any]) -> None:
    dom = Dom(dump_dom(realistic["page"]))
    cards = _sections(dom)
    assert list(cards)[0] == "You"
    assert set(cards) == {"You", "小林", "Alex"}
    caps = realistic["limits"]["by_scope"]
    rows = realistic["memories"]
    for heading, subject, other in (("小林", "obj-a", "obj-b"), ("Alex", "obj-b", "obj-a")):
        card = norm(dom.text(cards[heading]))
        assert f"<code>{subject}</code>" not in card  # text, not markup
        for row in rows:
            if row["subject_id"] == subject:
                assert norm(row["value"]) in card, row
            if row["subject_id"] == other:
                assert norm(row["value"]) not in card, row
        for kind in ("object", "relationship", "event", "hypothesis"):
            n = sum(1 for r in rows if r["subject_id"] == subject and r["scope"] == kind)
            assert f"{KIND_TITLES[kind][1]} {n} / {caps[kind]['max']}" in card
    assert "Facts 3 / 15" in norm(dom.text(cards["Alex"]))
    you = norm(dom.text(cards["You"]))
    assert f"Your profile 4 / {caps['user']['max']}" in you
    overview = norm(dom.text(dom.find("section", "overview")[0]))
    assert f"All memories {len(rows)} / 200" in overview
    assert "Enabled" in overview


@needs_browser
def test_hypotheses_are_marked_as_guesses_and_events_are_dated(realistic: dict[str, Any]) -> None:
    dom = Dom(dump_dom(realistic["page"]))
    guesses = [norm(dom.text(i)) for i in dom.find("li", "hypothesis")]
    hypotheses = [r for r in realistic["memories"] if r["scope"] == "hypothesis"]
    assert len(guesses) == len(hypotheses) == 3
    for row in hypotheses:
        card = next(g for g in guesses if norm(row["value"]) in g)
        en = CONFIDENCE[row["confidence"]][1]
        assert f"a guess · {en} confidence" in card  # on its line
        assert f"evidence: {norm(row['source_ref'])}" in card  # in its details
        assert f"confidence: {en}" in card
    facts = [r for r in realistic["memories"] if r["scope"] != "hypothesis"]
    for row in facts:
        assert not any(norm(row["value"]) in g for g in guesses), row
    cards = _sections(dom)
    for heading, subject in (("小林", "obj-a"), ("Alex", "obj-b")):
        timeline = next(i for i in dom.find("section", "kind-event") if i > cards[heading])
        shown = norm(dom.text(timeline))
        events = sorted(
            (
                r
                for r in realistic["memories"]
                if r["scope"] == "event" and r["subject_id"] == subject
            ),
            key=lambda r: r["occurred_at"],
        )
        positions = [shown.index(norm(r["value"])) for r in events]
        assert positions == sorted(positions), "events are not in date order"
        for r in events:
            assert r["occurred_at"][:10] in shown


@needs_browser
def test_hostile_values_stay_text(enabled: Path, tmp_path: Path) -> None:
    # Values and evidence accept almost anything; a subject id only [A-Za-z0-9_.:-], so
    # the worst it can be is a "javascript:" look-alike (markup in ids: the last test).
    users = [delta("user", field=f"note_{i}", value=v) for i, v in enumerate(HOSTILE)]
    people = [
        delta("object", "javascript:alert.1", "display_label", "<script>alert('label')</script>"),
        delta("relationship", "javascript:alert.1", "stage", "</td><td onclick=alert(1)>"),
        delta(
            "event", "javascript:alert.1", "conflict", "<h1>event</h1>", occurred_at="2026-10-01"
        ),
        delta(
            "hypothesis",
            "javascript:alert.1",
            "intent",
            "</article><script>alert(3)</script>",
            source_ref='<img src=x onerror=alert(2)> & "quoted"',
        ),
    ]
    assert apply(*users, *people).code == 0
    page = write_review(tmp_path / "hostile.html")
    markup = page.read_text(encoding="utf-8")
    assert "<script" not in markup and "<img" not in markup and "<b>" not in markup
    dom = Dom(dump_dom(page))
    assert dom.tags() <= PAGE_TAGS, dom.tags() - PAGE_TAGS
    assert "script" not in dom.tags() and "img" not in dom.tags() and "b" not in dom.tags()
    assert len(dom.find("h1")) == 1 and len(dom.find("style")) == 1
    for tag, attrs in dom.elements:
        assert not [a for a in attrs if a.lower().startswith("on")], (tag, attrs)
        assert not str(attrs.get("href", "#")).lower().startswith("javascript"), (tag, attrs)
    text = dom.text()
    for row in ok("show")["memories"]:
        assert row["value"] in text, row
    for value in HOSTILE:
        assert value in text
    assert '<img src=x onerror=alert(2)> & "quoted"' in text
    assert "<script>alert('label')</script>" in [norm(dom.text(i)) for i in dom.find("h2")]
    assert command_text("forget-object javascript:alert.1 --confirm", enabled) in text


@needs_browser
def test_page_is_self_contained(realistic: dict[str, Any]) -> None:
    raw = realistic["page"].read_bytes()
    markup = raw.decode("utf-8")  # valid UTF-8, or this raises
    dom = Dom(dump_dom(realistic["page"]))
    csp = [
        a
        for t, a in dom.elements
        if t == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy"
    ]
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'"
    assert [a.get("content") for a in csp] == [CSP]
    assert any(t == "meta" and (a.get("charset") or "").lower() == "utf-8" for t, a in dom.elements)
    # One language, the locale's (documentation/review.md): English here.
    assert dom.elements[dom.find("html")[0]][1].get("lang") == "en"
    assert not any(a.get("lang") for _, a in dom.elements[1:])
    for tag, attrs in dom.elements:
        for name in ("src", "href", "srcset", "action", "data", "poster"):
            value = (attrs.get(name) or "").strip().lower()
            assert not re.match(r"(https?:|//|file:)", value), (tag, attrs)
        if "href" in attrs:
            assert (attrs["href"] or "").startswith("#"), (tag, attrs)
    assert not dom.tags() & {"script", "link", "img", "iframe", "object", "embed", "base", "form"}
    for needle in ("url(", "@import", "http:", "https:"):
        assert needle not in markup.lower()
    assert "@media print" in markup


@needs_browser
def test_screenshot_at_1280_is_a_real_page(realistic: dict[str, Any], tmp_path: Path) -> None:
    png = screenshot(realistic["page"], tmp_path / "review.png", width=1280, height=2000)
    blob = png.read_bytes()
    assert blob[:8] == b"\x89PNG\r\n\x1a\n"
    assert blob[12:16] == b"IHDR" and int.from_bytes(blob[16:20], "big") == 1280
    assert int.from_bytes(blob[20:24], "big") == 2000
    assert len(blob) > 20_000
    width, _, bpp, rows = read_png(png, limit=700)  # header, overview and the first card
    colours = {row[i : i + 3] for row in rows[::4] for i in range(0, width * bpp, bpp * 2)}
    assert len(colours) > 50, len(colours)
    assert len(set(rows)) > 100  # many different lines, not a blank or striped canvas


# ---------------------------------------------------------------- without a browser


def _snapshot(**changes: Any) -> dict[str, Any]:
    snapshot = {
        "generated_at": "2026-11-30T12:00:00Z",
        "version": "0.2.0",
        "consent": {
            "enabled": True,
            "paused": False,
            "consent_at": "2026-11-01T09:00:00Z",
            "revoked_at": None,
        },
        "limits": limits(),
        "counts": {"total": 0, "by_scope": {s: 0 for s in limits()["by_scope"]}},
        "memories": [],
        "operations": [],
    }
    snapshot.update(changes)
    return snapshot


def test_empty_store_says_nothing_is_remembered() -> None:
    dom = Dom(render_review(_snapshot()))
    text = norm(dom.text())
    assert "Nothing remembered yet." in text and "还没有" not in text
    assert "All memories 0 / 200" in text
    assert "No operations to undo." in text
    assert "memory-store forget MEMORY_ID --confirm" in text
    assert not dom.find("section", "person")


@pytest.mark.parametrize(
    ("consent", "shown"),
    [
        (
            {"enabled": True, "paused": True, "consent_at": "2026-11-01T09:00:00Z"},
            "Paused",
        ),
        (
            {
                "enabled": False,
                "paused": True,
                "consent_at": "2026-11-01T09:00:00Z",
                "revoked_at": "2026-11-20T08:30:00Z",
            },
            "Revoked · since 2026-11-20 08:30 UTC",
        ),
        (
            {"enabled": False, "paused": False, "consent_at": None, "revoked_at": None},
            "Not given",
        ),
    ],
)
def test_consent_state_is_shown(consent: dict[str, Any], shown: str) -> None:
    text = norm(Dom(render_review(_snapshot(consent=consent))).text())
    assert shown in text


def test_revocation_from_the_cli_reaches_the_page(enabled: Path, tmp_path: Path) -> None:
    assert apply(delta("object", "obj-a", "display_label", "小林")).code == 0
    ok("revoke", "--confirm")
    page = write_review(tmp_path / "revoked.html")
    text = norm(Dom(page.read_text(encoding="utf-8")).text())
    assert "Revoked" in text and "小林" in text


def test_every_string_is_escaped_even_those_the_validators_refuse() -> None:
    evil = "\"'><b onmouseover=x>&lt;"
    row = {
        "id": evil, "scope": "hypothesis", "subject_id": evil, "field": evil, "value": evil,
        "source_type": evil, "source_ref": evil, "occurred_at": evil, "confidence": evil,
        "created_at": evil, "updated_at": evil,
    }  # fmt: skip
    rows = [row, {**row, "scope": "object", "field": "display_label"}, {**row, "scope": "event"}]
    rows.append({**row, "scope": "user", "subject_id": "user"})
    ops = [{"op_id": evil, "created_at": evil, "action": evil, "summary": evil, "rows": evil}]
    markup = render_review(
        _snapshot(memories=rows, operations=ops, version=evil, generated_at=evil)
    )
    dom = Dom(markup)
    assert "b" not in dom.tags()
    assert not [a for _, attrs in dom.elements for a in attrs if a.startswith("on")]
    assert norm(dom.text()).count(norm(evil)) >= 4 * 5


# ---------------------------------------------------------------- the command


def test_review_writes_a_private_new_file_outside_the_store(enabled: Path, tmp_path: Path) -> None:
    assert apply(delta("object", "obj-a", "display_label", "小林")).code == 0
    page = tmp_path / "mine.html"
    data = ok("review", "--output", str(page))
    assert data == {"path": str(page), "count": 1, "people": 1}
    assert (page.stat().st_mode & 0o777) == 0o600
    text = page.read_text(encoding="utf-8")
    assert f'content="{CSP}"' in text and "小林" in text
    before = page.read_bytes()
    r = fails("INVALID_ARGUMENTS", "review", "--output", str(page))
    assert "already exists" in r.error["message"] and page.read_bytes() == before
    inside = fails("INVALID_ARGUMENTS", "review", "--output", str(enabled / "review.html"))
    assert "store's directory" in inside.error["message"]
    assert not (enabled / "review.html").exists()
    fails("INVALID_ARGUMENTS", "review")  # --output is required


@pytest.mark.parametrize("state", ["paused", "revoked"])
def test_review_works_in_every_consent_state(enabled: Path, tmp_path: Path, state: str) -> None:
    assert apply(delta("object", "obj-a", "display_label", "小林")).code == 0
    ok("pause") if state == "paused" else ok("revoke", "--confirm")
    assert ok("review", "--output", str(tmp_path / "p.html"))["count"] == 1


def test_review_of_no_store_creates_nothing(private_store: Path, tmp_path: Path) -> None:
    fails("NOT_INITIALIZED", "review", "--output", str(tmp_path / "p.html"))
    assert not (tmp_path / "p.html").exists() and not private_store.exists()
