# Engine kind external: samples produced elsewhere (config `external`), results/<protein>/external/<engine>/
# The export has the WE export's contract (frames.h5 with TICs, cost.csv), so metrics, tables and
# the report treat these engines like the ones in we.engines.


rule external_import:
    input:
        unpack(external_input),
    output:
        frames=PLAN.layout.external_export("{protein}", "{engine}", "frames.h5"),
        cost=report(
            PLAN.layout.external_export("{protein}", "{engine}", "cost.csv"),
            caption="../report/we_cost.rst",
            category="Weighted ensemble",
            subcategory="{protein}",
            labels={"protein": "{protein}", "engine": "{engine}", "table": "compute per iteration"},
        ),
    log:
        "results/{protein}/logs/external_import_{engine}.log",
    benchmark:
        "results/{protein}/benchmarks/external_import_{engine}.tsv"
    conda:
        "../envs/analysis.yaml"
    resources:
        **CLUSTER.resources("external_import"),
    params:
        spec=external_spec,
        coverage_bins=config["metrics"]["coverage_bins"],
        on_nonfinite=config["on_nonfinite"],
    script:
        "../scripts/external_import.py"
