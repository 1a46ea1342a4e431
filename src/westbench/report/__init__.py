"""The report layer: the HTML report, the compute tables for cluster admins, shared plots (rules/report.smk)."""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "build_report": "westbench.report.html_report",
    "write_report": "westbench.report.html_report",
    "render_caption": "westbench.report.captions",
    "calibration_html": "westbench.report.calibration",
    "resource_requests": "westbench.report.compute_tables",
    "summarize_by_rule": "westbench.report.compute_tables",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
