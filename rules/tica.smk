# TICA model of each protein's ground truth, results/<protein>/tica/


rule fit_tica:
    input:
        frames=groundtruth_frames,
    output:
        model="results/{protein}/tica/model.npz",
        description="results/{protein}/tica/model.json",
        frames="results/{protein}/tica/groundtruth_frames.h5",
        figure=report(
            "results/{protein}/tica/tic01_density.png",
            caption="../report/tic01_density.rst",
            category="Ground truth",
            subcategory="{protein}",
            labels={"protein": "{protein}", "figure": "TIC 0/1 density"},
        ),
    log:
        "results/{protein}/logs/fit_tica.log",
    benchmark:
        "results/{protein}/benchmarks/fit_tica.tsv"
    priority: CRITICAL_PATH_PRIORITY
    conda:
        "../envs/analysis.yaml"
    params:
        lag_frames=config["tica"]["lag_frames"],
        dim=config["tica"]["dim"],
        density_bins=config["tica"]["density_bins"],
    script:
        "../scripts/fit_tica.py"


rule tica:
    """Target: the TICA model and ground-truth projection of every configured protein."""
    input:
        expand("results/{protein}/tica/model.json", protein=PROTEINS),
