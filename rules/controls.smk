# Negative and positive controls of each protein's run, results/<protein>/controls/: engines whose answer is known,
# made from the run's own ground truth (no new MD) and scored with the metric suite (westbench.metrics.controls).


rule controls:
    """A protein's controls against a random half of its ground truth: the run's resolution (the smallest effect it
    separates per distribution and metric) and the failure modes it could detect (docs/controls.md)."""
    input:
        groundtruth=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
        tica=PLAN.layout.tica("{protein}", "model.npz"),  # re-projects the TICs of moved coordinates
        tica_description=PLAN.layout.tica("{protein}", "model.json"),  # read beside model.npz
        macrostates=PLAN.layout.tica("{protein}", "macrostates.npz"),  # the missing state's
    output:
        json=PLAN.layout.controls("{protein}", "controls.json"),
        csv=report(
            PLAN.layout.controls("{protein}", "controls.csv"),
            caption="../report/controls.rst",
            category="Controls",
            subcategory="{protein}",
            labels={"protein": "{protein}", "table": "controls"},
        ),
    log:
        "results/{protein}/logs/controls.log",
    benchmark:
        "results/{protein}/benchmarks/controls.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("controls"),
    params:
        # Only what the controls read: the controls section less `enabled`, and the suite's keys that change scores.
        settings=PLAN.params.controls(),
        metrics=PLAN.params.controls_metrics(),
        seed=seed_of("controls"),
    script:
        "../scripts/controls.py"
