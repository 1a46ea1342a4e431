# Tables across proteins and engines (results/tables/) and the HTML report of this configuration
# (results/report/westbench.html). `snakemake --report` gathers every report() output with its caption.

import westbench.metrics.figure_list as figure_list  # the figure registry


rule metric_tables:
    input:
        metrics=all_metrics_csv,
        costs=all_we_costs,
    output:
        w1=report(
            "results/tables/w1.csv",
            caption="../report/tables/w1.rst",
            category="Tables",
            labels={"table": "Wasserstein-1"},
        ),
        kl=report(
            "results/tables/kl.csv",
            caption="../report/tables/kl.rst",
            category="Tables",
            labels={"table": "KL(ground truth || model)"},
        ),
        coverage=report(
            "results/tables/coverage.csv",
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
    params:
        thresholds=config["metrics"]["coverage_thresholds"],
        platform=config["platform"]["name"],
        reference_engine=config["metrics"]["reference_engine"],
        cost_ids=lambda wildcards: scored_engine_records(),  # [protein, engine] of each input.costs file, in order
    script:
        "../scripts/metric_tables.py"


rule protein_figures:
    """Per protein, across engines: the registry's figures of scope PROTEIN (TIC 0/1 contours side by side,
    coverage against compute)."""
    input:
        groundtruth="results/{protein}/tica/groundtruth_frames.h5",
        frames=lambda wildcards: engine_frames(wildcards.protein),
        costs=lambda wildcards: engine_frames(wildcards.protein, "cost.csv"),
    output:
        # One report output per across-engine figure of the registry (westbench.metrics.figure_list).
        **{entry.name: report(entry.path(), **entry.report()) for entry in figure_list.figures(figure_list.PROTEIN)},
    log:
        "results/{protein}/logs/protein_figures.log",
    benchmark:
        "results/{protein}/benchmarks/protein_figures.tsv"
    conda:
        "../envs/analysis.yaml"
    params:
        bins=config["tica"]["density_bins"],
        thresholds=config["metrics"]["coverage_thresholds"],
        gpu=bool(openmm_gpus()),
        engines=lambda wildcards: [engine for _, engine in scored_engine_records([wildcards.protein])],
    script:
        "../scripts/protein_figures.py"


rule html_report:
    input:
        w1="results/tables/w1.csv",
        kl="results/tables/kl.csv",
        coverage="results/tables/coverage.csv",
        metrics=all_metrics_json,
        densities=expand("results/{protein}/tica/tic01_density.png", protein=PROTEINS),
        throughput="results/tables/groundtruth_throughput_by_protein.csv",
        training_curves=training_curves,
        protein_figures=protein_figures,
        calibration=lambda wildcards: list(calibration_report_inputs().values()),  # the study, shown first
    output:
        "results/report/westbench.html",
    log:
        "results/logs/html_report.log",
    benchmark:
        "results/benchmarks/html_report.tsv"
    conda:
        "../envs/analysis.yaml"
    params:
        title=config["report"]["title"],
        metrics={key: config["metrics"][key] for key in REPORT_METRIC_KEYS},
        summary=report_summary,
        records=report_records,
        # The caption texts and only the config keys they read: editing a caption reruns the report.
        captions=declared_captions,
        caption_config=html_report_caption_config,
    script:
        "../scripts/html_report.py"


rule report:
    """Target: the combined tables and the HTML report of this configuration."""
    input:
        rules.html_report.output,


rule compute_tables:
    """Last: what each rule asks the SLURM scheduler for, and what every job measured (benchmark: files)."""
    input:
        report="results/report/westbench.html",
    output:
        resources=report(
            "results/tables/resource_requests.csv",
            caption="../report/tables/resource_requests.rst",
            category="Compute",
            labels={"table": "resources per rule (SLURM profile)"},
        ),
        benchmarks=report(
            "results/tables/benchmarks_by_rule.csv",
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
    params:
        # The profile ships with the workflow (not the working directory); its text as a parameter
        # reruns the table when the profile changes.
        profile_text=Path(workflow.basedir, "profiles", "slurm", "config.yaml").read_text(),
        rules=lambda wildcards: sorted(rule.name for rule in workflow.rules),
        benchmark_patterns=benchmark_patterns,
    script:
        "../scripts/compute_tables.py"
