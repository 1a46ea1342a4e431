# Ground truth: starting points and production runs (explicit solvent; groundtruth.solvent), results/<protein>/groundtruth/


rule groundtruth_starts:
    input:
        unpack(starts_input),
    output:
        starts=directory("results/{protein}/groundtruth/starts"),
        table="results/{protein}/groundtruth/starts.csv",
    log:
        "results/{protein}/logs/groundtruth_starts.log",
    benchmark:
        "results/{protein}/benchmarks/groundtruth_starts.tsv"
    priority: CRITICAL_PATH_PRIORITY
    conda:
        "../envs/openmm.yaml"
    threads: openmm_threads()
    resources:
        gpu=openmm_gpus,
    params:
        settings={key: config["groundtruth"]["starts"][key] for key in STARTS_KEYS},
        preparation=integrator_settings(),
        platform=platform_settings(),
        n_starts=lambda wildcards: n_starts(wildcards.protein),
        seed=starts_seed,
    script:
        "../scripts/groundtruth_starts.py"


rule groundtruth_run:
    input:
        starts="results/{protein}/groundtruth/starts",
    output:
        trajectory=f"results/{{protein}}/groundtruth/runs/{{start}}/{TRAJECTORY}",
        topology="results/{protein}/groundtruth/runs/{start}/topology.pdb",
        frames="results/{protein}/groundtruth/runs/{start}/frames.h5",
        summary="results/{protein}/groundtruth/runs/{start}/summary.json",
    log:
        "results/{protein}/logs/groundtruth_run_{start}.log",
    benchmark:
        "results/{protein}/benchmarks/groundtruth_run_{start}.tsv"
    priority: CRITICAL_PATH_PRIORITY
    conda:
        "../envs/openmm.yaml"
    threads: openmm_threads()
    resources:
        gpu=openmm_gpus,
    params:
        # Checkpoints and frame chunks live here, outside the declared outputs, so a killed or
        # failed job resumes from its last checkpoint instead of restarting.
        workdir=lambda wildcards: f"results/{wildcards.protein}/groundtruth/runs/{wildcards.start}/checkpoints",
        groundtruth={key: config["groundtruth"][key] for key in GROUNDTRUTH_RUN_KEYS},
        preparation=system_settings(solvent=config["groundtruth"]["solvent"]),  # the start in the ground truth's solvent
        platform=platform_settings(),
        seed=run_seed,
    script:
        "../scripts/groundtruth_run.py"


rule groundtruth_throughput:
    input:
        summaries=groundtruth_summaries(),
    output:
        csv=report(
            "results/tables/groundtruth_throughput.csv",
            caption="../report/groundtruth_throughput.rst",
            category="Ground truth",
            labels={"table": "throughput per run (ns/day)"},
        ),
        by_protein=report(
            "results/tables/groundtruth_throughput_by_protein.csv",
            caption="../report/groundtruth_throughput.rst",
            category="Ground truth",
            labels={"table": "throughput per protein (ns/day)"},
        ),
    log:
        "results/logs/groundtruth_throughput.log",
    benchmark:
        "results/benchmarks/groundtruth_throughput.tsv"
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/groundtruth_throughput.py"


rule groundtruth:
    """Target: every ground-truth run of every configured protein."""
    input:
        groundtruth_summaries(),
        "results/tables/groundtruth_throughput.csv",


# groundtruth.source import: the rule exists only then, and wins over groundtruth_run.
if GROUNDTRUTH_IMPORT:

    ruleorder: groundtruth_import > groundtruth_run

    rule groundtruth_import:
        """groundtruth.source import: one trajectory simulated elsewhere becomes one ground-truth run."""
        input:
            unpack(import_input),
        output:
            trajectory=f"results/{{protein}}/groundtruth/runs/{{start}}/{TRAJECTORY}",
            topology="results/{protein}/groundtruth/runs/{start}/topology.pdb",
            frames="results/{protein}/groundtruth/runs/{start}/frames.h5",
            summary="results/{protein}/groundtruth/runs/{start}/summary.json",
        log:
            "results/{protein}/logs/groundtruth_import_{start}.log",
        benchmark:
            "results/{protein}/benchmarks/groundtruth_import_{start}.tsv"
        conda:
            "../envs/analysis.yaml"
        params:
            # The files (trajectories, topology, forces) are inputs; these are the settings the import reads.
            settings={key: config["groundtruth"]["import"][key] for key in GROUNDTRUTH_IMPORT_KEYS},
            on_nonfinite=config["on_nonfinite"],
        script:
            "../scripts/groundtruth_import.py"
