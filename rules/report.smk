# Tables across proteins and engines (results/tables/) and the HTML report of this configuration
# (results/report/westbench.html). `snakemake --report` gathers every report() output with its caption.

import westbench.metrics.figure_list as figure_list  # the figure registry
from westbench.report.scale import paper_ground_truths  # the published ground truth the bottom line quotes


rule metric_tables:
    input:
        metrics=PLAN.targets.all_metrics_csv(),
        costs=PLAN.targets.all_we_costs(),
    output:
        w1=report(
            PLAN.layout.table("w1.csv"),
            caption="../report/tables/w1.rst",
            category="Tables",
            labels={"table": "Wasserstein-1"},
        ),
        kl=report(
            PLAN.layout.table("kl.csv"),
            caption="../report/tables/kl.rst",
            category="Tables",
            labels={"table": "KL(ground truth || model)"},
        ),
        coverage=report(
            PLAN.layout.table("coverage.csv"),
            caption="../report/tables/coverage.rst",
            category="Tables",
            labels={"table": "coverage and compute to reach it"},
        ),
    log:
        "results/logs/metric_tables.log",
    benchmark:
        "results/benchmarks/metric_tables.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("metric_tables"),
    params:
        thresholds=config["metrics"]["coverage_thresholds"],
        platform=config["platform"]["name"],
        reference_engine=config["metrics"]["reference_engine"],
        cost_ids=PLAN.targets.scored_engine_records(),  # [protein, engine] of each input.costs file, in order
    script:
        "../scripts/metric_tables.py"


rule protein_figures:
    """Per protein, across engines: the registry's figures of scope PROTEIN (TIC 0/1 contours side by side,
    coverage against compute)."""
    input:
        groundtruth=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
        frames=of_protein(PLAN.targets.engine_frames),
        costs=engine_costs,
    output:
        # One report output per across-engine figure of the registry (westbench.metrics.figure_list).
        **{entry.name: report(entry.path(), **entry.report()) for entry in figure_list.figures(figure_list.PROTEIN)},
    log:
        "results/{protein}/logs/protein_figures.log",
    benchmark:
        "results/{protein}/benchmarks/protein_figures.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("protein_figures"),
    params:
        bins=config["tica"]["density_bins"],
        thresholds=config["metrics"]["coverage_thresholds"],
        gpu=bool(PLAN.params.gpus("openmm")),
        engines=PLAN.roster.scored_engines,
    script:
        "../scripts/protein_figures.py"


rule html_report:
    input:
        w1=PLAN.layout.table("w1.csv"),
        kl=PLAN.layout.table("kl.csv"),
        coverage=PLAN.layout.table("coverage.csv"),
        metrics=PLAN.targets.all_metrics_json(),
        densities=[PLAN.layout.tica(p, "tic01_density.png") for p in PROTEINS],
        throughput=PLAN.layout.table("groundtruth_throughput_by_protein.csv"),
        training_curves=PLAN.targets.training_curves(),
        protein_figures=PLAN.targets.protein_figures(),
        calibration=list(PLAN.calibration.report_inputs().values()),  # the study, shown first
        controls=PLAN.targets.controls_outputs(),  # each protein's controls.json (params.records controls)
    output:
        PLAN.layout.REPORT,
    log:
        "results/logs/html_report.log",
    benchmark:
        "results/benchmarks/html_report.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("html_report"),
    params:
        title=config["report"]["title"],
        metrics=PLAN.params.report_metrics(),
        summary=PLAN.params.report_summary(),
        records=PLAN.targets.report_records(),
        # The caption texts and only the config keys they read: editing a caption reruns the report.
        captions=declared_captions,
        caption_config=html_report_caption_config,
        # config/paper.yaml's ground truth per protein: "what run would rank them" in the bottom line.
        paper=paper_ground_truths(workflow.basedir),
    script:
        "../scripts/html_report.py"


rule report:
    """Target: the combined tables and the HTML report of this configuration."""
    input:
        rules.html_report.output,


rule compute_tables:
    """Last: what each rule asks the SLURM scheduler for, and what every job measured (benchmark: files)."""
    input:
        report=PLAN.layout.REPORT,
    output:
        resources=report(
            PLAN.layout.table("resource_requests.csv"),
            caption="../report/tables/resource_requests.rst",
            category="Compute",
            labels={"table": "resources per rule (SLURM profile)"},
        ),
        benchmarks=report(
            PLAN.layout.table("benchmarks_by_rule.csv"),
            caption="../report/tables/benchmarks_by_rule.rst",
            category="Compute",
            labels={"table": "measured per rule (benchmark files)"},
        ),
    log:
        "results/logs/compute_tables.log",
    benchmark:
        "results/benchmarks/compute_tables.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("compute_tables"),
    params:
        # The profile ships with the workflow (not the working directory); its text as a parameter
        # reruns the table when the profile changes (a function: the text holds group patterns such as `{protein}`).
        profile_text=slurm_profile_text,
        rules=rule_names,
        benchmark_patterns=benchmark_patterns,
    script:
        "../scripts/compute_tables.py"
