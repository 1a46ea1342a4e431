# Ground truth: starting points and production runs (explicit solvent; groundtruth.solvent), results/<protein>/groundtruth/


rule groundtruth_starts:
    input:
        unpack(starts_input),
    output:
        starts=directory(PLAN.layout.groundtruth("{protein}", "starts")),
        table=PLAN.layout.groundtruth("{protein}", "starts.csv"),
    log:
        "results/{protein}/logs/groundtruth_starts.log",
    benchmark:
        "results/{protein}/benchmarks/groundtruth_starts.tsv"
    priority: CRITICAL_PATH_PRIORITY
    group:
        "prepare_{protein}"
    conda:
        "../envs/openmm.yaml"
    threads: PLAN.params.threads("openmm")
    resources:
        **CLUSTER.resources("groundtruth_starts", shares_gpu=True),
        gpu=openmm_gpus,
    params:
        settings=PLAN.params.starts(),
        preparation=PLAN.params.integrator(),
        platform=PLAN.params.platform(),
        n_starts=n_starts,
        seed=seed_of("groundtruth_starts"),
    script:
        "../scripts/groundtruth_starts.py"


rule groundtruth_run:
    input:
        starts=PLAN.layout.groundtruth("{protein}", "starts"),
    output:
        trajectory=PLAN.layout.groundtruth_run("{protein}", "{start}", TRAJECTORY),
        topology=PLAN.layout.groundtruth_run("{protein}", "{start}", "topology.pdb"),
        frames=PLAN.layout.groundtruth_run("{protein}", "{start}", "frames.h5"),
        summary=PLAN.layout.groundtruth_run("{protein}", "{start}", "summary.json"),
    log:
        "results/{protein}/logs/groundtruth_run_{start}.log",
    benchmark:
        "results/{protein}/benchmarks/groundtruth_run_{start}.tsv"
    priority: CRITICAL_PATH_PRIORITY
    group:
        "groundtruth_{protein}"
    conda:
        "../envs/openmm.yaml"
    threads: PLAN.params.threads("openmm")
    resources:
        **CLUSTER.resources("groundtruth_run", shares_gpu=True),
        gpu=openmm_gpus,
    params:
        # Checkpoints and frame chunks live here, outside the declared outputs, so a killed or
        # failed job resumes from its last checkpoint instead of restarting.
        workdir=groundtruth_checkpoints,
        groundtruth=PLAN.params.groundtruth_run(),
        preparation=PLAN.params.groundtruth_solvent(),  # the start in the ground truth's solvent
        platform=PLAN.params.platform(),
        seed=run_seed,
    script:
        "../scripts/groundtruth_run.py"


rule groundtruth_throughput:
    input:
        summaries=PLAN.targets.groundtruth_summaries(),
    output:
        csv=report(
            PLAN.layout.table("groundtruth_throughput.csv"),
            caption="../report/groundtruth_throughput.rst",
            category="Ground truth",
            labels={"table": "throughput per run (ns/day)"},
        ),
        by_protein=report(
            PLAN.layout.table("groundtruth_throughput_by_protein.csv"),
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
    resources:
        **CLUSTER.resources("groundtruth_throughput"),
    script:
        "../scripts/groundtruth_throughput.py"


rule groundtruth:
    """Target: every ground-truth run of every configured protein."""
    input:
        PLAN.targets.groundtruth_summaries(),
        PLAN.layout.table("groundtruth_throughput.csv"),


# groundtruth.source import: the rule exists only then, and wins over groundtruth_run.
if GROUNDTRUTH_IMPORT:

    ruleorder: groundtruth_import > groundtruth_run

    rule groundtruth_import:
        """groundtruth.source import: one trajectory simulated elsewhere becomes one ground-truth run."""
        input:
            unpack(import_input),
        output:
            trajectory=PLAN.layout.groundtruth_run("{protein}", "{start}", TRAJECTORY),
            topology=PLAN.layout.groundtruth_run("{protein}", "{start}", "topology.pdb"),
            frames=PLAN.layout.groundtruth_run("{protein}", "{start}", "frames.h5"),
            summary=PLAN.layout.groundtruth_run("{protein}", "{start}", "summary.json"),
        log:
            "results/{protein}/logs/groundtruth_import_{start}.log",
        benchmark:
            "results/{protein}/benchmarks/groundtruth_import_{start}.tsv"
        conda:
            "../envs/analysis.yaml"
        params:
            # The files (trajectories, topology, forces) are inputs; these are the settings the import reads.
            settings=PLAN.params.groundtruth_import(),
            on_nonfinite=config["on_nonfinite"],
        script:
            "../scripts/groundtruth_import.py"
