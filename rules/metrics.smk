# The metric suite and its figures for every engine against the ground truth, results/<protein>/metrics/<engine>/
# Engine "groundtruth" scores the ground truth against itself: a sanity check (zero divergences, full coverage).

import westbench.metrics.figure_list as figure_list  # the figure registry


rule macrostates:
    """One ground-truth macrostate model per protein (KMeans on the leading TICs, MSM, PCCA+), fitted once and
    used by every engine's metrics job, so macrostate populations compare across engines."""
    input:
        groundtruth="results/{protein}/tica/groundtruth_frames.h5",
    output:
        "results/{protein}/tica/macrostates.npz",
    log:
        "results/{protein}/logs/macrostates.log",
    benchmark:
        "results/{protein}/benchmarks/macrostates.tsv"
    conda:
        "../envs/analysis.yaml"
    params:
        settings={key: config["metrics"][key] for key in MACROSTATE_KEYS},
        seed=lambda wildcards: job_seed(wildcards, "macrostates"),
    script:
        "../scripts/macrostates.py"


rule metric_suite:
    input:
        groundtruth="results/{protein}/tica/groundtruth_frames.h5",
        model=metrics_model_frames,
        macrostates="results/{protein}/tica/macrostates.npz",
        training=metrics_training_record,  # trained CG engines: their model.json (failure to learn is reported)
    output:
        **{entry.name: report(entry.path(), **entry.report()) for entry in figure_list.figures(figure_list.ENGINE)},
        json="results/{protein}/metrics/{engine}/metrics.json",
        csv=report(
            "results/{protein}/metrics/{engine}/metrics.csv",
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
    params:
        # Only what the suite reads: table settings (reference engine, thresholds) do not rerun it.
        settings={key: config["metrics"][key] for key in METRIC_SUITE_KEYS},
        seed=metrics_seed,
    script:
        "../scripts/metrics.py"


rule metrics:
    """Target: the metric suite of every engine (and the ground-truth sanity check) of every protein."""
    input:
        [path for protein in PROTEINS for path in metrics_outputs(protein)],
