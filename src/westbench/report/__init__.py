"""The report layer: the HTML report with its bottom line, the agent benchmark's page, the compute tables for
cluster admins, shared plots (rules/report.smk, rule agent_report), and the README's measured numbers
(:mod:`~westbench.report.measured`, tools/measure.py)."""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "build_report": "westbench.report.html_report",
    "write_report": "westbench.report.html_report",
    "render_caption": "westbench.report.captions",
    "calibration_html": "westbench.report.calibration",
    "resource_requests": "westbench.report.compute_tables",
    "summarize_by_rule": "westbench.report.compute_tables",
    "overview_html": "westbench.report.overview",
    "write_agents_page": "westbench.report.agents_page",
    "layout_problems": "westbench.report.browser",
    "render_readme": "westbench.report.measured",
    "stale_blocks": "westbench.report.measured",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
