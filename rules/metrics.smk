# The metric suite and its figures for every engine against the ground truth, results/<protein>/metrics/<engine>/
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
        tic_densities_1d=report(
            "results/{protein}/metrics/{engine}/figures/tic_densities_1d.png",
            caption="../report/figures/tic_densities_1d.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "TIC 0-3 densities"},
        ),
        tic_densities_2d=report(
            "results/{protein}/metrics/{engine}/figures/tic_densities_2d.png",
            caption="../report/figures/tic_densities_2d.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "TIC pair free energies"},
        ),
        tic01_by_iteration=report(
            "results/{protein}/metrics/{engine}/figures/tic01_by_iteration.png",
            caption="../report/figures/tic01_by_iteration.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "TIC pairs by WE iteration"},
        ),
        structure_distributions=report(
            "results/{protein}/metrics/{engine}/figures/structure_distributions.png",
            caption="../report/figures/structure_distributions.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "Rg, bonds, angles, dihedrals"},
        ),
        msm_reweighting=report(
            "results/{protein}/metrics/{engine}/figures/msm_reweighting.png",
            caption="../report/figures/msm_reweighting.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "MSM reweighting"},
        ),
        contact_map_difference=report(
            "results/{protein}/metrics/{engine}/figures/contact_map_difference.png",
            caption="../report/figures/contact_map_difference.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "contact map difference"},
        ),
        macrostates=report(
            "results/{protein}/metrics/{engine}/figures/macrostates.png",
            caption="../report/figures/macrostates.rst",
            category="Metrics",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "figure": "macrostates"},
        ),
    params:
        # Only what the suite reads: table settings (reference engine, thresholds) do not rerun it.
        settings={key: config["metrics"][key] for key in METRIC_SUITE_KEYS},
        seed=metrics_seed,
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
