# Structure acquisition and preparation: results/<protein>/prepare/


rule acquire_structure:
    input:
        unpack(structure_input),
    output:
        pdb=PLAN.layout.prepare("{protein}", "structure.pdb"),
        json=PLAN.layout.prepare("{protein}", "structure.json"),
    log:
        "results/{protein}/logs/acquire_structure.log",
    benchmark:
        "results/{protein}/benchmarks/acquire_structure.tsv"
    conda:
        "../envs/openmm.yaml"
    resources:
        **CLUSTER.resources("acquire_structure"),
    params:
        # Only what defines the structure: download settings and folders are read from the
        # config in the script, so changing a timeout does not rerun the protein.
        spec=structure_params,
    script:
        "../scripts/acquire_structure.py"


rule fix_structure:
    input:
        pdb=PLAN.layout.prepare("{protein}", "structure.pdb"),
    output:
        pdb=PLAN.layout.prepare("{protein}", "prepared.pdb"),
        json=PLAN.layout.prepare("{protein}", "fix.json"),
    log:
        "results/{protein}/logs/fix_structure.log",
    benchmark:
        "results/{protein}/benchmarks/fix_structure.tsv"
    conda:
        "../envs/openmm.yaml"
    resources:
        **CLUSTER.resources("fix_structure"),
    params:
        settings=PLAN.params.fix(),
        seed=seed_of("fix_structure"),
    script:
        "../scripts/fix_structure.py"


rule build_system:
    input:
        pdb=PLAN.layout.prepare("{protein}", "prepared.pdb"),
    output:
        system=PLAN.layout.prepare("{protein}", "{solvent}.xml"),
        state=PLAN.layout.prepare("{protein}", "{solvent}_state.xml"),
        pdb=PLAN.layout.prepare("{protein}", "{solvent}.pdb"),
        json=PLAN.layout.prepare("{protein}", "{solvent}.json"),
    log:
        "results/{protein}/logs/build_system_{solvent}.log",
    benchmark:
        "results/{protein}/benchmarks/build_system_{solvent}.tsv"
    priority: CRITICAL_PATH_PRIORITY
    group:
        "prepare_{protein}"
    conda:
        "../envs/openmm.yaml"
    threads: PLAN.params.threads("openmm")
    resources:
        **CLUSTER.resources("build_system", shares_gpu=True),
        gpu=openmm_gpus,
    params:
        settings=system_settings,
        platform=PLAN.params.platform(),
        seed=seed_of("build_system", "solvent"),
    script:
        "../scripts/build_system.py"


rule summarize_preparation:
    input:
        structure=PLAN.layout.prepare("{protein}", "structure.json"),
        fix=PLAN.layout.prepare("{protein}", "fix.json"),
        systems=[PLAN.layout.prepare("{protein}", f"{solvent}.json") for solvent in SOLVENTS],
    output:
        json=PLAN.layout.prepare("{protein}", "summary.json"),
    log:
        "results/{protein}/logs/summarize_preparation.log",
    benchmark:
        "results/{protein}/benchmarks/summarize_preparation.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("summarize_preparation"),
    script:
        "../scripts/summarize_preparation.py"


rule preparation_table:
    input:
        summaries=[PLAN.layout.prepare(p, "summary.json") for p in PROTEINS],
    output:
        csv=report(
            PLAN.layout.table("preparation.csv"),
            caption="../report/preparation.rst",
            category="Preparation",
            labels={"table": "prepared systems"},
        ),
    log:
        "results/logs/preparation_table.log",
    benchmark:
        "results/benchmarks/preparation_table.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("preparation_table"),
    script:
        "../scripts/preparation_table.py"


rule prepare:
    """Target: every configured protein prepared."""
    input:
        [PLAN.layout.prepare(p, "summary.json") for p in PROTEINS],
        PLAN.layout.table("preparation.csv"),
