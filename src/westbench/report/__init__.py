"""The report layer: the HTML report, the compute tables for cluster admins, shared plots (rules/report.smk)."""
