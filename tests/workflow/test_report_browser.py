"""The report as a new reader sees it: rendered by headless Chromium at 1,400 px (westbench.report.browser).

No table may overflow its container (cut off or scrolled sideways), the page may not be wider than the window,
no section may be empty, no table may be empty, and every figure must load: on the default run's report, on the
agent benchmark's page (built from small synthetic results: the agent suite needs Docker), and, so that the
checks can fail, on a page made to break each of them. One browser serves the module (about 10 s on 2 cores).
"""

import subprocess

import pytest

from westbench.report.agents_page import example_files, write_agents_page

from ..conftest import REPO

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium and ChromeDriver (tools/setup-browser.sh installs them once; tools/test.sh runs it in the
    background) driven by Selenium, 1,400 x 1,000 px."""
    result = subprocess.run(
        ["bash", str(REPO / "tools" / "setup-browser.sh")], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    from westbench.report.browser import chromium_driver

    with chromium_driver() as driver:
        yield driver


def problems(browser, page):
    from westbench.report.browser import layout_problems

    return layout_problems(browser, page)


def test_the_checks_find_an_overflowing_table_an_empty_section_and_an_empty_table(browser, tmp_path):
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><style>body { max-width: 600px; }</style></head><body>"
        f"<h2>Wide</h2><div><table><tbody><tr><td>{'x' * 200}</td></tr></tbody></table></div>"
        "<h2>Nothing</h2><h2>Blank</h2><table><tbody><tr><td></td></tr></tbody></table>"
        '<h2>Broken</h2><img src="missing.png" alt="gone"></body></html>'
    )
    found = {(p["kind"], p["where"]) for p in problems(browser, page)}
    assert ("table overflows its container", "Wide") in found
    assert ("empty section", "Nothing") in found
    assert ("table with only empty cells", "Blank") in found
    assert ("image not shown", "Broken") in found


def test_the_default_report_fits_the_window_and_has_no_empty_section(browser, default_run):
    report = default_run / "results" / "report" / "westbench.html"
    assert problems(browser, report) == []
    # The bottom line comes first, then the figures a reader looks for, then the calibration study and the tables.
    # The demo's ground truth cannot rank engines, and the bottom line says so, what run would and what it could
    # detect (westbench.report.claims).
    text = browser.find_element("tag name", "body").text
    headings = [h.text for h in browser.find_elements("tag name", "h2")]
    order = [
        next(i for i, h in enumerate(headings) if h.startswith(s))
        for s in ("Bottom line", "Figures", "Calibration", "Wasserstein-1")
    ]
    assert order == sorted(order), headings
    assert "This run cannot rank engines on chignolin." in text and "Ranking rule" in text
    assert "What would rank them" in text and "With this ground truth, a known-bad engine would be caught" in text


def test_the_agent_page_fits_the_window_and_has_no_empty_section(browser, tmp_path):
    page = tmp_path / "report" / "agents.html"
    write_agents_page(page, example_files(tmp_path / "agents"), title="agents", gate_agents=("oracle", "nop"))
    assert problems(browser, page) == []
