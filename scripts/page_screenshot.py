"""Write documentation/page-1280.png, page-390.png and page-390-confirm.png: the served
page (``review --serve``) of a realistic store, in headless Chromium driven by Playwright.

The store is the one ``review_screenshot.py`` builds (you, 小林 and Alex, every kind, with
what time adds), in a throwaway platform default store so the page names no directory of
this machine. The page is the real ``review --serve --no-open`` process; the browser opens
its one-time address. 1280 px in the light theme, after a correction (its banner with
"undo this" at the top); 390 px in the dark theme (``prefers-color-scheme: dark``); and
the confirmation step of "forget a person" at 390 px. Pictures are trimmed below the page
and stored with a 256-colour palette. Needs chromium and the test extra.

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


def _shots(chromium: Any, served: page.Served, tmp: Path) -> list[str]:
    cookie = page.login(served)
    light = _context(chromium, served, cookie, viewport={"width": 1280, "height": 900})
    tab = light.new_page()
    tab.goto(served.url)
    row = tab.locator("tr", has_text="在杭州做平面设计").first
    row.locator("details.correct summary").click()
    row.locator("details.correct input[name='value']").fill("在杭州做品牌设计")
    row.locator("details.correct button").click()
    tab.wait_for_load_state()
    tab.screenshot(path=str(tmp / "1280.png"), full_page=True)
    light.close()
    done = [_save(tmp / "1280.png", DOCS / "page-1280.png")]
    small = {"width": 390, "height": 844}
    dark = _context(chromium, served, cookie, viewport=small, color_scheme="dark")
    tab = dark.new_page()
    tab.goto(served.url)
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    tab.screenshot(path=str(tmp / "390.png"), full_page=True)
    done.append(_save(tmp / "390.png", DOCS / "page-390.png"))
    tab.locator("form[action='/forget-object']:has(input[value='obj-a']) button").click()
    tab.wait_for_load_state()
    tab.screenshot(path=str(tmp / "390-confirm.png"), full_page=True)
    dark.close()
    done.append(_save(tmp / "390-confirm.png", DOCS / "page-390-confirm.png"))
    return done


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
