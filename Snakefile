# westbench: benchmark MD engines and coding agents in one DAG.
# Stages live in rules/<stage>.smk; the library in src/westbench does the work.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/prepare.smk"
include: "rules/groundtruth.smk"
include: "rules/tica.smk"
include: "rules/we.smk"
include: "rules/external.smk"
include: "rules/cgml.smk"
include: "rules/metrics.smk"
include: "rules/report.smk"
include: "rules/agents.smk"


rule all:
    input:
        all_outputs(),
    default_target: True
