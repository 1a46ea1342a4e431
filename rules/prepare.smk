# Structure acquisition and preparation: results/<protein>/prepare/


rule acquire_structure:
    input:
        unpack(structure_input),
    output:
        pdb="results/{protein}/prepare/structure.pdb",
        json="results/{protein}/prepare/structure.json",
    log:
        "results/{protein}/logs/acquire_structure.log",
    benchmark:
        "results/{protein}/benchmarks/acquire_structure.tsv"
    conda:
        "../envs/openmm.yaml"
    params:
        # Only what defines the structure: download settings and folders are read from the
        # config in the script, so changing a timeout does not rerun the protein.
        spec=structure_params,
    script:
        "../scripts/acquire_structure.py"


rule fix_structure:
    input:
        pdb="results/{protein}/prepare/structure.pdb",
    output:
        pdb="results/{protein}/prepare/prepared.pdb",
        json="results/{protein}/prepare/fix.json",
    log:
        "results/{protein}/logs/fix_structure.log",
    benchmark:
        "results/{protein}/benchmarks/fix_structure.tsv"
    conda:
        "../envs/openmm.yaml"
    params:
        settings={key: config["preparation"][key] for key in FIX_KEYS},
        seed=lambda wildcards: job_seed(wildcards, "fix_structure"),
    script:
        "../scripts/fix_structure.py"


rule build_system:
    input:
        pdb="results/{protein}/prepare/prepared.pdb",
    output:
        system="results/{protein}/prepare/{solvent}.xml",
        state="results/{protein}/prepare/{solvent}_state.xml",
        pdb="results/{protein}/prepare/{solvent}.pdb",
        json="results/{protein}/prepare/{solvent}.json",
    log:
        "results/{protein}/logs/build_system_{solvent}.log",
    benchmark:
        "results/{protein}/benchmarks/build_system_{solvent}.tsv"
    priority: CRITICAL_PATH_PRIORITY
    conda:
        "../envs/openmm.yaml"
    threads: openmm_threads()
    resources:
        gpu=openmm_gpus,
    params:
        settings=system_settings,
        platform=platform_settings(),
        seed=lambda wildcards: job_seed(wildcards, "build_system", wildcards.solvent),
    script:
        "../scripts/build_system.py"


rule summarize_preparation:
    input:
        structure="results/{protein}/prepare/structure.json",
        fix="results/{protein}/prepare/fix.json",
        systems=expand("results/{{protein}}/prepare/{solvent}.json", solvent=SOLVENTS),
    output:
        json="results/{protein}/prepare/summary.json",
    log:
        "results/{protein}/logs/summarize_preparation.log",
    benchmark:
        "results/{protein}/benchmarks/summarize_preparation.tsv"
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/summarize_preparation.py"


rule preparation_table:
    input:
        summaries=expand("results/{protein}/prepare/summary.json", protein=PROTEINS),
    output:
        csv=report(
            "results/tables/preparation.csv",
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
    script:
        "../scripts/preparation_table.py"


rule prepare:
    """Target: every configured protein prepared."""
    input:
        expand("results/{protein}/prepare/summary.json", protein=PROTEINS),
        "results/tables/preparation.csv",
