"""Write documentation/page-1280.png, page-1280-zh.png, page-390.png, page-390-zh.png and
page-390-confirm.png: the served page (``review --serve``) of a realistic store, in
headless Chromium driven by Playwright, in English and in Chinese (the browser's locale).

The store is the one ``review_screenshot.py`` builds (you, 小林 and Alex, every kind, with
what time adds), in a throwaway platform default store so the page names no directory of
this machine. The page is the real ``review --serve --no-open`` process; the browser opens
its one-time address. 1280 px in the light theme, in English after a correction (its banner
with "undo this" at the top) and in Chinese with one row's details open; 390 px in English
in the dark theme (``prefers-color-scheme: dark``) and in Chinese with a row open; and the
confirmation step of "forget a person" at 390 px. Pictures are trimmed below the page and
stored with a 256-colour palette. Needs chromium, a CJK font (fonts-noto-cjk or
fonts-wqy-microhei) and the test extra.

    python scripts/page_screenshot.py [--tz POSIX-TZ]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

import review_screenshot as still  # noqa: E402  (the static page's picture: its store, its PNG)
from support import browser, page  # noqa: E402

DOCS = ROOT / "documentation"
LOCALES = {"en": "en-US", "zh": "zh-CN"}  # the browser's language: the page's Accept-Language


def _save(raw: Path, out: Path) -> str:
    width, _, bpp, rows = browser.read_png(raw)
    kept = still.trim_bottom(rows)
    still.write_indexed_png(out, width, bpp, kept)
    return f"{out.relative_to(ROOT)}: {width}x{len(kept)}, {out.stat().st_size // 1024} KiB"


def _context(chromium: Any, served: page.Served, cookie: str, **options: Any) -> Any:
    """A browser context that already holds the page's cookie (the key is exchanged once,
    by ``page.login``, and both pictures' browsers share what it gave)."""
    context = chromium.new_context(**options)
    name, value = cookie.split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": served.url}])
    return context


def _tab(
    chromium: Any, served: page.Served, cookie: str, lang: str, width: int, **options: Any
) -> Any:
    viewport = {"width": width, "height": 900 if width > 500 else 844}
    context = _context(chromium, served, cookie, viewport=viewport, locale=LOCALES[lang], **options)
    tab = context.new_page()
    tab.goto(served.url)
    return tab


def _open_row(tab: Any, text: str) -> Any:
    row = tab.locator("li.row", has_text=text).first
    row.locator("summary.line").click()
    return row


def _shots(chromium: Any, served: page.Served, tmp: Path) -> list[str]:
    cookie = page.login(served)
    done = []
    # 1280, English, light: after a correction (its banner with "undo this" at the top).
    tab = _tab(chromium, served, cookie, "en", 1280)
    row = _open_row(tab, "在杭州做平面设计")
    row.locator("details.correct summary").click()
    row.locator("details.correct input[name='value']").fill("在杭州做品牌设计")
    row.locator("details.correct button").click()
    tab.wait_for_load_state()
    done.append(_shot(tab, tmp, "page-1280.png"))
    # 1280, Chinese, light: one row's details open (source, exact times, its id, past values).
    tab = _tab(chromium, served, cookie, "zh", 1280)
    _open_row(tab, "杭州")
    done.append(_shot(tab, tmp, "page-1280-zh.png"))
    # 390, English, dark; 390, Chinese, light with a row opened.
    tab = _tab(chromium, served, cookie, "en", 390, color_scheme="dark")
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    done.append(_shot(tab, tmp, "page-390.png", close=False))
    tab.locator("#p-obj-a details.card-more summary").click()
    tab.locator("form[action='forget-object']:has(input[value='obj-a']) button").click()
    tab.wait_for_load_state()
    done.append(_shot(tab, tmp, "page-390-confirm.png"))
    tab = _tab(chromium, served, cookie, "zh", 390)
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    _open_row(tab, "杭州")
    done.append(_shot(tab, tmp, "page-390-zh.png"))
    return done


def _shot(tab: Any, tmp: Path, name: str, close: bool = True) -> str:
    tab.screenshot(path=str(tmp / name), full_page=True)
    if close:
        tab.context.close()
    return _save(tmp / name, DOCS / name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tz", default="CST-8", help="time zone the page is made in (POSIX TZ)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="page-example-") as tmp:
        os.environ.pop("MEMORY_STORE_DIR", None)
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
            os.environ.pop(name, None)
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        os.environ["TZ"] = args.tz  # the page's process inherits it
        time.tzset()
        browser.ok("enable", "--confirm")
        browser.build_realistic_store()
        for batch in still.OVER_TIME:
            assert browser.apply(*batch).code == 0
        served = page.serve()
        try:
            with page.chromium() as chromium:
                done = _shots(chromium, served, Path(tmp))
        finally:
            served.stop()
    print("\n".join(done))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
