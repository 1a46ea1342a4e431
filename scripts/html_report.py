"""Snakemake entry point: the HTML report of this configuration (tables, then figures per protein and engine)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.report.html_report import write_report
from westbench.workflow import run_script


def main(snakemake):
    # Every file comes with its identity from the rule (params.records, in input order): no path parsing.
    records, inputs = snakemake.params.records, snakemake.input
    write_report(
        snakemake.output[0],
        title=snakemake.params.title,
        summary=snakemake.params.summary,
        settings=snakemake.params.metrics,
        tables={role: inputs[role] for role in ("w1", "kl", "coverage", "throughput")},
        metrics=[(*ids, path) for ids, path in zip(records["metrics"], inputs.metrics, strict=True)],
        densities=list(zip(records["densities"], inputs.densities, strict=True)),
        training_curves=[
            (*ids, path) for ids, path in zip(records["training_curves"], inputs.training_curves, strict=True)
        ],
        protein_figures=[
            (*ids, path) for ids, path in zip(records["protein_figures"], inputs.protein_figures, strict=True)
        ],
        captions=snakemake.params.captions,
        caption_config=snakemake.params.caption_config,
        calibration=_calibration(records["calibration"], inputs.calibration),
        controls=list(zip(records.get("controls", []), _listed(inputs.get("controls", [])), strict=True)),
        paper=snakemake.params.paper,
    )


def _listed(files):
    """A named input as a list (one file may come as a string)."""
    return [files] if isinstance(files, str) else list(files)


def _calibration(roles, files):
    """The study's files by role (table, summary, resolution, convergence, in that order), or None when it is off."""
    if not roles:
        return None
    found = dict(zip(roles, [files] if isinstance(files, str) else files, strict=True))
    return {
        "table": found["table"],
        "summary": found["summary"],
        "figures": [found["resolution"], found["convergence"]],
    }


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
