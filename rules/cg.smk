# Machine-learned C-alpha CG models, trained by force matching on the ground truth.
# Per protein (cg.scope: protein): results/<protein>/cg/<preset>/; one model over every protein
# (scope: all): results/cg/<preset>/. WE runs them as engines cg_<preset> (rules/we.smk).


wildcard_constraints:
    preset=r"[a-z0-9_]+",
    name=r"[a-z0-9_]+",


rule cg_train:
    input:
        unpack(cg_training_input),
    output:
        model=f"{PLAN.layout.cg_protein_model_dir('{protein}', '{preset}')}/model.pt",
        record=f"{PLAN.layout.cg_protein_model_dir('{protein}', '{preset}')}/model.json",
        history=f"{PLAN.layout.cg_protein_model_dir('{protein}', '{preset}')}/training.csv",
        figure=report(
            f"{PLAN.layout.cg_protein_model_dir('{protein}', '{preset}')}/training_curve.png",
            caption="../report/cg_training_curve.rst",
            category="CG models",
            subcategory="{protein}",
            labels={"protein": "{protein}", "preset": "{preset}", "figure": "training curve"},
        ),
    log:
        "results/{protein}/logs/cg_train_{preset}.log",
    benchmark:
        "results/{protein}/benchmarks/cg_train_{preset}.tsv"
    priority: CRITICAL_PATH_PRIORITY
    conda:
        "../envs/torch.yaml"
    threads: PLAN.params.threads("torch")
    resources:
        **CLUSTER.resources("cg_train"),
        gpu=torch_gpus,
    params:
        proteins=cg_training_params,
        cg=cg_training_settings,
        seed=cg_training_seed,
        known_noise_floor=None,  # estimated from the data (an upper bound) unless a study knows it
    script:
        "../scripts/cg_train.py"


# One model over every protein (cg.scope: all): the same job, its files under results/cg/.
use rule cg_train as cg_train_all with:
    output:
        model=f"{PLAN.layout.cg_shared_model_dir('{preset}')}/model.pt",
        record=f"{PLAN.layout.cg_shared_model_dir('{preset}')}/model.json",
        history=f"{PLAN.layout.cg_shared_model_dir('{preset}')}/training.csv",
        figure=report(
            f"{PLAN.layout.cg_shared_model_dir('{preset}')}/training_curve.png",
            caption="../report/cg_training_curve.rst",
            category="CG models",
            subcategory="all proteins",
            labels={"protein": "all", "preset": "{preset}", "figure": "training curve"},
        ),
    log:
        "results/cg/logs/cg_train_{preset}.log",
    benchmark:
        "results/cg/benchmarks/cg_train_{preset}.tsv"


# A user's model (cg.models.<name>, engine cg_<name>): checked against the model contract on each protein's
# prepared structure before any WE run; never trained, copied or written (its file is an input only).
rule cg_model_check:
    input:
        unpack(cg_model_check_input),
    output:
        check=f"{PLAN.layout.cg_user_model_dir('{protein}', '{name}')}/check.json",
    log:
        "results/{protein}/logs/cg_model_check_{name}.log",
    benchmark:
        "results/{protein}/benchmarks/cg_model_check_{name}.tsv"
    conda:
        "../envs/torch.yaml"
    threads: 1
    resources:
        **CLUSTER.resources("cg_model_check"),
    params:
        model=cg_model_check_params,
    script:
        "../scripts/cg_model_check.py"


# prior: fitted: westbench's prior alone (cg.prior terms, Boltzmann-inverted from the protein's ground truth).
rule cg_prior:
    input:
        unpack(cg_training_input),
    output:
        prior=f"{PLAN.layout.cg_user_model_dir('{protein}', '{name}')}/prior.pt",
        record=f"{PLAN.layout.cg_user_model_dir('{protein}', '{name}')}/prior.json",
    log:
        "results/{protein}/logs/cg_prior_{name}.log",
    benchmark:
        "results/{protein}/benchmarks/cg_prior_{name}.tsv"
    conda:
        "../envs/torch.yaml"
    threads: 1
    resources:
        **CLUSTER.resources("cg_prior"),
    params:
        proteins=cg_training_params,
        cg=PLAN.params.cg_prior(),
        seed=user_model_split_seed,  # its frame split
    script:
        "../scripts/cg_prior.py"


rule cg:
    """Target: every configured CG preset trained (the models the cg_<preset> engines use)."""
    input:
        PLAN.targets.cg_outputs(),
