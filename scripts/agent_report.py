"""Snakemake entry point: the agent benchmark's own HTML page (results/report/agents.html)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.report.agents_page import FILES, write_agents_page
from westbench.workflow import run_script


def main(snakemake):
    inputs = snakemake.input
    write_agents_page(
        snakemake.output[0],
        {role: inputs[role] for role in FILES if role in inputs.keys()},
        title=snakemake.params.title,
        gate_agents=snakemake.params.gate_agents,
        trial_files=inputs.trials,
        trial_log=snakemake.params.trial_log,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
