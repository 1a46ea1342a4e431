"""Snakemake entry point: resource requests per rule (SLURM profile) and benchmark measurements per rule."""

import _library  # noqa: F401  (puts src/ on sys.path)
import yaml

from westbench.report.compute_tables import benchmark_files, read_benchmarks, resource_requests, summarize_by_rule
from westbench.workflow import run_script


def main(snakemake):
    profile = yaml.safe_load(snakemake.params.profile_text)
    resource_requests(profile, snakemake.params.rules).to_csv(snakemake.output.resources, index=False)
    # Every job's benchmark: file so far (Snakemake writes them after each job; this rule runs last), by the
    # rule whose benchmark: pattern it matches.
    files = benchmark_files(snakemake.params.benchmark_patterns)
    summarize_by_rule(read_benchmarks(files)).to_csv(snakemake.output.benchmarks, index=False)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
