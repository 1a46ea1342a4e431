"""The style sheet and the figure-enlarging script every page of the report shares (westbench.html, agents.html).

Tables and figures must fit the page's width (the browser test of ``tests/workflow/test_report_browser.py``
checks that no table overflows its container at 1,400 px): long cells wrap, a table wider than the page is
split by its writer, and ``.scroll`` only guards what a writer could not foresee.

Examples
--------
>>> "table" in STYLE and "heat" in STYLE, "enlarged" in SCRIPT
(True, True)
"""

from markupsafe import Markup

STYLE = Markup(
    """<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; vertical-align: top; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
td.text, th.text { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; max-width: 100%; }
figure img { max-width: 560px; width: 100%; cursor: zoom-in; }
figcaption { font-size: 0.8em; color: #555; max-width: 560px; }
figure.wide { display: block; } figure.wide img { max-width: 100%; width: auto; }
figure.wide figcaption { max-width: none; }
figure img.enlarged { position: fixed; inset: 2vh 2vw; max-width: 96vw; max-height: 96vh; margin: auto; width: auto;
  background: white; box-shadow: 0 0 0 100vmax rgba(0, 0, 0, 0.6); z-index: 10; cursor: zoom-out; }
.note { color: #555; font-size: 0.9em; }
.caveats { border: 2px solid #c77700; background: #fff8ec; padding: 0.25em 1em; margin: 1em 0; }
.caveats td, .caveats th { text-align: left; }
.estimate { white-space: nowrap; }
.verdict { font-weight: bold; cursor: help; } .v-separated { color: #b00020; } .v-within-noise { color: #2e7d32; }
.v-undetermined { color: #777; }
.floor, .bias { font-size: 0.85em; color: #666; white-space: nowrap; } .bias { color: #8a4b00; }
.not-estimable { font-style: italic; color: #8a4b00; cursor: help; }
ol.footnotes { font-size: 0.8em; color: #555; margin-top: -1em; }
.bottom-line { border: 2px solid #1f4e99; background: #f4f7fc; padding: 0.25em 1em 1em; margin: 1em 0; }
.standing { font-size: 1.05em; }
table.heatmap td.heat { text-align: center; min-width: 3.5em; cursor: help; }
.heat.v-separated { background: #f6c9cf; color: #5c0010; } .heat.v-within-noise { background: #cfe8d0; color: #1b4d1e; }
.heat.v-undetermined { background: #e2e2e2; color: #444; } .heat.v-none { background: #fff; color: #444; }
.heat.v-unresolved { background: repeating-linear-gradient(45deg, #eef4ee, #eef4ee 4px, #fff 4px, #fff 8px);
  color: #555; } .heat.v-pinned { background: #f3ecdd; color: #7a5a00; font-style: italic; }
.reading { font-size: 0.75em; color: #666; font-style: italic; white-space: nowrap; cursor: help; }
.pinned { font-style: italic; color: #7a5a00; }
.failed { color: #b00020; font-weight: bold; } .flag { color: #8a4b00; font-size: 0.9em; }
.bottom-line p.why, .bottom-line p.failed { font-weight: bold; }
dl.definitions dt { font-weight: bold; margin-top: 0.4em; } dl.definitions dd { margin-left: 1.5em; color: #333; }
.defined { font-size: 0.8em; }
span.heat { padding: 0 0.4em; border: 1px solid #ccc; }
nav.contents { font-size: 0.9em; } nav.contents li { margin: 0.1em 0; }
</style>
"""
)
SCRIPT = Markup(
    """<script>document.addEventListener("click", e => {
  if (e.target.tagName === "IMG") e.target.classList.toggle("enlarged"); });</script>
"""
)
