# westbench: benchmark MD engines and coding agents in one DAG.
# Stages live in rules/<stage>.smk; the library in src/westbench does the work.

from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")


# Config layering, one rule: the embedded demo (config/config.yaml) is the config only when no --configfile
# is given. A user's --configfile replaces it (keys it leaves out take the published values of
# config/schema.yaml, never the demo's tiny ones); --config key=value edits whichever of the two is in use.
if not workflow.overwrite_configfiles:

    configfile: str(Path(workflow.basedir) / "config" / "config.yaml")


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/cluster.smk"  # cluster requests, local rules, the profile check (CLUSTER.check below)
include: "rules/prepare.smk"
include: "rules/groundtruth.smk"
include: "rules/tica.smk"
include: "rules/we.smk"
include: "rules/external.smk"
include: "rules/cg.smk"
include: "rules/metrics.smk"
include: "rules/controls.smk"
include: "rules/calibration.smk"
include: "rules/report.smk"
include: "rules/agents.smk"


# SIGTERM stops a run as Ctrl-C does: Snakemake's own SIGTERM handler can deadlock (docs/cluster.md, "Killed runs").
onstart:
    from westbench.workflow import sigterm_stops_like_ctrl_c

    sigterm_stops_like_ctrl_c()


rule all:
    default_target: True
    input:
        PLAN.targets.all_outputs(),


# Last, once every rule is known: the cluster profile's account, partitions, GPU requests and runtimes (docs/cluster.md).
CLUSTER.check()
