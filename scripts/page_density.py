"""Print how tall the served page is, in screens, for 32 memories about four people and you
(``tests/support/browser.py``'s dense store), at 390×844 and 1280×900, in English and
Chinese (the browser's locale), and whether anything reaches past the right edge.

The page is the real ``review --serve --no-open`` process of whatever ``memory_store`` the
interpreter imports, so the same script measures another checkout too
(from that checkout's folder, ``cd ../main && python ../this/scripts/page_density.py``:
release 4's page). Figures, not a
test: ``tests/review/test_page_a_person_would_use.py`` holds the bounds.

    python scripts/page_density.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import browser, ok, page  # noqa: E402

VIEWPORTS = ((390, 844), (1280, 900))
LOCALES = (("en", "en-US"), ("zh", "zh-CN"))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="page-density-") as tmp:
        os.environ["MEMORY_STORE_DIR"] = str(Path(tmp) / "store")
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
            os.environ.pop(name, None)
        ok("enable", "--confirm")
        print(f"memories: {browser.build_dense_store()}")
        served = page.serve()
        try:
            cookie = page.login(served)  # the key works once; each browser gets its cookie
            name, value = cookie.split("=", 1)
            with page.chromium() as chromium:
                for lang, locale in LOCALES:
                    context = chromium.new_context(locale=locale)
                    context.add_cookies([{"name": name, "value": value, "url": served.url}])
                    tab = context.new_page()
                    for width, height in VIEWPORTS:
                        tab.set_viewport_size({"width": width, "height": height})
                        tab.goto(served.url)
                        m = browser.measure(tab)
                        buttons = tab.evaluate(
                            "[...document.querySelectorAll('main button')]"
                            ".filter(b => b.checkVisibility()).length"
                        )
                        print(
                            f"{lang} {width}x{height}: {m['screens']:.1f} screens "
                            f"({m['height']} px), scrollWidth {m['scroll_width']}, "
                            f"{buttons} buttons in view"
                        )
                    context.close()
        finally:
            served.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
