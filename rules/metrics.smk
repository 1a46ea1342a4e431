# The metric suite and its figures for every engine against the ground truth, results/<protein>/metrics/<engine>/
# Engine "groundtruth" scores the ground truth against itself: a sanity check (zero divergences, full coverage).

import westbench.metrics.figure_list as figure_list  # the figure registry


rule macrostates:
    """One ground-truth macrostate model per protein (KMeans on the leading TICs, MSM, PCCA+), fitted once and
    used by every engine's metrics job, so macrostate populations compare across engines."""
    input:
        groundtruth=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
    output:
        PLAN.layout.tica("{protein}", "macrostates.npz"),
    log:
        "results/{protein}/logs/macrostates.log",
    benchmark:
        "results/{protein}/benchmarks/macrostates.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("macrostates"),
    params:
        settings=PLAN.params.macrostates(),
        seed=seed_of("macrostates"),
    script:
        "../scripts/macrostates.py"


rule metric_suite:
    input:
        groundtruth=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
        model=metrics_model_frames,
        macrostates=PLAN.layout.tica("{protein}", "macrostates.npz"),
        training=metrics_training_record,  # trained CG engines: their model.json (failure to learn is reported)
    output:
        **{entry.name: report(entry.path(), **entry.report()) for entry in figure_list.figures(figure_list.ENGINE)},
        json=PLAN.layout.metrics("{protein}", "{engine}", "metrics.json"),
        csv=report(
            PLAN.layout.metrics("{protein}", "{engine}", "metrics.csv"),
            caption="../report/metrics.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "table": "metrics"},
        ),
        # One report output per per-engine figure of the registry (westbench.metrics.figure_list), named as the
        # figure, with the caption file, category and labels its entry gives.
    log:
        "results/{protein}/logs/metrics_{engine}.log",
    benchmark:
        "results/{protein}/benchmarks/metrics_{engine}.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("metric_suite"),
    params:
        # Only what the suite reads: table settings (reference engine, thresholds) do not rerun it.
        settings=PLAN.params.metric_suite(),
        seed=metrics_seed,
    script:
        "../scripts/metrics.py"


rule metrics:
    """Target: the metric suite of every engine (and the ground-truth sanity check) of every protein."""
    input:
        PLAN.targets.all_metrics_json(),


rule scoring_contract:
    """The scoring contract (westbench.metrics.contract) on one engine's real frames: every number its metrics.json
    reports rescored with the rows permuted, every frame written twice, mass moved far away, and the ground truth
    against itself. Not part of `all`: run `snakemake scoring_contracts` (the target below)."""
    input:
        groundtruth=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
        model=metrics_model_frames,
        macrostates=PLAN.layout.tica("{protein}", "macrostates.npz"),
        record=PLAN.layout.metrics("{protein}", "{engine}", "metrics.json"),
    output:
        PLAN.layout.metrics("{protein}", "{engine}", "contract.json"),
    log:
        "results/{protein}/logs/scoring_contract_{engine}.log",
    benchmark:
        "results/{protein}/benchmarks/scoring_contract_{engine}.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("scoring_contract"),
    script:
        "../scripts/scoring_contract.py"


rule scoring_contracts:
    """Target: the scoring contract of every scored engine of every protein."""
    input:
        PLAN.targets.all_contracts(),
