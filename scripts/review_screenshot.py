"""Write documentation/review-example.png: the review page of a realistic store at 1280 px.

Builds a throwaway store through the real CLI (the same data as the browser
tests: you, 小林 and Alex, every kind, plus what documentation/time.md#where-history-lives adds: a changed
value, an ended row, a milestone, two rows of one concept for tidy to find),
renders the page, has headless Chromium
take a tall screenshot, trims the empty canvas below the page, and stores it
with a 256-colour palette (a page is mostly a few flat colours; anti-aliased
edges map to their nearest) so the whole page fits in a small PNG. The page
is made in the zone of --tz (default UTC+08:00, the example person's), so the
picture does not depend on this machine's, and from the platform default store
(XDG_DATA_HOME in the temporary directory), so its commands name no directory
of this machine. Needs
chromium and the test extra (`pip install -e ".[test]"`); Chinese text needs a
CJK font (Debian: fonts-noto-cjk), or it shows as boxes.

    python scripts/review_screenshot.py [--output PATH] [--tz POSIX-TZ]
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import browser  # noqa: E402  (tests/support/browser.py, once tests/ is on the path)

MARGIN = 40  # px of background kept below the page's last line

# What time adds to the example (documentation/time.md#where-history-lives), one batch per apply.
OVER_TIME = (
    (
        browser.delta("object", "obj-a", "city", "上海", occurred_at="2025-09-01"),
        browser.delta(
            "event", "obj-a", "first_date", "第一次约会：西湖边散步到很晚",
            occurred_at="2026-05-03", pinned=True,
        ),
        browser.delta("relationship", "obj-b", "shared_project", "一起做 Q3 报告",
                      occurred_at="2026-06-01"),
    ),
    (browser.delta("object", "obj-a", "city", "杭州", occurred_at="2026-03-10"),),
    ({"action": "end", "scope": "relationship", "subject_id": "obj-b",
      "field": "shared_project", "occurred_at": "2026-10-20"},),
    # Same day as job (no date given), written later: tidy proposes ending job.
    (browser.delta("object", "obj-a", "occupation", "辞职后开了自己的设计工作室"),),
)  # fmt: skip


def trim_bottom(rows: list[bytes]) -> list[bytes]:
    # The canvas below the page is rows identical to the last one (the page background).
    end = len(rows)
    while end > 1 and rows[end - 1] == rows[-1]:
        end -= 1
    return rows[: min(len(rows), end + MARGIN)]


def write_indexed_png(path: Path, width: int, bpp: int, rows: list[bytes]) -> None:
    pixels = [[row[i : i + 3] for i in range(0, len(row), bpp)] for row in rows]
    counts = Counter(p for line in pixels for p in line)
    palette = [colour for colour, _ in counts.most_common(256)]

    def nearest(colour: bytes) -> int:
        return min(
            range(len(palette)),
            key=lambda i: sum((a - b) ** 2 for a, b in zip(colour, palette[i], strict=True)),
        )

    index = {colour: nearest(colour) for colour in counts}
    data = b"".join(b"\0" + bytes(index[p] for p in line) for line in pixels)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, len(rows), 8, 3, 0, 0, 0)  # 8-bit, palette
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"PLTE", b"".join(palette))
        + chunk(b"IDAT", zlib.compress(data, 9))
        + chunk(b"IEND", b"")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--output", type=Path, default=ROOT / "documentation" / "review-example.png"
    )
    parser.add_argument("--height", type=int, default=8000, help="canvas height before trimming")
    parser.add_argument("--tz", default="CST-8", help="time zone the page is made in (POSIX TZ)")
    args = parser.parse_args()
    if browser.find_browser() is None:
        print("no chromium on PATH: apt-get install -y chromium", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="review-example-") as tmp:
        os.environ.pop("MEMORY_STORE_DIR", None)
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        from memory_store.storage.files import resolve_data_dir

        if not resolve_data_dir().startswith(tmp):
            print("the platform default store is not under XDG_DATA_HOME here", file=sys.stderr)
            return 1
        os.environ["TZ"] = args.tz  # the CLI runs in this process: the page takes this zone
        time.tzset()
        browser.ok("enable", "--confirm")
        browser.build_realistic_store()
        for batch in OVER_TIME:
            assert browser.apply(*batch).code == 0
        page = browser.write_review(Path(tmp) / "review.html")
        raw = browser.screenshot(page, Path(tmp) / "raw.png", 1280, args.height)
        width, height, bpp, rows = browser.read_png(raw)
        kept = trim_bottom(rows)
        if len(kept) >= height:
            print(f"the page is taller than {height} px: raise --height", file=sys.stderr)
            return 1
        write_indexed_png(args.output, width, bpp, kept)
    size = args.output.stat().st_size
    print(f"{args.output}: {width}x{len(kept)}, {size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
