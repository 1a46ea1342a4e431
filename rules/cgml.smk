# Machine-learned C-alpha CG models, trained by force matching on the ground truth.
# Per protein (cgml.scope: protein): results/<protein>/cg/<preset>/; one model over every protein
# (scope: all): results/cg/<preset>/. WE runs them as engines cg_<preset> (rules/we.smk).


wildcard_constraints:
    preset=r"[a-z0-9_]+",


rule cg_train:
    input:
        unpack(cg_training_input),
    output:
        model="results/{protein}/cg/{preset}/model.pt",
        record="results/{protein}/cg/{preset}/model.json",
        history="results/{protein}/cg/{preset}/training.csv",
        figure=report(
            "results/{protein}/cg/{preset}/training_curve.png",
            caption="../report/cg_training_curve.rst",
            category="CG models",
            subcategory="{protein}",
            labels={"protein": "{protein}", "preset": "{preset}", "figure": "training curve"},
        ),
    params:
        proteins=cg_training_params,
        cgml=cg_training_settings,
        seed=cg_training_seed,
    threads: torch_threads()
    resources:
        gpu=torch_gpus,
    log:
        "results/{protein}/logs/cg_train_{preset}.log",
    benchmark:
        "results/{protein}/benchmarks/cg_train_{preset}.tsv"
    conda:
        "../envs/torch.yaml"
    script:
        "../scripts/cg_train.py"


# One model over every protein (cgml.scope: all): the same job, its files under results/cg/.
use rule cg_train as cg_train_all with:
    output:
        model="results/cg/{preset}/model.pt",
        record="results/cg/{preset}/model.json",
        history="results/cg/{preset}/training.csv",
        figure=report(
            "results/cg/{preset}/training_curve.png",
            caption="../report/cg_training_curve.rst",
            category="CG models",
            subcategory="all proteins",
            labels={"protein": "all", "preset": "{preset}", "figure": "training curve"},
        ),
    log:
        "results/cg/logs/cg_train_{preset}.log",
    benchmark:
        "results/cg/benchmarks/cg_train_{preset}.tsv"


rule cg:
    """Target: every configured CG preset trained (the models the cg_<preset> engines use)."""
    input:
        cg_outputs(),
