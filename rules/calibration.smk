# The known-answer calibration study (docs/calibration.md): results/calibration/<study>/, results/tables/calibration.csv.
# A reference potential of the study protein, a ground truth made by it, and engines with known verdicts, each
# through the same rules as the main study's (use rule ... with: the study's files and settings).

from westbench.calibration.study import REFERENCE, REFERENCE_FORCE_NOISE_FLOOR
from westbench.plan.calibration import CALIBRATION_WEIGHTING  # the one model weighting the study reads

# westbench.plan.calibration lays the study out (PLAN.calibration: its engines, files and what each job reads).
STUDY = PLAN.calibration


rule calibration_models:
    """The native structure's C-alpha atoms (the beads' topology), the reference potential
    (engine reference) and its perturbed copies (calibration.perturbations), in one short job."""
    input:
        STUDY.native_input(),
    output:
        native=PLAN.layout.study_file("{protein}", "native.pdb"),
        models=[
            PLAN.layout.study_file("{protein}", f"models/{engine}/model.pt") for engine in STUDY.reference_engines()
        ],
    log:
        "results/calibration/{protein}/logs/calibration_models.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_models.tsv"
    conda:
        "../envs/torch.yaml"
    resources:
        **CLUSTER.resources("calibration_models"),
    params:
        native=config["calibration"]["native"],
        reference=STUDY.reference_settings(),
        perturbations=STUDY.perturbations(),  # in the order of output.models
    script:
        "../scripts/calibration_models.py"


rule calibration_groundtruth:
    """Unbiased runs of the reference, with its forces (westbench.calibration.groundtruth)."""
    input:
        model=PLAN.layout.study_file("{protein}", "models/reference/model.pt"),
        native=PLAN.layout.study_file("{protein}", "native.pdb"),
    output:
        frames=[PLAN.layout.study_file("{protein}", f"groundtruth/runs/{run}/frames.h5") for run in STUDY.runs()],
        summary=PLAN.layout.study_file("{protein}", "groundtruth/summary.json"),
    log:
        "results/calibration/{protein}/logs/calibration_groundtruth.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_groundtruth.tsv"
    group:
        "calibration_samples"
    conda:
        "../envs/torch.yaml"
    threads: 1  # ten beads: a second torch thread only adds synchronisation
    resources:
        **CLUSTER.resources("calibration_groundtruth", shares_gpu=True),
    params:
        langevin=of_wildcards(partial(STUDY.langevin, REFERENCE)),
        settings=STUDY.groundtruth_settings(),
        explosion=config["cg"]["explosion"],
        seed=study_seed("calibration_groundtruth"),
    script:
        "../scripts/calibration_groundtruth.py"


rule calibration_equilibrium_sample:
    """An engine that changes the reference's equilibrium: unbiased runs of it, made as the ground truth is, for its
    known answer (westbench.calibration.groundtruth.run_equilibrium_sample)."""
    input:
        model=PLAN.layout.study_file("{protein}", "models/{engine}/model.pt"),
        native=PLAN.layout.study_file("{protein}", "native.pdb"),
    output:
        PLAN.layout.study_file("{protein}", "known/{engine}/sample.h5"),
    log:
        "results/calibration/{protein}/logs/calibration_equilibrium_sample_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_equilibrium_sample_{engine}.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    group:
        "calibration_samples"
    conda:
        "../envs/torch.yaml"
    threads: 1  # ten beads: a second torch thread only adds synchronisation
    resources:
        **CLUSTER.resources("calibration_equilibrium_sample", shares_gpu=True),
    params:
        engine=of_wildcards(str, "engine"),
        langevin=of_wildcards(STUDY.langevin, "engine"),
        settings=STUDY.groundtruth_settings(),
        runs=config["calibration"]["groundtruth"]["perturbed_runs"],
        explosion=config["cg"]["explosion"],
        seed=study_seed("calibration_equilibrium_sample", "engine"),
    script:
        "../scripts/calibration_equilibrium_sample.py"


use rule fit_tica as calibration_fit_tica with:
    input:
        frames=[PLAN.layout.study_file("{protein}", f"groundtruth/runs/{run}/frames.h5") for run in STUDY.runs()],
    output:
        model=PLAN.layout.study_file("{protein}", "tica/model.npz"),
        description=PLAN.layout.study_file("{protein}", "tica/model.json"),
        frames=PLAN.layout.study_file("{protein}", "tica/groundtruth_frames.h5"),
        figure=report(
            PLAN.layout.study_file("{protein}", "tica/tic01_density.png"),
            caption="../report/tic01_density.rst",
            category="Calibration",
            labels={"study": "{protein}", "figure": "reference ground truth, TIC 0/1 density"},
        ),
    log:
        "results/calibration/{protein}/logs/fit_tica.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/fit_tica.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    resources:
        **CLUSTER.resources("calibration_fit_tica"),
    params:
        lag_frames=config["calibration"]["groundtruth"]["tica_lag_frames"],


use rule macrostates as calibration_macrostates with:
    input:
        groundtruth=PLAN.layout.study_file("{protein}", "tica/groundtruth_frames.h5"),
    output:
        PLAN.layout.study_file("{protein}", "tica/macrostates.npz"),
    log:
        "results/calibration/{protein}/logs/macrostates.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/macrostates.tsv"
    resources:
        **CLUSTER.resources("calibration_macrostates"),
    params:
        seed=study_seed("calibration_macrostates"),


use rule cg_train as calibration_cg_train with:
    input:
        frames=STUDY.training_frames(),
        topologies=PLAN.layout.study_file("{protein}", "native.pdb"),
    output:
        model=PLAN.layout.study_file("{protein}", "cg/{preset}/model.pt"),
        record=PLAN.layout.study_file("{protein}", "cg/{preset}/model.json"),
        history=PLAN.layout.study_file("{protein}", "cg/{preset}/training.csv"),
        figure=report(
            PLAN.layout.study_file("{protein}", "cg/{preset}/training_curve.png"),
            caption="../report/cg_training_curve.rst",
            category="Calibration",
            labels={"study": "{protein}", "preset": "{preset}", "figure": "training curve (reference forces)"},
        ),
    log:
        "results/calibration/{protein}/logs/cg_train_{preset}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/cg_train_{preset}.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    group:
        "calibration_we"
    threads: 1  # a small network on ten beads: the two presets train side by side
    resources:
        **CLUSTER.resources("calibration_cg_train", shares_gpu=True),
        gpu=torch_gpus,
    params:
        proteins=calibration_training_params,
        cg=calibration_training_settings,
        seed=study_seed("calibration_cg_train", "preset"),
        known_noise_floor=REFERENCE_FORCE_NOISE_FLOOR,


rule calibration_basis_states:
    """The study's WE basis states: frames of the reference's ground truth (westbench.calibration.basis)."""
    input:
        frames=[PLAN.layout.study_file("{protein}", f"groundtruth/runs/{run}/frames.h5") for run in STUDY.runs()],
    output:
        states=PLAN.layout.study_file("{protein}", "we/basis_states.npz"),
    log:
        "results/calibration/{protein}/logs/calibration_basis_states.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_basis_states.tsv"
    conda:
        "../envs/westpa.yaml"
    resources:
        **CLUSTER.resources("calibration_basis_states"),
    params:
        states=config["calibration"]["we"]["basis_states"],  # how many
        seed=study_seed("calibration_basis_states"),
    script:
        "../scripts/calibration_basis_states.py"


# calibration.we.replicas > 1: replica k >= 1 draws its own basis states (westbench.plan.calibration.basis_states).
use rule calibration_basis_states as calibration_basis_states_replica with:
    output:
        states=PLAN.layout.study_file("{protein}", "we/replica_{replica}/basis_states.npz"),
    log:
        "results/calibration/{protein}/logs/calibration_basis_states_replica_{replica}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_basis_states_replica_{replica}.tsv"
    resources:
        **CLUSTER.resources("calibration_basis_states_replica"),
    params:
        states=config["calibration"]["we"]["basis_states"],
        seed=of_wildcards(partial(STUDY.replica_seed, "calibration_basis_states", None), "replica"),


rule calibration_engine_starts:
    """An engine of the reference's potential starts at its own equilibrium: ground-truth frames resampled with the
    predictions' weights (westbench.calibration.basis.engine_starts), so its WE run scores its equilibrium, not its
    relaxation; an engine of the reference's equilibrium keeps the drawn basis states."""
    input:
        unpack(of_wildcards(STUDY.starts_input, "engine")),
    output:
        starts=PLAN.layout.study_file("{protein}", "we/starts/{engine}.npz"),
    log:
        "results/calibration/{protein}/logs/calibration_engine_starts_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_engine_starts_{engine}.tsv"
    conda:
        "../envs/westpa.yaml"
    resources:
        **CLUSTER.resources("calibration_engine_starts"),
    params:
        engine=of_wildcards(str, "engine"),
        seed=of_wildcards(partial(STUDY.replica_seed, "calibration_engine_starts"), "engine"),
    script:
        "../scripts/calibration_engine_starts.py"


use rule calibration_engine_starts as calibration_engine_starts_replica with:
    input:
        unpack(of_wildcards(STUDY.starts_input, "engine", "replica")),
    output:
        starts=PLAN.layout.study_file("{protein}", "we/replica_{replica}/starts/{engine}.npz"),
    log:
        "results/calibration/{protein}/logs/calibration_engine_starts_{engine}_replica_{replica}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/calibration_engine_starts_{engine}_replica_{replica}.tsv"
    resources:
        **CLUSTER.resources("calibration_engine_starts_replica"),
    params:
        engine=of_wildcards(str, "engine"),
        seed=of_wildcards(partial(STUDY.replica_seed, "calibration_engine_starts"), "engine", "replica"),


# Your CG models in the study (calibration.engines: cg_<model>): checked on the study's beads, and with prior: fitted
# given westbench's prior fitted to the study's ground truth, as the main study's rules do for its proteins.
use rule cg_model_check as calibration_cg_model_check with:
    input:
        unpack(of_wildcards(STUDY.user_model_files, "name")),
    output:
        check=PLAN.layout.study_file("{protein}", "cg/model_{name}/check.json"),
    log:
        "results/calibration/{protein}/logs/cg_model_check_{name}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/cg_model_check_{name}.tsv"
    resources:
        **CLUSTER.resources("calibration_cg_model_check"),


use rule cg_prior as calibration_cg_prior with:
    input:
        frames=STUDY.training_frames(),
        topologies=PLAN.layout.study_file("{protein}", "native.pdb"),
    output:
        prior=PLAN.layout.study_file("{protein}", "cg/model_{name}/prior.pt"),
        record=PLAN.layout.study_file("{protein}", "cg/model_{name}/prior.json"),
    log:
        "results/calibration/{protein}/logs/cg_prior_{name}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/cg_prior_{name}.tsv"
    resources:
        **CLUSTER.resources("calibration_cg_prior"),
    params:
        proteins=calibration_training_params,
        cg=STUDY.prior_settings(PLAN.params.cg_prior()),
        seed=of_wildcards(STUDY.user_model_seed, "name"),  # its frame split


use rule we_run as calibration_we_run with:
    input:
        unpack(calibration_we_input),
    output:
        summary=PLAN.layout.study_file("{protein}", "we/{engine}/run.json"),
    log:
        "results/calibration/{protein}/logs/we_run_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/we_run_{engine}.tsv"
    priority: 0  # the study fills the cores the main study's critical path leaves (CRITICAL_PATH_PRIORITY)
    group:
        "calibration_we"
    threads: 1  # ten beads per walker: one thread each, the study's runs side by side
    resources:
        **CLUSTER.resources("calibration_we_run", shares_gpu=True),
        gpu=torch_gpus,
    params:
        run_dir=of_wildcards(STUDY.run_dir, "engine"),
        kind=of_wildcards(STUDY.kind, "engine"),  # cg; user for your engine class
        settings=calibration_we_settings,
        preparation={},
        platform={},
        cg=calibration_engine_cg,
        seed=study_seed("calibration_we", "engine"),


# calibration.we.replicas > 1: replica k of each engine in we/<engine>/replica_<k>/, its own seed and basis states.
use rule calibration_we_run as calibration_we_run_replica with:
    output:
        summary=PLAN.layout.study_file("{protein}", "we/{engine}/replica_{replica}/run.json"),
    log:
        "results/calibration/{protein}/logs/we_run_{engine}_replica_{replica}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/we_run_{engine}_replica_{replica}.tsv"
    resources:
        **CLUSTER.resources("calibration_we_run_replica", shares_gpu=True),
        gpu=torch_gpus,
    params:
        run_dir=of_wildcards(STUDY.run_dir, "engine", "replica"),
        kind=of_wildcards(STUDY.kind, "engine"),
        settings=calibration_we_settings,
        preparation={},
        platform={},
        cg=calibration_engine_cg,
        seed=of_wildcards(partial(STUDY.replica_seed, "calibration_we"), "engine", "replica"),


use rule we_export as calibration_we_export with:
    input:
        summaries=of_wildcards(STUDY.run_summaries, "engine"),  # one run.json per replica
        tica=PLAN.layout.study_file("{protein}", "tica/model.json"),
        groundtruth=PLAN.layout.study_file("{protein}", "tica/groundtruth_frames.h5"),
    output:
        frames=PLAN.layout.study_file("{protein}", "we/{engine}/frames.h5"),
        cost=PLAN.layout.study_file("{protein}", "we/{engine}/cost.csv"),
    log:
        "results/calibration/{protein}/logs/we_export_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/we_export_{engine}.tsv"
    resources:
        **CLUSTER.resources("calibration_we_export"),
    params:
        run_dirs=of_wildcards(STUDY.run_dirs, "engine"),
        save_every=config["calibration"]["we"]["save_every"],
        timestep_fs=of_wildcards(STUDY.timestep_fs, "engine"),


use rule metric_suite as calibration_metrics with:
    input:
        groundtruth=PLAN.layout.study_file("{protein}", "tica/groundtruth_frames.h5"),
        model=PLAN.layout.study_file("{protein}", "we/{engine}/frames.h5"),
        macrostates=PLAN.layout.study_file("{protein}", "tica/macrostates.npz"),
        training=of_wildcards(STUDY.training_record, "engine"),
    output:
        # No per-engine figures: no report shows them, and drawing them was a third of each job (the study's table
        # and its two figures read metrics.json).
        json=PLAN.layout.study_file("{protein}", "metrics/{engine}/metrics.json"),
        csv=PLAN.layout.study_file("{protein}", "metrics/{engine}/metrics.csv"),
    log:
        "results/calibration/{protein}/logs/metrics_{engine}.log",
    benchmark:
        "results/calibration/{protein}/benchmarks/metrics_{engine}.tsv"
    resources:
        **CLUSTER.resources("calibration_metrics"),
    params:
        settings=STUDY.metric_settings(PLAN.params.metric_suite()),
        seed=study_seed("calibration_metrics", "engine"),


rule calibration_reweighting:
    """The known answers: each reference-model engine's equilibrium, its own sample where it changes the equilibrium,
    else the ground truth reweighted to it (westbench.calibration.reweighting)."""
    input:
        groundtruth=f"{STUDY.dir()}/tica/groundtruth_frames.h5",
        models=[STUDY.model_path(e) for e in STUDY.reference_engines()],
        samples=[STUDY.equilibrium_sample(e) for e in STUDY.sampled_engines()],
        tica=f"{STUDY.dir()}/tica/model.json",
    output:
        weights=f"{STUDY.dir()}/reweighting.npz",
        known=[STUDY.known_sample(e) for e in STUDY.sampled_engines()],
    log:
        f"{STUDY.dir()}/logs/calibration_reweighting.log",
    benchmark:
        f"{STUDY.dir()}/benchmarks/calibration_reweighting.tsv"
    conda:
        "../envs/torch.yaml"
    resources:
        **CLUSTER.resources("calibration_reweighting"),
    params:
        engines=STUDY.reference_engines(),  # input.models order
        sampled=STUDY.sampled_engines(),  # input.samples and output.known order
        temperatures=STUDY.temperatures(),
        reference=REFERENCE,
    script:
        "../scripts/calibration_reweighting.py"


rule calibration_table:
    """The study's verdicts against the known answers: results/tables/calibration.csv, resolution and convergence."""
    input:
        metrics=STUDY.metrics_json(),
        groundtruth=f"{STUDY.dir()}/tica/groundtruth_frames.h5",
        reweighting=f"{STUDY.dir()}/reweighting.npz",
        trained=[path for e in STUDY.trained_engines() for path in STUDY.training_record(e)],
        null=f"{STUDY.dir()}/we/{REFERENCE}/frames.h5",
        runs=STUDY.run_frames(),
        engine_frames=[f"{STUDY.dir()}/we/{e}/frames.h5" for e in STUDY.reference_engines()],
        known=[STUDY.known_sample(e) for e in STUDY.sampled_engines()],
    output:
        table=report(
            PLAN.layout.table("calibration.csv"),
            caption="../report/tables/calibration.rst",
            category="Tables",
            labels={"table": "calibration: verdicts against known answers"},
        ),
        summary=f"{STUDY.dir()}/calibration.json",
        resolution=report(
            f"{STUDY.dir()}/figures/resolution.png",
            caption="../report/figures/calibration_resolution.rst",
            category="Calibration",
            labels={"figure": "resolution"},
        ),
        convergence=report(
            f"{STUDY.dir()}/figures/convergence.png",
            caption="../report/figures/calibration_convergence.rst",
            category="Calibration",
            labels={"figure": "convergence"},
        ),
    log:
        f"{STUDY.dir()}/logs/calibration_table.log",
    benchmark:
        f"{STUDY.dir()}/benchmarks/calibration_table.tsv"
    conda:
        "../envs/analysis.yaml"
    params:
        study=config["calibration"]["protein"],
        engines=STUDY.engines,  # in the order of input.metrics
        reference_engines=STUDY.reference_engines(),  # in the order of input.engine_frames
        sampled=STUDY.sampled_engines(),  # in the order of input.known
        reference=REFERENCE,
        trained_models=STUDY.trained_engines(),
        perturbations=STUDY.table_perturbations(),
        dynamics_only=STUDY.dynamics_only(),
        segment_ps=STUDY.segment_ps(),
        weighting=CALIBRATION_WEIGHTING,
        discard_iterations=config["calibration"]["discard_iterations"],  # the convergence figure's window, as the metrics
    script:
        "../scripts/calibration_table.py"


rule calibration:
    """Target: the calibration study (its table and figures)."""
    input:
        STUDY.outputs(),
