# Weighted ensemble with WESTPA, results/<protein>/we/<engine>/
# west.h5 and the segment files are not declared outputs: a failed or killed run keeps them
# and the rerun resumes from the last complete iteration.
# One run per engine (we.replicas 1) lives in the engine's folder (rule we_run); with several replicas,
# replica k runs in its replica_<k>/ subfolder (rule we_run_replica); westbench.plan.layout.Layout.we_run_dir owns both
# paths.


rule we_run:
    input:
        unpack(we_run_input),
    output:
        summary=f"{PLAN.layout.we_run_dir('{protein}', '{engine}')}/run.json",
    log:
        "results/{protein}/logs/we_run_{engine}.log",
    benchmark:
        "results/{protein}/benchmarks/we_run_{engine}.tsv"
    priority: CRITICAL_PATH_PRIORITY
    conda:
        "../envs/westpa.yaml"
    threads: we_threads
    resources:
        **CLUSTER.resources("we_run"),
        gpu=we_gpus,
    params:
        run_dir=we_job_run_dir,
        kind=kind_of,  # westbench.engines.kinds decides, once
        # Only this engine's values (westbench.plan.params): editing another engine or the engine list reruns nothing here.
        settings=we_settings,
        preparation=we_engine_preparation,
        platform=we_engine_platform,
        cg=we_engine_cg,
        seed=we_seed,
    script:
        "../scripts/we_run.py"


use rule we_run as we_run_replica with:
    output:
        summary=f"{PLAN.layout.we_run_dir('{protein}', '{engine}', '{replica}')}/run.json",
    log:
        "results/{protein}/logs/we_run_{engine}_replica_{replica}.log",
    benchmark:
        "results/{protein}/benchmarks/we_run_{engine}_replica_{replica}.tsv"


rule we_export:
    input:
        summaries=we_run_summaries,  # one run.json per replica (one for a single run)
        tica=PLAN.layout.tica("{protein}", "model.json"),
        groundtruth=PLAN.layout.tica("{protein}", "groundtruth_frames.h5"),
    output:
        frames=PLAN.layout.we_export("{protein}", "{engine}", "frames.h5"),
        cost=report(
            PLAN.layout.we_export("{protein}", "{engine}", "cost.csv"),
            caption="../report/we_cost.rst",
            category="Weighted ensemble",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "table": "compute per iteration"},
        ),
    log:
        "results/{protein}/logs/we_export_{engine}.log",
    benchmark:
        "results/{protein}/benchmarks/we_export_{engine}.tsv"
    conda:
        "../envs/westpa.yaml"
    resources:
        **CLUSTER.resources("we_export"),
    params:
        run_dirs=we_run_dirs,
        coverage_bins=config["metrics"]["coverage_bins"],  # the one coverage grid (stop rule, cost.csv, metrics)
        save_every=config["we"]["save_every"],
        timestep_fs=we_timestep_fs,
        on_nonfinite=config["on_nonfinite"],  # frames of walkers with status ok and bad coordinates: error or drop
    script:
        "../scripts/we_export.py"


rule we:
    """Target: every WE run of every configured protein, exported."""
    input:
        PLAN.targets.all_we_outputs(),
