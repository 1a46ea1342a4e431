# Shared setup: validated config, protein lookups and input functions.

from pathlib import Path

# Snakemake puts the workflow folder on sys.path; scripts/_library.py puts src/ there, as it does for every script.
from scripts import _library  # noqa: F401

from snakemake.logging import logger

from westbench import config as wb_config
from westbench import __version__ as WESTBENCH_VERSION
from westbench.errors import ConfigError
from westbench import resources as wb_resources
from westbench.jobkeys import job_keys
from westbench.engines.kinds import (
    CG,
    CG_PREFIX,
    EXTERNAL,
    GROUNDTRUTH,
    OPENMM,
    SOLVENTS,
    USER,
    cg_preset_of,
    engine_kind,
)
from westbench.engines import user as wb_user_engines

try:
    config = wb_config.validate_config(
        config,
        wb_config.load_schema(Path(workflow.basedir) / "config" / "schema.yaml"),
        sources=[*workflow.configfiles, *(["--config"] if workflow.config_settings.config else [])],
    )
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None

PROTEINS = wb_config.protein_ids(config)


wildcard_constraints:
    protein=r"[a-z0-9][a-z0-9_-]*",
    solvent="|".join(SOLVENTS),
    start=r"[A-Za-z0-9_.-]+",
    engine=r"[A-Za-z0-9_-]+",
    replica=r"[0-9]+",


def protein(wildcards):
    """The spec of the target's protein; a clear error for an id not in the config."""
    try:
        return wb_config.protein_spec(config, wildcards.protein)
    except ConfigError as exc:
        files = ", ".join(map(str, workflow.configfiles)) or "none"
        raise WorkflowError(f"{exc} Config files read: {files}.") from None


def structure_input(wildcards):
    """A `file` source is an input of acquisition, so editing it reruns the protein."""
    spec = protein(wildcards)
    return {"source": spec.path} if spec.source == "file" else {}


def structure_params(wildcards):
    """Acquisition settings that change what a protein's structure is."""
    spec = protein(wildcards)
    return {
        "source": spec.source,
        "pdb_id": spec.pdb_id,
        "sequence": spec.sequence,
        "chains": spec.chains,
        "residues": spec.residues,
        "path": spec.path,
    }


def prepared_outputs(protein_id):
    return f"results/{protein_id}/prepare/summary.json"


def all_outputs():
    return (
        [prepared_outputs(p) for p in PROTEINS]
        + ["results/tables/preparation.csv", "results/tables/groundtruth_throughput.csv"]
        + [f"results/{p}/tica/{name}" for p in PROTEINS for name in ("model.json", "tic01_density.png")]
        + [path for p in PROTEINS for path in we_outputs(p)]
        + [path for p in PROTEINS for path in metrics_outputs(p)]
        + cg_outputs()
        + [
            "results/tables/w1.csv",
            "results/tables/kl.csv",
            "results/tables/coverage.csv",
            "results/report/westbench.html",
            "results/tables/resource_requests.csv",
        ]
        + calibration_outputs()
    )


def n_starts(protein_id):
    """Starting points of a protein: its `n_starts`, else groundtruth.starts.count."""
    entry = next(p for p in config["proteins"] if p["id"] == protein_id)
    return entry.get("n_starts") or config["groundtruth"]["starts"]["count"]


def starts_folder(protein_id):
    """For starts source `directory`: the user's folder of start PDBs."""
    template = config["groundtruth"]["starts"]["directory"]
    if not template:
        raise WorkflowError(
            "groundtruth.starts.source is 'directory' but groundtruth.starts.directory is not set; "
            'set it to a folder of PDB files ("{protein}" is replaced by the protein id).'
        )
    return Path(template.format(protein=protein_id))


GROUNDTRUTH_IMPORT = config["groundtruth"]["source"] == "import"


def imported_trajectories(protein_id):
    """For groundtruth.source import: run id -> trajectory file of a protein."""
    from westbench.trajectories import import_names, trajectory_files
    from westbench.errors import WestbenchError

    setting = config["groundtruth"]["import"]["trajectories"]
    files = trajectory_files(setting or [], protein_id)
    if not files:
        raise WorkflowError(
            f"protein '{protein_id}': groundtruth.source is 'import' but groundtruth.import.trajectories "
            f"({setting!r}) matches no file; give a glob or list of trajectory files."
        )
    try:
        import_names(files)  # unique names, or a clear error
    except WestbenchError as exc:
        raise WorkflowError(str(exc)) from None
    return dict(sorted((import_names([f])[0], f) for f in files))


def start_ids(protein_id):
    """Ids of a protein's ground-truth runs: s0000.. when generated, file stems for a directory or an import."""
    if GROUNDTRUTH_IMPORT:
        return list(imported_trajectories(protein_id))
    if config["groundtruth"]["starts"]["source"] == "directory":
        files = sorted(starts_folder(protein_id).glob("*.pdb"))
        if not files:
            raise WorkflowError(
                f"protein '{protein_id}': no *.pdb start structures in {starts_folder(protein_id)}; "
                "add them or use groundtruth.starts.source: generate."
            )
        return [f.stem for f in files]
    return [f"s{i:04d}" for i in range(n_starts(protein_id))]


def starts_input(wildcards):
    protein(wildcards)
    prepared = {"pdb": f"results/{wildcards.protein}/prepare/prepared.pdb"}
    if config["groundtruth"]["starts"]["source"] == "directory":
        return {**prepared, "files": sorted(map(str, starts_folder(wildcards.protein).glob("*.pdb")))}
    return {
        **prepared,
        "system": f"results/{wildcards.protein}/prepare/implicit.xml",
        "state": f"results/{wildcards.protein}/prepare/implicit_state.xml",
    }


def job_seed(wildcards, stage, *more):
    """The seed of one protein's stage (westbench.seeds.stage_seed: the one derivation from `seed`)."""
    from westbench.seeds import stage_seed as derive

    return derive(config["seed"], getattr(wildcards, "protein", "all"), stage, *more)


def starts_seed(wildcards):
    return job_seed(wildcards, "groundtruth_starts")


def run_seed(wildcards):
    return job_seed(wildcards, "groundtruth_run", wildcards.start)


def groundtruth_frames(wildcards):
    return expand(
        "results/{protein}/groundtruth/runs/{start}/frames.h5",
        protein=wildcards.protein,
        start=start_ids(wildcards.protein),
    )


def groundtruth_summaries(wildcards=None):
    return [f"results/{p}/groundtruth/runs/{s}/summary.json" for p in PROTEINS for s in start_ids(p)]


# Threads and GPUs of every job: westbench.resources owns the policy (a cluster profile's set-threads and
# set-resources still override it per rule).


# The config keys each job reads come from the schema through westbench.jobkeys (its JOBS table names each
# job's section and the keys it deliberately leaves out, with the reason).
# What OpenMM reads of `platform` (cpu_threads reaches jobs as their threads, which rerun nothing).
PLATFORM_KEYS = job_keys("platform")


def platform_settings(wildcards=None):
    return {key: config["platform"][key] for key in PLATFORM_KEYS}


def openmm_threads(wildcards=None):
    return wb_resources.job_threads("openmm", config["platform"])


def openmm_gpus(wildcards=None):
    return wb_resources.job_gpus("openmm", config["platform"])


def torch_threads(wildcards=None):
    return wb_resources.job_threads("torch", config["platform"])


def torch_gpus(wildcards=None):
    return wb_resources.job_gpus("torch", config["platform"], device=config["cg"]["device"])


def engine_work(engine):
    """What a WE engine runs: torch for CG models, OpenMM for the OpenMM engines, a user engine's `work`."""
    if kind_of(engine) == USER:
        return USER_ENGINES[engine]["work"]
    return "torch" if is_cg_engine(engine) else "openmm"


def we_threads(wildcards):
    return wb_resources.job_threads(
        engine_work(wildcards.engine), config["platform"], work_manager=config["we"]["work_manager"]
    )


def we_gpus(wildcards):
    return wb_resources.job_gpus(engine_work(wildcards.engine), config["platform"], device=config["cg"]["device"])


TRAJECTORY = f"trajectory.{config['groundtruth']['trajectory_format']}"

# Scheduling only (never a result): the main study's chain, system -> ground-truth starts and runs -> TICA ->
# CG training and WE runs, is the DAG's critical path (the explicit system, the ground-truth runs and the
# explicit WE run are its longest jobs), so its jobs take a free core first; the calibration study's many short
# jobs (rules/calibration.smk, priority 0) fill the other. Without it the study's jobs took both cores early
# and the ground-truth runs waited.
CRITICAL_PATH_PRIORITY = 1


# we.engines items are names of built-in engines or entries naming a user's class ({name, class, options, ...}):
# ENGINES holds the names; USER_ENGINES the entries, each imported and checked against the engine contract here.
ENGINES = [wb_user_engines.engine_name(item) for item in config["we"]["engines"]]
USER_ENGINES = {item["name"]: item for item in config["we"]["engines"] if wb_user_engines.is_user_entry(item)}
_repeated = sorted({name for name in ENGINES if ENGINES.count(name) > 1})
if _repeated:
    raise WorkflowError(f"we.engines names {_repeated} more than once; give each engine one entry.")
for _index, _item in enumerate(config["we"]["engines"]):
    if wb_user_engines.is_user_entry(_item):
        try:
            wb_user_engines.check_engine_entry(_item, _index)
        except ConfigError as exc:
            raise WorkflowError(str(exc)) from None
# Engine kind external (rules/external.smk): samples produced elsewhere, scored like the WE engines.
EXTERNAL_ENGINES = list(config["external"])
_clash = sorted(set(EXTERNAL_ENGINES) & {*ENGINES, GROUNDTRUTH})
if _clash:
    raise WorkflowError(f"external engines {_clash} share a name with we.engines or 'groundtruth'; rename them.")
SCORED_ENGINES = [*ENGINES, *EXTERNAL_ENGINES]

# Params hold only the config keys a job reads (a per-engine job: only its own engine's values), so
# that editing the engine list, another engine's settings or a table/report setting reruns nothing
# that does not read it (Snakemake reruns a job whose params changed).
WE_RUN_KEYS = job_keys("we_run")


def we_max_iterations(engine):
    """The iteration cap of one engine: its `we.max_iterations_by_engine` entry, else `we.max_iterations`."""
    return config["we"]["max_iterations_by_engine"].get(engine, config["we"]["max_iterations"])


def we_replicas(engine):
    """Independent WE runs of one engine: its `we.replicas_by_engine` entry, else `we.replicas`."""
    return config["we"]["replicas_by_engine"].get(engine, config["we"]["replicas"])


# A per-engine override wins over the section's value: state once what each engine will run with, and why.
for _engine in ENGINES:
    _overridden = _engine in config["we"]["max_iterations_by_engine"]
    _source = f"we.max_iterations_by_engine.{_engine}" if _overridden else "we.max_iterations"
    logger.info(f"we_run {_engine}: max_iterations {we_max_iterations(_engine)} (from {_source})")
    if we_replicas(_engine) > 1:
        _source = f"we.replicas_by_engine.{_engine}" if _engine in config["we"]["replicas_by_engine"] else "we.replicas"
        logger.info(f"we_run {_engine}: {we_replicas(_engine)} replicas (from {_source})")


def we_replica_ids(engine):
    """The replica ids of an engine's WE runs: [None] for a single run (no replica folder), else 0..n-1."""
    n = we_replicas(engine)
    return [None] if n == 1 else list(range(n))


def we_run_dir(protein_id, engine, replica=None):
    """The one path pattern of a WE run's folder: results/{protein}/we/{engine} for an engine's single run,
    results/{protein}/we/{engine}/replica_{replica} for replica k of several. Rules pass wildcard
    patterns ("{protein}", "{engine}", "{replica}") for their output patterns."""
    folder = f"results/{protein_id}/we/{engine}"
    return folder if replica is None else f"{folder}/replica_{replica}"


def we_job_run_dir(wildcards):
    """The run folder of one WE job: the single run (we_run) or one replica of several (we_run_replica)."""
    return we_run_dir(wildcards.protein, wildcards.engine, getattr(wildcards, "replica", None))


def we_run_dirs(wildcards):
    """Every run folder of an engine (one per replica), in replica order: what we_export pools."""
    return [we_run_dir(wildcards.protein, wildcards.engine, k) for k in we_replica_ids(wildcards.engine)]


def we_run_summaries(wildcards):
    return [f"{folder}/run.json" for folder in we_run_dirs(wildcards)]


def we_settings(wildcards):
    """The `we` keys a WE run reads, with this engine's iteration cap resolved (no engine list, no other engine's cap)."""
    settings = {key: config["we"][key] for key in WE_RUN_KEYS}
    settings["max_iterations"] = we_max_iterations(wildcards.engine)
    if config["we"]["coverage_target"] is not None:  # the stop reads the one grid; without it the grid reruns no WE run
        settings["coverage_bins"] = config["metrics"]["coverage_bins"]
    if kind_of(wildcards.engine) == OPENMM:
        settings["batch_walkers"] = config["we"]["batch_walkers"]  # OpenMM engines only
    if kind_of(wildcards.engine) == USER:  # a user engine's entry: editing it restarts its runs, no other engine's
        settings["user_engine"] = USER_ENGINES[wildcards.engine]
    return settings


def we_seed(wildcards):
    """A WE run's seed: the engine's for a single run and replica 0, the replica's own for replica k >= 1."""
    replica = int(getattr(wildcards, "replica", 0))
    if replica == 0:
        return job_seed(wildcards, "we", wildcards.engine)
    return job_seed(wildcards, "we", wildcards.engine, replica)


def we_outputs(protein_id):
    return [f"results/{protein_id}/we/{engine}/{name}" for engine in ENGINES for name in ("frames.h5", "cost.csv")]


def metrics_seed(wildcards):
    """Seed of the metric suite's stochastic steps (KMeans, figure subsampling) for one protein and engine."""
    return job_seed(wildcards, "metrics", wildcards.engine)


def metrics_model_frames(wildcards):
    """The frames a metrics job scores: an engine's export, or the ground truth itself for engine `groundtruth`."""
    if kind_of(wildcards.engine) == GROUNDTRUTH:
        return f"results/{wildcards.protein}/tica/groundtruth_frames.h5"
    return engine_output(wildcards.protein, wildcards.engine, "frames.h5")


def metrics_training_record(wildcards):
    """A trained CG engine's model record (its training summary goes into metrics.json); nothing for other engines."""
    if (
        kind_of(wildcards.engine) != CG or cg_user_model(wildcards.engine) is not None
    ):  # a user's model is not trained here
        return []
    return [f"{cg_model_dir(wildcards.protein, cg_preset(wildcards.engine))}/model.json"]


def metric_records(protein_ids=None):
    """[protein, engine] of every metrics job (the scored engines, then the ground-truth sanity check), in the
    order of all_metrics_json: the HTML report receives these identities instead of parsing paths."""
    return [
        [protein_id, engine] for protein_id in (protein_ids or PROTEINS) for engine in [*SCORED_ENGINES, GROUNDTRUTH]
    ]


def metrics_outputs(protein_id):
    return [f"results/{p}/metrics/{engine}/metrics.json" for p, engine in metric_records([protein_id])]


def all_metrics_json(wildcards=None):
    return [path for protein in PROTEINS for path in metrics_outputs(protein)]


def all_metrics_csv(wildcards=None):
    return [path.replace("metrics.json", "metrics.csv") for path in all_metrics_json()]


def engine_output(protein_id, engine, name):
    """The one path pattern of an engine's exported files: WE engines under we/, external ones under external/."""
    return f"results/{protein_id}/{'external' if kind_of(engine) == EXTERNAL else 'we'}/{engine}/{name}"


def scored_engine_records(protein_ids=None):
    """[protein, engine] of every scored engine, in the order the input functions below list their files:
    aggregation jobs receive these identities as params instead of parsing them back out of paths."""
    return [[protein_id, engine] for protein_id in (protein_ids or PROTEINS) for engine in SCORED_ENGINES]


def all_we_costs(wildcards=None):
    return [engine_output(protein_id, engine, "cost.csv") for protein_id, engine in scored_engine_records()]


def report_summary(wildcards=None):
    """Key facts of this configuration for the head of the HTML report."""
    return {
        "proteins": ", ".join(PROTEINS),
        "engines": ", ".join(SCORED_ENGINES),
        "seed": config["seed"],
        "platform": config["platform"]["name"],
        **(
            {"ground truth": f'imported: {config["groundtruth"]["import"]["trajectories"]}'}
            if GROUNDTRUTH_IMPORT
            else {
                "ground-truth starts x length (ps)": f'{config["groundtruth"]["starts"]["count"]} x {config["groundtruth"]["length_ps"]}'
            }
        ),
        # Each engine's own cap (we.max_iterations_by_engine over we.max_iterations), as its we_run job reads it.
        "WE iterations (max)": ", ".join(f"{engine} {we_max_iterations(engine)}" for engine in ENGINES),
        "WE replicas": ", ".join(f"{engine} {we_replicas(engine)}" for engine in ENGINES),
        "metric weightings": ", ".join(config["metrics"]["weightings"]),
        "KL floor": config["metrics"]["kl_floor"],
        "westbench": WESTBENCH_VERSION,
    }


# Machine-learned CG engines: we.engines entries cg_<preset> (rules/cg.smk); westbench.engines.kinds decides.


def kind_of(engine):
    """The kind of an engine name (openmm, cg, external, groundtruth): westbench.engines.kinds decides it."""
    try:
        return engine_kind(engine, external=EXTERNAL_ENGINES, user=USER_ENGINES)
    except ConfigError as exc:
        raise WorkflowError(str(exc)) from None


def is_cg_engine(engine):
    return kind_of(engine) == CG


# A user's CG model (cg.models.<name>, engine cg_<name>): read from its path, never trained or written here.
USER_MODELS = config["cg"]["models"]
_clash = sorted(set(USER_MODELS) & set(config["cg"]["presets"]))
if _clash:
    raise WorkflowError(
        f"cg.models {_clash} share a name with cg.presets: engine cg_<name> would be both a "
        "trained preset and your model; rename the model."
    )
for _name, _entry in USER_MODELS.items():
    if Path(_entry["path"]).resolve().is_relative_to(Path("results").resolve()):
        raise WorkflowError(
            f"cg.models.{_name}: path {_entry['path']!r} is under results/, where the workflow "
            "writes (cg_train writes results/.../model.pt). Fix: keep your model outside results/, "
            "e.g. models/."
        )


def cg_user_model(engine):
    """The cg.models entry a CG engine runs, or None for a trained preset."""
    return USER_MODELS.get(cg_preset_of(engine)) if is_cg_engine(engine) else None


def cg_preset(engine):
    preset = cg_preset_of(engine)
    if preset not in config["cg"]["presets"]:
        models = f"; cg.models: {', '.join(sorted(USER_MODELS))}" if USER_MODELS else ""
        raise WorkflowError(
            f"engine '{engine}': no preset '{preset}' in cg.presets "
            f"({', '.join(sorted(config['cg']['presets']))}) and no model '{preset}' in "
            f"cg.models{models}. Fix: add a preset, or your model under cg.models.{preset} "
            "(docs/bring-your-own.md)."
        )
    return preset


def cg_user_model_dir(protein_id, engine):
    """Where westbench's files about a user's model go (its check, its fitted prior): never the model itself."""
    return f"results/{protein_id}/cg/model_{cg_preset_of(engine)}"


def cg_user_model_file(protein_id, engine):
    return cg_user_model(engine)["path"].replace("{protein}", protein_id)


def user_model_files(protein_id, engine):
    """A user's model file, the basis structure it is checked on and, with prior: fitted, westbench's prior."""
    files = {"model": cg_user_model_file(protein_id, engine), "basis": f"results/{protein_id}/prepare/implicit.pdb"}
    if cg_user_model(engine)["prior"] == "fitted":
        files["prior"] = f"{cg_user_model_dir(protein_id, engine)}/prior.pt"
    return files


def cg_model_check_input(wildcards):
    return user_model_files(wildcards.protein, f"{CG_PREFIX}{wildcards.name}")


def cg_model_check_params(wildcards):
    """The model's cg.models entry (what loading and checking it reads)."""
    engine = f"{CG_PREFIX}{wildcards.name}"
    if cg_user_model(engine) is None:
        raise WorkflowError(f"no model '{wildcards.name}' in cg.models")
    return cg_user_model(engine)


def cg_prior_settings(wildcards):
    """What fitting westbench's prior for a user's model reads of `cg`."""
    return {"prior": config["cg"]["prior"], "langevin": {"temperature_k": config["cg"]["langevin"]["temperature_k"]}}


def cg_model_dir(protein_id, preset):
    """Where a preset's model lives: per protein, or one model over all proteins (cg.scope)."""
    return f"results/cg/{preset}" if config["cg"]["scope"] == "all" else f"results/{protein_id}/cg/{preset}"


def cg_model_records():
    """[protein, preset] of every CG model (protein "all" for one model over every protein, cg.scope all)."""
    presets = sorted({cg_preset(e) for e in ENGINES if is_cg_engine(e) and cg_user_model(e) is None})
    proteins = ["all"] if config["cg"]["scope"] == "all" else PROTEINS
    return [[p, preset] for p in proteins for preset in presets]


def cg_outputs():
    return [
        f"{cg_model_dir(p, preset)}/{name}"
        for p, preset in cg_model_records()
        for name in ("model.pt", "training_curve.png")
    ]


def training_curves(wildcards=None):
    """Every CG model's training curve, in cg_model_records order."""
    return [f"{cg_model_dir(p, preset)}/training_curve.png" for p, preset in cg_model_records()]


def cg_training_proteins(wildcards):
    """Protein ids a training job uses: its own, or every protein (scope all)."""
    return PROTEINS if getattr(wildcards, "protein", None) is None else [wildcards.protein]


def cg_training_input(wildcards):
    proteins = cg_training_proteins(wildcards)
    return {
        "frames": [f"results/{p}/groundtruth/runs/{s}/frames.h5" for p in proteins for s in start_ids(p)],
        "topologies": [f"results/{p}/prepare/implicit.pdb" for p in proteins],
    }


def cg_training_params(wildcards):
    proteins = cg_training_proteins(wildcards)
    return {
        p: {
            "frames": [f"results/{p}/groundtruth/runs/{s}/frames.h5" for s in start_ids(p)],
            "topology": f"results/{p}/prepare/implicit.pdb",
        }
        for p in proteins
    }


def cg_training_seed(wildcards):
    return job_seed(wildcards, "cg_train", wildcards.preset)


def we_run_input(wildcards):
    """OpenMM engines read the prepared system; CG engines the trained model and the basis structure; a user
    engine its entry's prepared system and the basis structure (the files its option placeholders name)."""
    protein_id = wildcards.protein
    common = {
        "tica": f"results/{protein_id}/tica/model.json",
        "groundtruth": f"results/{protein_id}/tica/groundtruth_frames.h5",
    }
    if kind_of(wildcards.engine) == USER:
        system = USER_ENGINES[wildcards.engine]["system"]
        return {
            **common,
            "system": f"results/{protein_id}/prepare/{system}.xml",
            "state": f"results/{protein_id}/prepare/{system}_state.xml",
            "topology": f"results/{protein_id}/prepare/{system}.pdb",
            "basis": f"results/{protein_id}/prepare/implicit.pdb",
        }
    if cg_user_model(wildcards.engine) is not None:  # a user's model: read in place, checked first
        return {
            **user_model_files(protein_id, wildcards.engine),
            **common,
            "check": f"{cg_user_model_dir(protein_id, wildcards.engine)}/check.json",
        }
    if is_cg_engine(wildcards.engine):
        return {
            **common,
            "model": f"{cg_model_dir(protein_id, cg_preset(wildcards.engine))}/model.pt",
            "basis": f"results/{protein_id}/prepare/implicit.pdb",
        }
    return {
        **common,
        "system": f"results/{protein_id}/prepare/{wildcards.engine}.xml",
        "state": f"results/{protein_id}/prepare/{wildcards.engine}_state.xml",
        "topology": f"results/{protein_id}/prepare/{wildcards.engine}.pdb",
    }


CG_ENGINE_KEYS = job_keys("cg_engine")


def we_engine_cg(wildcards):
    """What a CG engine reads of `cg` (dynamics, explosion check, device, CUDA graphs, determinism); nothing for
    OpenMM engines; a user engine of work torch: the device (its GPU request and workers)."""
    if kind_of(wildcards.engine) == USER:
        return {"device": config["cg"]["device"]} if engine_work(wildcards.engine) == "torch" else {}
    if not is_cg_engine(wildcards.engine):
        return {}
    settings = {key: config["cg"][key] for key in CG_ENGINE_KEYS}
    if cg_user_model(wildcards.engine) is not None:
        settings["user_model"] = cg_user_model(wildcards.engine)
    return settings


def we_engine_preparation(wildcards):
    """The integrator keys an OpenMM engine reads of `preparation`; nothing for CG and user engines."""
    return integrator_settings() if kind_of(wildcards.engine) == OPENMM else {}


def we_engine_platform(wildcards):
    """The `platform` section for OpenMM engines and user engines of work openmm (their workers and GPU);
    nothing for CG engines (their device is `cg.device`)."""
    return platform_settings() if engine_work(wildcards.engine) == "openmm" else {}


CG_TRAINING_KEYS = job_keys("cg_training")


def cg_training_settings(wildcards):
    """What a CG training job reads of `cg`: network, prior, dynamics, device, training and its own preset only."""
    cg = config["cg"]
    cg_preset(f"{CG_PREFIX}{wildcards.preset}")  # a clear error for a preset not in cg.presets
    return {
        key: {wildcards.preset: cg["presets"][wildcards.preset]} if key == "presets" else cg[key]
        for key in CG_TRAINING_KEYS
    }


# What the metric suite (one protein and engine) reads of `metrics`: not the table settings.
METRIC_SUITE_KEYS = job_keys("metric_suite")
# What the protein's one ground-truth macrostate model reads of `metrics` (rule macrostates).
MACROSTATE_KEYS = job_keys("macrostates")
# What the HTML report's own notes read of `metrics` (the captions' keys: html_report_caption_config).
REPORT_METRIC_KEYS = job_keys("report_metrics")
# What one ground-truth run reads of `groundtruth` (not the starts, the import or other proteins' counts).
GROUNDTRUTH_RUN_KEYS = job_keys("groundtruth_run")
# What generating starts reads of `groundtruth.starts` (the count is per protein: param n_starts).
STARTS_KEYS = job_keys("groundtruth_starts")
# What importing one run reads of `groundtruth.import` (the files are its inputs).
GROUNDTRUTH_IMPORT_KEYS = job_keys("groundtruth_import")
# What PDBFixer reads of `preparation`.
FIX_KEYS = job_keys("fix")
# What building and minimizing one solvent model reads of `preparation` (westbench.simulation.systems).
SYSTEM_KEYS = {part: job_keys(f"system_{part}") for part in ("common", "implicit", "explicit")}


def system_settings(wildcards=None, solvent=None):
    """The `preparation` keys one solvent model reads: water and box settings never rerun the implicit system."""
    solvent = solvent or wildcards.solvent
    return {key: config["preparation"][key] for key in (*SYSTEM_KEYS["common"], *SYSTEM_KEYS[solvent])}


def integrator_settings(wildcards=None):
    """The `preparation` keys of the Langevin integrator (hot runs for the starts)."""
    return {key: config["preparation"][key] for key in job_keys("integrator")}


def we_timestep_fs(wildcards):
    if kind_of(wildcards.engine) == USER and USER_ENGINES[wildcards.engine]["timestep_fs"] is not None:
        return USER_ENGINES[wildcards.engine]["timestep_fs"]
    if is_cg_engine(wildcards.engine):
        return config["cg"]["langevin"]["timestep_fs"]
    return config["preparation"]["timestep_fs"]


# Imported ground truth (rules/groundtruth.smk), external engines (rules/external.smk), figures across engines.


def import_input(wildcards):
    """Files of one imported run: the trajectory, its topology and forces (when configured), the prepared protein."""
    settings = config["groundtruth"]["import"]
    files = {
        "trajectory": imported_trajectories(wildcards.protein)[wildcards.start],
        "prepared": f"results/{wildcards.protein}/prepare/prepared.pdb",
    }
    if settings["topology"]:
        files["topology"] = settings["topology"].format(protein=wildcards.protein)
    if settings["forces"]:
        files["forces"] = settings["forces"].format(protein=wildcards.protein, name=wildcards.start)
    return files


def external_input(wildcards):
    """The external run's main files (west.h5, or the trajectories) so that new data reruns the import."""
    spec = config["external"][wildcards.engine]
    files = {
        "prepared": f"results/{wildcards.protein}/prepare/prepared.pdb",
        "tica": f"results/{wildcards.protein}/tica/model.json",
        "groundtruth": f"results/{wildcards.protein}/tica/groundtruth_frames.h5",
    }
    if spec["kind"] == "westpa":
        if not (spec["west_h5"] and spec["segments"]):
            raise WorkflowError(f"external engine '{wildcards.engine}': kind westpa needs west_h5 and segments.")
        files["west_h5"] = spec["west_h5"].format(protein=wildcards.protein)
    else:
        from westbench.trajectories import trajectory_files

        files["trajectories"] = trajectory_files(spec["trajectories"] or [], wildcards.protein)
        if not files["trajectories"]:
            raise WorkflowError(
                f"external engine '{wildcards.engine}': trajectories {spec['trajectories']!r} "
                f"match no file for protein '{wildcards.protein}'."
            )
    return files


def engine_frames(protein_id, name="frames.h5"):
    """Exported frames (or another exported file) of every scored engine of a protein, in
    scored_engine_records order (WE engines, then external ones)."""
    return [engine_output(p, engine, name) for p, engine in scored_engine_records([protein_id])]


def protein_figure_records(wildcards=None):
    """[protein, figure name] of the figures across engines (made by rule protein_figures), in protein_figures
    order, which is the registry's order of its figures of scope PROTEIN (westbench.metrics.figure_list)."""
    from westbench.metrics.figure_list import PROTEIN, figures

    return [[p, entry.name] for p in PROTEINS for entry in figures(PROTEIN)]


def protein_figures(wildcards=None):
    return [f"results/{p}/figures/{name}.png" for p, name in protein_figure_records()]


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


def report_records(wildcards=None):
    """Identity of each file of the HTML report's inputs, in input order (protein, engine or preset)."""
    return {
        "metrics": metric_records(),
        "densities": PROTEINS,
        "training_curves": cg_model_records(),
        "protein_figures": protein_figure_records(),
        "calibration": list(calibration_report_inputs()),
    }


def benchmark_patterns(wildcards=None):
    """{rule: its benchmark: pattern}: compute_tables attributes each benchmark file to the rule that wrote it."""
    return {rule.name: str(rule.benchmark) for rule in workflow.rules if rule.benchmark}


# The calibration study (rules/calibration.smk): a reference potential, its own ground truth, engines with known
# verdicts; results/calibration/<study>/. westbench.calibration.study owns the engine list and each engine's dynamics.

from westbench.calibration import study as wb_calibration

CALIBRATION = config["calibration"]
try:
    CALIBRATION_ENGINES = wb_calibration.engines(CALIBRATION) if CALIBRATION["enabled"] else []
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None
for _preset in CALIBRATION["presets"] if CALIBRATION["enabled"] else []:
    if _preset not in config["cg"]["presets"]:
        raise WorkflowError(
            f"calibration.presets: no preset '{_preset}' in cg.presets "
            f"({', '.join(sorted(config['cg']['presets']))})."
        )
# What the study's WE runs read of `we` besides calibration.we (the study sets iterations and segment length).
CALIBRATION_WE_KEYS = job_keys("calibration_we")
# ... and what they read of calibration.we itself.
CALIBRATION_WE_STUDY_KEYS = job_keys("calibration_we_study")
# What building the reference potential reads of `calibration.reference`.
CALIBRATION_REFERENCE_KEYS = job_keys("calibration_reference")
# What the study's ground-truth runs read of `calibration.groundtruth` (not the run count, not the TICA lag).
CALIBRATION_GROUNDTRUTH_KEYS = job_keys("calibration_groundtruth")


def calibration_dir(wildcards=None):
    """The one path pattern of the study's folder: results/calibration/<study> (its name: calibration.protein)."""
    return f"results/calibration/{CALIBRATION['protein']}"


def calibration_runs():
    """Run ids of the study's ground truth."""
    return [f"r{i:04d}" for i in range(CALIBRATION["groundtruth"]["runs"])]


def calibration_seed(wildcards, stage, *more):
    from westbench.seeds import stage_seed

    return stage_seed(config["seed"], CALIBRATION["protein"], stage, *more)


def calibration_native_input(wildcards=None):
    """A native structure given as a file is an input (editing it rebuilds the study); a built-in entry is not."""
    from westbench.cg.native import BUILTIN

    native = CALIBRATION["native"]
    return [] if native.removeprefix("builtin:").upper() in BUILTIN else [native]


def calibration_model_path(engine):
    """The energy model a study engine runs: the reference (or its perturbed copy), or a trained preset's model."""
    folder = calibration_dir()
    if wb_calibration.is_reference_model(CALIBRATION, engine):
        return f"{folder}/models/{engine}/model.pt"
    return f"{folder}/cg/{wb_calibration.trained_preset(engine)}/model.pt"


def calibration_we_input(wildcards):
    folder = calibration_dir()
    return {
        "model": calibration_model_path(wildcards.engine),
        "basis": f"{folder}/native.pdb",  # the beads' topology
        "basis_states": f"{folder}/we/basis_states.npz",  # where the walkers start
        "tica": f"{folder}/tica/model.json",
        "groundtruth": f"{folder}/tica/groundtruth_frames.h5",
    }


def calibration_we_settings(wildcards):
    """The main study's WE keys under the study's own (calibration.we), this engine's walkers per bin and iterations."""
    study = CALIBRATION["we"]
    own = {key: study[key] for key in CALIBRATION_WE_STUDY_KEYS}
    per_engine = {  # each <key>_by_engine of the study's section over its <key>
        key.removesuffix("_by_engine"): value.get(wildcards.engine, study[key.removesuffix("_by_engine")])
        for key, value in study.items()
        if key.endswith("_by_engine")
    }
    return {**{key: config["we"][key] for key in CALIBRATION_WE_KEYS}, **own, **per_engine}


def calibration_engine_cg(wildcards):
    """What the CG engine reads for one study engine: the study's dynamics at the engine's temperature."""
    return {
        "langevin": wb_calibration.engine_langevin(CALIBRATION, wildcards.engine),
        **{key: config["cg"][key] for key in job_keys("calibration_cg_engine")},
    }


def calibration_training_frames(wildcards=None):
    """The ground-truth runs the study's CG models train on: the first calibration.training_runs."""
    runs = calibration_runs()[: CALIBRATION["training_runs"]]
    return [f"{calibration_dir()}/groundtruth/runs/{r}/frames.h5" for r in runs]


def calibration_training_params(wildcards):
    folder = calibration_dir()
    return {wildcards.protein: {"frames": calibration_training_frames(), "topology": f"{folder}/native.pdb"}}


def calibration_training_settings(wildcards):
    """Training as for the main study, the prior fitted at the study temperature."""
    settings = cg_training_settings(wildcards)
    return {
        **settings,
        "training": {**settings["training"], **CALIBRATION["training"]},
        "langevin": {**settings["langevin"], "temperature_k": CALIBRATION["temperature_k"]},
    }


def calibration_metrics_json(wildcards=None):
    return [f"{calibration_dir()}/metrics/{engine}/metrics.json" for engine in CALIBRATION_ENGINES]


def calibration_outputs():
    if not CALIBRATION["enabled"]:
        return []
    return [
        "results/tables/calibration.csv",
        f"{calibration_dir()}/figures/resolution.png",
        f"{calibration_dir()}/figures/convergence.png",
    ]


def calibration_report_inputs(wildcards=None):
    """The study's files the HTML report shows first (none when the study is off)."""
    if not CALIBRATION["enabled"]:
        return {}
    folder = calibration_dir()
    return {
        "table": "results/tables/calibration.csv",
        "summary": f"{folder}/calibration.json",
        "resolution": f"{folder}/figures/resolution.png",
        "convergence": f"{folder}/figures/convergence.png",
    }
