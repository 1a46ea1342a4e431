# Shared setup: the validated config, its plan (westbench.plan) and the Snakemake side of it: wildcard
# constraints, input functions as one-liners asking the plan, and what needs `workflow` itself.

from functools import partial
from pathlib import Path

# Snakemake puts the workflow folder on sys.path; scripts/_library.py puts src/ there, as it does for every script.
from scripts import _library  # noqa: F401

from snakemake.logging import logger

from westbench import config as wb_config
from westbench.errors import ConfigError
from westbench.simulation import SOLVENTS
from westbench.plan import Plan

try:
    config = wb_config.validate_config(
        config,
        wb_config.load_schema(Path(workflow.basedir) / "config" / "schema.yaml"),
        sources=[*workflow.configfiles, *(["--config"] if workflow.config_settings.config else [])],
    )
    # Who takes part, where every file lives and what each job reads; every cross-check of the config's
    # sections (engines, CG models, ground truth, the calibration study) is made here, before any job runs.
    PLAN = Plan.from_config(config, root=workflow.basedir)
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None

PROTEINS = PLAN.roster.proteins
GROUNDTRUTH_IMPORT = PLAN.roster.groundtruth_import
TRAJECTORY = PLAN.layout.trajectory
# A per-engine override wins over the section's value: state once what each engine will run with, and why.
for _line in PLAN.roster.notes():
    logger.info(_line)


wildcard_constraints:
    protein=r"[a-z0-9][a-z0-9_-]*",
    solvent="|".join(SOLVENTS),
    start=r"[A-Za-z0-9_.-]+",
    engine=r"[A-Za-z0-9_-]+",
    replica=r"[0-9]+",


# Scheduling only (never a result): the main study's chain, system -> ground-truth starts and runs -> TICA ->
# CG training and WE runs, is the DAG's critical path (the explicit system, the ground-truth runs and the
# explicit WE run are its longest jobs), so its jobs take a free core first; the calibration study's many short
# jobs (rules/calibration.smk, priority 0) fill the other. Without it the study's jobs took both cores early
# and the ground-truth runs waited.
CRITICAL_PATH_PRIORITY = 1


def of_wildcards(answer, *names):
    """An input function asking the plan with the wildcards ``names``: an id not in the config names the config
    files read."""

    def function(wildcards):
        try:
            return answer(*(getattr(wildcards, name) for name in names))
        except ConfigError as exc:
            files = ", ".join(map(str, workflow.configfiles)) or "none"
            raise WorkflowError(f"{exc} Config files read: {files}.") from None

    return function


def of_protein(answer):
    """An input function of the wildcard protein (:func:`of_wildcards`)."""
    return of_wildcards(answer, "protein")


# Input functions and params: one line each, the plan answers (rules pass only the config keys a job reads).
structure_input = of_protein(PLAN.inputs.structure)
structure_params = of_protein(PLAN.params.structure)
starts_input = of_protein(PLAN.inputs.starts)


def job_seed(wildcards, stage, *more):
    return PLAN.params.seed(getattr(wildcards, "protein", "all"), stage, *more)


def seed_of(stage, *names):
    """The seed of a job's ``stage`` for its protein and the values of its wildcards ``names`` (:func:`job_seed`)."""
    return lambda wildcards: job_seed(wildcards, stage, *(getattr(wildcards, name) for name in names))


def user_model_split_seed(wildcards):
    return job_seed(wildcards, "cg_train", f"model_{wildcards.name}")  # your model's frame split


def external_spec(wildcards):
    return config["external"][wildcards.engine]


def groundtruth_checkpoints(wildcards):
    return PLAN.layout.groundtruth_run(wildcards.protein, wildcards.start, "checkpoints")


def engine_costs(wildcards):
    return PLAN.targets.engine_frames(wildcards.protein, "cost.csv")


def n_starts(wildcards):
    return PLAN.roster.n_starts(wildcards.protein)


def run_seed(wildcards):
    return job_seed(wildcards, "groundtruth_run", wildcards.start)


def groundtruth_frames(wildcards):
    return PLAN.targets.groundtruth_frames(wildcards.protein)


def import_input(wildcards):
    return PLAN.inputs.groundtruth_import(wildcards.protein, wildcards.start)


def system_settings(wildcards):
    return PLAN.params.system(wildcards.solvent)


def openmm_gpus(wildcards=None):
    return PLAN.params.gpus("openmm")


def torch_gpus(wildcards=None):
    return PLAN.params.gpus("torch")


def kind_of(wildcards):
    return PLAN.roster.kind(wildcards.engine)


def we_run_input(wildcards):
    return PLAN.inputs.we_run(wildcards.protein, wildcards.engine)


def we_job_run_dir(wildcards):
    return PLAN.layout.we_run_dir(wildcards.protein, wildcards.engine, getattr(wildcards, "replica", None))


def we_run_dirs(wildcards):
    return PLAN.targets.we_run_dirs(wildcards.protein, wildcards.engine)


def we_run_summaries(wildcards):
    return PLAN.targets.we_run_summaries(wildcards.protein, wildcards.engine)


def we_threads(wildcards):
    return PLAN.params.we_threads(wildcards.engine)


def we_gpus(wildcards):
    return PLAN.params.we_gpus(wildcards.engine)


def we_settings(wildcards):
    return PLAN.params.we(wildcards.engine)


def we_engine_preparation(wildcards):
    return PLAN.params.we_engine_preparation(wildcards.engine)


def we_engine_platform(wildcards):
    return PLAN.params.we_engine_platform(wildcards.engine)


def we_engine_cg(wildcards):
    return PLAN.params.we_engine_cg(wildcards.engine)


def we_seed(wildcards):
    return PLAN.params.we_seed(wildcards.protein, wildcards.engine, getattr(wildcards, "replica", None))


def we_timestep_fs(wildcards):
    return PLAN.params.we_timestep_fs(wildcards.engine)


def external_input(wildcards):
    return PLAN.inputs.external(wildcards.protein, wildcards.engine)


def cg_training_input(wildcards):
    return PLAN.inputs.cg_training(getattr(wildcards, "protein", None))


def cg_training_params(wildcards):
    return PLAN.inputs.cg_training_proteins_params(getattr(wildcards, "protein", None))


def cg_training_settings(wildcards):
    return PLAN.params.cg_training(wildcards.preset)


def cg_training_seed(wildcards):
    return job_seed(wildcards, "cg_train", wildcards.preset)


def cg_model_check_input(wildcards):
    return PLAN.inputs.cg_model_check(wildcards.protein, wildcards.name)


def cg_model_check_params(wildcards):
    return PLAN.params.cg_model_check(wildcards.name)


def metrics_seed(wildcards):
    return job_seed(wildcards, "metrics", wildcards.engine)


def metrics_model_frames(wildcards):
    return PLAN.inputs.metrics_model_frames(wildcards.protein, wildcards.engine)


def metrics_training_record(wildcards):
    return PLAN.inputs.metrics_training_record(wildcards.protein, wildcards.engine)


# The calibration study (rules/calibration.smk): results/calibration/<study>/, its jobs' identity the study's.


def study_seed(stage, *names):
    """The seed of a calibration job's ``stage`` and the values of its wildcards ``names`` (westbench.plan.calibration)."""
    return of_wildcards(partial(PLAN.calibration.seed, stage), *names)


def calibration_we_input(wildcards):
    return PLAN.calibration.we_input(wildcards.engine, getattr(wildcards, "replica", None))


def calibration_we_settings(wildcards):
    return PLAN.calibration.we_settings(wildcards.engine)


def calibration_engine_cg(wildcards):
    return PLAN.calibration.engine_cg(wildcards.engine)


def calibration_training_params(wildcards):
    return PLAN.calibration.training_proteins(wildcards.protein)


def calibration_training_settings(wildcards):
    return PLAN.calibration.training_settings(PLAN.params.cg_training(wildcards.preset))


# What needs Snakemake's `workflow`: the rules' declared captions and benchmark patterns.


def slurm_profile_text(wildcards=None):
    return Path(workflow.basedir, "profiles", "slurm", "config.yaml").read_text()


def rule_names(wildcards=None):
    return sorted(rule.name for rule in workflow.rules)


# The rules whose report() figures and tables the HTML report shows: it renders the caption files they declare.
HTML_REPORT_CAPTION_RULES = (
    "fit_tica",
    "cg_train",
    "metric_suite",
    "protein_figures",
    "metric_tables",
    "groundtruth_throughput",
    "calibration_table",
)


def declared_captions(wildcards=None):
    """{output file stem: caption template} of every report() output of HTML_REPORT_CAPTION_RULES: the one
    caption source, declared once in the rules and shown by both `snakemake --report` and the HTML report."""
    captions = {}
    for name in HTML_REPORT_CAPTION_RULES:
        for item in workflow.get_rule(name).output:
            caption = item.flags["report"].caption if "report" in item.flags else None
            if caption is None:
                continue
            stem = Path(str(item)).stem
            with workflow.sourcecache.open(caption) as source:
                text = source.read()
            if captions.get(stem, text) != text:
                raise WorkflowError(
                    f"two outputs named {stem} declare different captions; the HTML report "
                    "finds a caption by the output's file name: rename one."
                )
            captions[stem] = text
    return captions


def html_report_caption_config(wildcards=None):
    """Only the config keys the declared captions read."""
    from westbench.report.captions import caption_config

    return caption_config(config, declared_captions().values())


def benchmark_patterns(wildcards=None):
    """{rule: its benchmark: pattern}: compute_tables attributes each benchmark file to the rule that wrote it."""
    return {rule.name: str(rule.benchmark) for rule in workflow.rules if rule.benchmark}
