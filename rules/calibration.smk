# The known-answer calibration study (docs/calibration.md): results/calibration/<study>/, results/tables/calibration.csv.
# A reference potential of the study protein, a ground truth made by it, and engines with known verdicts, each
# through the same rules as the main study's (use rule ... with: the study's files and settings).

#: The one model weighting the study reads (its table, checks and figures): its metric jobs score only this one
#: (the main study's carry every metrics.weightings); the msm and counts weightings cost seconds per engine.
CALIBRATION_WEIGHTING = "we"


rule calibration_models:
    """The native structure's C-alpha atoms (the beads' topology), the reference potential
    (engine reference) and its perturbed copies (calibration.perturbations), in one short job."""
    input:
        calibration_native_input,
    output:
        native="results/calibration/{protein}/native.pdb",
        models=[
            f"results/calibration/{{protein}}/models/{engine}/model.pt"
            for engine in CALIBRATION_ENGINES
            if wb_calibration.is_reference_model(CALIBRATION, engine)
        ],
    log:
        "results/calibration/{protein}/logs/calibration_models.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_models.tsv"
    conda:
        "../envs/torch.yaml"
    params:
        native=CALIBRATION["native"],
        reference={key: CALIBRATION["reference"][key] for key in CALIBRATION_REFERENCE_KEYS},
        # in the order of output.models
        perturbations=[
            wb_calibration.perturbation(CALIBRATION, engine)
            for engine in CALIBRATION_ENGINES
            if wb_calibration.is_reference_model(CALIBRATION, engine)
        ],
    script:
        "../scripts/calibration_models.py"


rule calibration_groundtruth:
    """Unbiased runs of the reference, with its forces (westbench.calibration.groundtruth)."""
    input:
        model="results/calibration/{protein}/models/reference/model.pt",
        native="results/calibration/{protein}/native.pdb",
    output:
        frames=[f"results/calibration/{{protein}}/groundtruth/runs/{run}/frames.h5" for run in calibration_runs()],
        summary="results/calibration/{protein}/groundtruth/summary.json",
    log:
        "results/calibration/{protein}/logs/calibration_groundtruth.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_groundtruth.tsv"
    conda:
        "../envs/torch.yaml"
    threads: 1  # ten beads: a second torch thread only adds synchronisation
    params:
        langevin=lambda wildcards: wb_calibration.engine_langevin(CALIBRATION, wb_calibration.REFERENCE),
        settings={
            key: value for key, value in CALIBRATION["groundtruth"].items() if key in CALIBRATION_GROUNDTRUTH_KEYS
        },
        explosion=config["cg"]["explosion"],
        seed=lambda wildcards: calibration_seed(wildcards, "calibration_groundtruth"),
    script:
        "../scripts/calibration_groundtruth.py"


use rule fit_tica as calibration_fit_tica with:
    input:
        frames=[f"results/calibration/{{protein}}/groundtruth/runs/{run}/frames.h5" for run in calibration_runs()],
    output:
        model="results/calibration/{protein}/tica/model.npz",
        description="results/calibration/{protein}/tica/model.json",
        frames="results/calibration/{protein}/tica/groundtruth_frames.h5",
        figure=report(
            "results/calibration/{protein}/tica/tic01_density.png",
            caption="../report/tic01_density.rst",
            category="Calibration",
            labels={"study": "{protein}", "figure": "reference ground truth, TIC 0/1 density"},
        ),
    log:
        "results/calibration/{protein}/logs/fit_tica.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/fit_tica.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    params:
        lag_frames=CALIBRATION["groundtruth"]["tica_lag_frames"],


use rule macrostates as calibration_macrostates with:
    input:
        groundtruth="results/calibration/{protein}/tica/groundtruth_frames.h5",
    output:
        "results/calibration/{protein}/tica/macrostates.npz",
    log:
        "results/calibration/{protein}/logs/macrostates.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/macrostates.tsv"
    params:
        seed=lambda wildcards: calibration_seed(wildcards, "calibration_macrostates"),


use rule cg_train as calibration_cg_train with:
    input:
        frames=calibration_training_frames,
        topologies="results/calibration/{protein}/native.pdb",
    output:
        model="results/calibration/{protein}/cg/{preset}/model.pt",
        record="results/calibration/{protein}/cg/{preset}/model.json",
        history="results/calibration/{protein}/cg/{preset}/training.csv",
        figure=report(
            "results/calibration/{protein}/cg/{preset}/training_curve.png",
            caption="../report/cg_training_curve.rst",
            category="Calibration",
            labels={"study": "{protein}", "preset": "{preset}", "figure": "training curve (reference forces)"},
        ),
    log:
        "results/calibration/{protein}/logs/cg_train_{preset}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/cg_train_{preset}.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    threads: 1  # a small network on ten beads: the two presets train side by side
    params:
        proteins=calibration_training_params,
        cg=calibration_training_settings,
        seed=lambda wildcards: calibration_seed(wildcards, "calibration_cg_train", wildcards.preset),
        known_noise_floor=wb_calibration.REFERENCE_FORCE_NOISE_FLOOR,


rule calibration_basis_states:
    """The study's WE basis states: frames of the reference's ground truth (westbench.calibration.basis)."""
    input:
        frames=[f"results/calibration/{{protein}}/groundtruth/runs/{run}/frames.h5" for run in calibration_runs()],
    output:
        states="results/calibration/{protein}/we/basis_states.npz",
    log:
        "results/calibration/{protein}/logs/calibration_basis_states.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_basis_states.tsv"
    conda:
        "../envs/westpa.yaml"
    params:
        states=CALIBRATION["we"]["basis_states"],  # how many
        seed=lambda wildcards: calibration_seed(wildcards, "calibration_basis_states"),
    script:
        "../scripts/calibration_basis_states.py"


use rule we_run as calibration_we_run with:
    input:
        unpack(calibration_we_input),
    output:
        summary="results/calibration/{protein}/we/{engine}/run.json",
    log:
        "results/calibration/{protein}/logs/we_run_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/we_run_{engine}.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    threads: 1  # ten beads per walker: one thread each, the study's runs side by side
    resources:
        gpu=torch_gpus,
    params:
        run_dir=lambda wildcards: f"results/calibration/{wildcards.protein}/we/{wildcards.engine}",
        kind=CG,
        settings=calibration_we_settings,
        preparation={},
        platform={},
        cg=calibration_engine_cg,
        seed=lambda wildcards: calibration_seed(wildcards, "calibration_we", wildcards.engine),


use rule we_export as calibration_we_export with:
    input:
        summaries=["results/calibration/{protein}/we/{engine}/run.json"],  # a list, as we_export pools replicas
        tica="results/calibration/{protein}/tica/model.json",
        groundtruth="results/calibration/{protein}/tica/groundtruth_frames.h5",
    output:
        frames="results/calibration/{protein}/we/{engine}/frames.h5",
        cost="results/calibration/{protein}/we/{engine}/cost.csv",
    log:
        "results/calibration/{protein}/logs/we_export_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/we_export_{engine}.tsv"
    params:
        run_dirs=lambda wildcards: [f"results/calibration/{wildcards.protein}/we/{wildcards.engine}"],
        save_every=CALIBRATION["we"]["save_every"],
        timestep_fs=CALIBRATION["langevin"]["timestep_fs"],


use rule metric_suite as calibration_metrics with:
    input:
        groundtruth="results/calibration/{protein}/tica/groundtruth_frames.h5",
        model="results/calibration/{protein}/we/{engine}/frames.h5",
        macrostates="results/calibration/{protein}/tica/macrostates.npz",
        training=lambda wildcards: (
            []
            if wb_calibration.is_reference_model(CALIBRATION, wildcards.engine)
            else [calibration_model_path(wildcards.engine).replace("model.pt", "model.json")]
        ),
    output:
        # No per-engine figures: no report shows them, and drawing them was a third of each job (the study's table
        # and its two figures read metrics.json).
        json="results/calibration/{protein}/metrics/{engine}/metrics.json",
        csv="results/calibration/{protein}/metrics/{engine}/metrics.csv",
    log:
        "results/calibration/{protein}/logs/metrics_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/metrics_{engine}.tsv"
    params:
        settings={
            **{key: config["metrics"][key] for key in METRIC_SUITE_KEYS},
            "weightings": [CALIBRATION_WEIGHTING],
            "discard_iterations": CALIBRATION["discard_iterations"],
        },
        seed=lambda wildcards: calibration_seed(wildcards, "calibration_metrics", wildcards.engine),


rule calibration_reweighting:
    """The ground truth reweighted exactly to each reference-model engine's equilibrium: the known answers."""
    input:
        groundtruth=f"{calibration_dir()}/tica/groundtruth_frames.h5",
        models=[
            calibration_model_path(e) for e in CALIBRATION_ENGINES if wb_calibration.is_reference_model(CALIBRATION, e)
        ],
    output:
        f"{calibration_dir()}/reweighting.npz",
    log:
        f"{calibration_dir()}/logs/calibration_reweighting.log",
    benchmark:
        f"{calibration_dir()}/benchmarks/calibration_reweighting.tsv"
    conda:
        "../envs/torch.yaml"
    params:
        engines=[e for e in CALIBRATION_ENGINES if wb_calibration.is_reference_model(CALIBRATION, e)],  # input.models order
        temperatures={e: wb_calibration.engine_langevin(CALIBRATION, e)["temperature_k"] for e in CALIBRATION_ENGINES},
        reference=wb_calibration.REFERENCE,
    script:
        "../scripts/calibration_reweighting.py"


rule calibration_table:
    """The study's verdicts against the known answers: results/tables/calibration.csv, resolution and convergence."""
    input:
        metrics=calibration_metrics_json,
        groundtruth=f"{calibration_dir()}/tica/groundtruth_frames.h5",
        reweighting=f"{calibration_dir()}/reweighting.npz",
        trained=[
            calibration_model_path(e).replace("model.pt", "model.json")
            for e in CALIBRATION_ENGINES
            if not wb_calibration.is_reference_model(CALIBRATION, e)
        ],
        null=f"{calibration_dir()}/we/{wb_calibration.REFERENCE}/frames.h5",
    output:
        table=report(
            "results/tables/calibration.csv",
            caption="../report/tables/calibration.rst",
            category="Tables",
            labels={"table": "calibration: verdicts against known answers"},
        ),
        summary=f"{calibration_dir()}/calibration.json",
        resolution=report(
            f"{calibration_dir()}/figures/resolution.png",
            caption="../report/figures/calibration_resolution.rst",
            category="Calibration",
            labels={"figure": "resolution"},
        ),
        convergence=report(
            f"{calibration_dir()}/figures/convergence.png",
            caption="../report/figures/calibration_convergence.rst",
            category="Calibration",
            labels={"figure": "convergence"},
        ),
    log:
        f"{calibration_dir()}/logs/calibration_table.log",
    benchmark:
        f"{calibration_dir()}/benchmarks/calibration_table.tsv"
    conda:
        "../envs/analysis.yaml"
    params:
        study=CALIBRATION["protein"],
        engines=CALIBRATION_ENGINES,  # in the order of input.metrics
        reference=wb_calibration.REFERENCE,
        trained_models=[e for e in CALIBRATION_ENGINES if not wb_calibration.is_reference_model(CALIBRATION, e)],
        perturbations={e: wb_calibration.perturbation(CALIBRATION, e) for e in CALIBRATION_ENGINES},
        weighting=CALIBRATION_WEIGHTING,
        discard_iterations=CALIBRATION["discard_iterations"],  # the convergence figure's window, as the metrics
    script:
        "../scripts/calibration_table.py"


rule calibration:
    """Target: the calibration study (its table and figures)."""
    input:
        calibration_outputs(),
