# Cluster policy in one place (docs/cluster.md): what each job asks a scheduler for, which rules run on the
# submitting host, and the checks of the profile made before anything is submitted.
# - CLUSTER.resources(rule): the rule's runtime, mem_mb and disk_mb, sized by westbench.plan.requests from the
#   measured basis (profiles/slurm/measured.json) and this config's sizes. shares_gpu=True: the job can share its
#   GPU with others of its group (resource gpu_slots; the profile's `resources: gpu_slots=N` packs N per GPU), so
#   its runtime is N times one job's alone (no gain from sharing is assumed: none is measured here).
# - CLUSTER.check(): at the end of the Snakefile, the profile's account, partitions, GPU requests and runtimes, and
#   the software deployment (westbench.plan.cluster); one error naming every key to fix.

from westbench.plan import cluster as wb_cluster

CLUSTER = wb_cluster.ClusterPlan(workflow, config, PLAN, WorkflowError)


# Jobs that share a GPU in a packed group count against the profile's gpu_slots within their allocation, never
# against a workflow-wide total (Snakemake's resource scopes).
resource_scopes:
    gpu_slots="local",


# Trivial or networked rules run on the submitting host, never through the scheduler: the structure download (compute
# nodes are often offline), the structure fix (a second), summaries, tables and the report, and the agent benchmark's
# gathering and LLM-judging rules (network). Targets (rules without a script) are never submitted either.
localrules:
    acquire_structure,
    fix_structure,
    summarize_preparation,
    preparation_table,
    groundtruth_throughput,
    metric_tables,
    html_report,
    compute_tables,
    calibration_table,
    agent_judge,
    agent_process,
    agent_gate,
    agent_mutation_score,
    agent_leaderboard,
    agent_failures,
    agent_report,
    agent_suite,
