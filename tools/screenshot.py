"""Look at a report page as a new reader would: headless Chromium at 1,400 px (westbench.report.browser).

    .venv/bin/python tools/screenshot.py results/report/westbench.html shots/   # shots/westbench-01.png, -02.png, ...
    .venv/bin/python tools/screenshot.py results/report/agents.html shots/ --width 1000

Writes the whole page as tiles of --tile pixels high (an image viewer shrinks one tall image until nothing is
readable) and prints every layout problem the browser test would fail on (westbench.report.browser.layout_problems).
Needs Chromium and ChromeDriver: bash tools/setup-browser.sh.
"""

import argparse
import sys
from pathlib import Path

from PIL import Image  # matplotlib's dependency

from westbench.report.browser import WIDTH, chromium_driver, layout_problems, screenshot


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", type=Path)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--width", type=int, default=WIDTH)
    parser.add_argument("--tile", type=int, default=1800)
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    whole = args.folder / f"{args.page.stem}-page.png"
    with chromium_driver(width=args.width) as driver:
        problems = layout_problems(driver, args.page)
        screenshot(driver, args.page, whole, width=args.width)
    image = Image.open(whole)
    for n, top in enumerate(range(0, image.height, args.tile), 1):
        tile = args.folder / f"{args.page.stem}-{n:02d}.png"
        image.crop((0, top, image.width, min(top + args.tile, image.height))).save(tile)
        print(tile)
    for problem in problems:
        print(f"[layout] {problem['kind']}: {problem['where']} {problem['detail']}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
