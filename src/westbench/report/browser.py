"""The report as a reader sees it: rendered by headless Chromium (Debian's ``chromium`` and ``chromedriver``,
``tools/setup-browser.sh``) through Selenium, measured and photographed.

:func:`layout_problems` lists what a reader would stumble on: a table wider than its container (cut off or
scrolled sideways), a page wider than the window, a section with nothing under its heading, a table with no row
or only empty cells, an image that did not load. The browser test (``tests/workflow/test_report_browser.py``)
asserts it finds none; :func:`screenshot` writes the whole page as a PNG for looking at it.

Selenium comes with the test extra (``pip install -e '.[test]'``); nothing here downloads a browser or a driver.

Examples
--------
>>> sorted(CHROMIUM_FLAGS)[:2]
['--disable-background-networking', '--disable-component-update']
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path

#: Chromium's flags: headless, no sandbox (root in CI), and none of its own network traffic (the machine's
#: network is closed: without these it retries Google's hosts at every start).
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
#: The window a new reader is assumed to have.
WIDTH, HEIGHT = 1400, 1000

# Everything measured in the page at once (one round trip): see layout_problems.
_MEASURE = """
const problems = [];
const name = el => {
  let at = el; let heading = null;
  while (at && !heading) {
    let prev = at.previousElementSibling;
    while (prev && !/^H[1-4]$/.test(prev.tagName)) {
      const inner = prev.querySelectorAll ? prev.querySelectorAll('h1,h2,h3,h4') : [];
      if (inner.length) { prev = inner[inner.length - 1]; break; }
      prev = prev.previousElementSibling;
    }
    heading = prev; at = at.parentElement;
  }
  return heading ? heading.textContent.trim().slice(0, 80) : '(top of the page)';
};
const root = document.documentElement;
if (root.scrollWidth > window.innerWidth + 1)
  problems.push({kind: 'page wider than the window', where: '', detail: root.scrollWidth + ' > ' + window.innerWidth});
for (const table of document.querySelectorAll('table')) {
  const box = table.getBoundingClientRect();
  if (box.width === 0) continue;  // not shown (a closed details element)
  const holder = table.parentElement.getBoundingClientRect();
  const body = document.body.getBoundingClientRect();
  const right = Math.min(holder.right, body.right);
  if (box.right > right + 1 || table.parentElement.scrollWidth > table.parentElement.clientWidth + 1)
    problems.push({kind: 'table overflows its container', where: name(table),
                   detail: Math.round(box.width) + ' px wide in ' + Math.round(right - holder.left) + ' px'});
  const cells = [...table.querySelectorAll('tbody td')];
  if (!table.querySelector('tbody tr') && !table.querySelector('tr td'))
    problems.push({kind: 'table without rows', where: name(table), detail: ''});
  else if (cells.length && cells.every(td => !td.textContent.trim() && !td.querySelector('img,a')))
    problems.push({kind: 'table with only empty cells', where: name(table), detail: ''});
}
const headings = [...document.querySelectorAll('h2,h3')];
for (const heading of headings) {
  const level = Number(heading.tagName[1]);
  let text = ''; let things = 0;
  // Everything after the heading up to the next heading of its level or above, in document order.
  const range = document.createRange();
  range.setStartAfter(heading);
  const next = headings.find(h => (heading.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING)
                                  && Number(h.tagName[1]) <= level);
  if (next) range.setEndBefore(next); else range.setEndAfter(document.body.lastChild);
  const fragment = range.cloneContents();
  text = fragment.textContent.replace(/\\s+/g, '');
  things = fragment.querySelectorAll('img,table,figure').length;
  if (!text && !things) problems.push({kind: 'empty section', where: heading.textContent.trim(), detail: ''});
}
for (const img of document.querySelectorAll('img'))
  if (!img.complete || img.naturalWidth === 0)
    problems.push({kind: 'image not shown', where: name(img), detail: img.alt.slice(0, 80)});
return problems;
"""


def chromium() -> tuple[str, str]:
    """The paths of Debian's Chromium and ChromeDriver; a clear error naming the setup script when absent."""
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver:
        raise FileNotFoundError(
            "Chromium and ChromeDriver are not installed (chromium, chromedriver on PATH): run "
            "`bash tools/setup-browser.sh` (Debian packages chromium and chromium-driver)."
        )
    return browser, driver


@contextmanager
def chromium_driver(width: int = WIDTH, height: int = HEIGHT, profile: str | Path | None = None):
    """A headless Chromium driven by Selenium through the installed ChromeDriver, ``width`` x ``height`` pixels;
    ``profile``: a new, empty folder for its user data (a temporary one by default)."""
    import tempfile

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium()
    with tempfile.TemporaryDirectory(prefix="westbench-chromium-") as scratch:
        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--window-size={width},{height}")
        options.add_argument(f"--user-data-dir={profile or scratch}")
        driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
        try:
            driver.set_window_size(width, height)
            yield driver
        finally:
            driver.quit()


def open_page(driver, path: str | Path) -> None:
    """Load a local HTML file and wait until its images are decoded."""
    driver.get(Path(path).resolve().as_uri())
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "Promise.all([...document.images].map(i => i.decode().catch(() => null))).then(() => done(true));"
    )


def layout_problems(driver, path: str | Path) -> list[dict]:
    """What a reader of ``path`` at the driver's window width would stumble on: a list of ``{kind, where,
    detail}`` (``where``: the heading above it), empty when the page is fine."""
    open_page(driver, path)
    return list(driver.execute_script(_MEASURE))


def screenshot(driver, path: str | Path, png: str | Path, width: int = WIDTH, max_height: int = 16000) -> Path:
    """The whole page (up to ``max_height`` px) of ``path`` as a PNG ``png``, at ``width`` px."""
    open_page(driver, path)
    height = min(int(driver.execute_script("return document.documentElement.scrollHeight")), max_height)
    driver.set_window_size(width, height)
    driver.save_screenshot(str(png))
    return Path(png)
