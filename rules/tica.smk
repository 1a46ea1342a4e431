# TICA model of each protein's ground truth, results/<protein>/tica/


rule fit_tica:
    input:
        frames=groundtruth_frames,
        reference=PLAN.layout.prepare("{protein}", "prepared.pdb"),  # the native structure: contact features
    output:
        model=PLAN.layout.tica("{protein}", "model.npz"),
        description=PLAN.layout.tica("{protein}", "model.json"),
        frames=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
        figure=report(
            PLAN.layout.tica("{protein}", "tic01_density.png"),
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
    resources:
        **CLUSTER.resources("fit_tica"),
    params:
        lag_frames=config["tica"]["lag_frames"],
        dim=config["tica"]["dim"],
        density_bins=config["tica"]["density_bins"],
        features=config["tica"]["features"],
        memory_gb=config["tica"]["memory_gb"],
        min_pairs_per_feature=config["tica"]["min_pairs_per_feature"],
        seed=seed_of("tica"),
    script:
        "../scripts/fit_tica.py"


rule tica:
    """Target: the TICA model and ground-truth projection of every configured protein."""
    input:
        [PLAN.layout.tica(p, "model.json") for p in PROTEINS],
