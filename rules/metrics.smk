# The metric suite of every engine against the ground truth, results/<protein>/metrics/<engine>/
# Engine "groundtruth" scores the ground truth against itself: a sanity check (zero divergences, full coverage).


rule metrics:
    input:
        groundtruth="results/{protein}/tica/groundtruth_frames.h5",
        model=metrics_model_frames,
    output:
        json="results/{protein}/metrics/{engine}/metrics.json",
        csv=report(
            "results/{protein}/metrics/{engine}/metrics.csv",
            caption="../report/metrics.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "table": "metrics"},
        ),
    params:
        settings=config["metrics"],
    log:
        "results/{protein}/logs/metrics_{engine}.log",
    benchmark:
        "results/{protein}/benchmarks/metrics_{engine}.tsv"
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/metrics.py"


rule metrics_all:
    """Target: the metric suite of every engine (and the ground-truth sanity check) of every protein."""
    input:
        [path for protein in PROTEINS for path in metrics_outputs(protein)],
