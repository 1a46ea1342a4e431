"""What each job reads of the config: its params, seed, threads and GPUs.

Params hold only the config keys a job reads (a per-engine job: only its own engine's values), so editing the
engine list, another engine's settings or a table setting reruns nothing that does not read it: Snakemake
reruns a job whose params' text changed. :mod:`westbench.plan.jobkeys` names the keys of each job; the order of
every dict here is its params' text, so it is kept as it is (reordering reruns finished jobs:
tests/unit/plan/test_dag_snapshot.py).

Examples
--------
>>> from westbench.config import validate_config
>>> from westbench.plan import Plan
>>> plan = Plan.from_config(validate_config({
...     "proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}],
...     "we": {"engines": ["implicit", "cg_fulltrained"], "max_iterations_by_engine": {"implicit": 3}}}))
>>> plan.params.we("implicit")["max_iterations"], plan.params.we("cg_fulltrained")["max_iterations"]
(3, 200)
>>> "batch_walkers" in plan.params.we("implicit"), plan.params.we_engine_platform("cg_fulltrained")
(True, {})
"""

from __future__ import annotations

from typing import Mapping

from westbench import __version__
from westbench.engines.kinds import CG_PREFIX, OPENMM, USER
from westbench.errors import ConfigError
from westbench.plan.jobkeys import job_keys
from westbench.runtime import resources as wb_resources
from westbench.seeds import replica_keys, stage_seed


class Params:
    """The params of one configuration's jobs (its roster decides per engine)."""

    def __init__(self, config: Mapping, roster):
        self.config, self.roster = config, roster

    def _section(self, section: str, job: str) -> dict:
        """The keys ``job`` reads of a config section (dotted for a nested one: ``agents.process``)."""
        values = self.config
        for part in section.split("."):
            values = values[part]
        return {key: values[key] for key in job_keys(job)}

    # --- seeds: westbench.seeds.stage_seed, the one derivation from `seed` ------------------------------------

    def seed(self, protein: str, stage: str, *more) -> int:
        """The seed of one protein's stage (protein "all" for a stage across proteins)."""
        return stage_seed(self.config["seed"], protein, stage, *more)

    def we_seed(self, protein: str, engine: str, replica=None) -> int:
        """A WE run's seed: the engine's for a single run and replica 0, the replica's own for replica k >= 1."""
        return self.seed(protein, "we", engine, *replica_keys(replica))

    # --- threads and GPUs: westbench.runtime.resources owns the policy ----------------------------------------

    def threads(self, work: str) -> int:
        return wb_resources.job_threads(work, self.config["platform"])

    def gpus(self, work: str) -> int:
        device = {"device": self.config["cg"]["device"]} if work == "torch" else {}
        return wb_resources.job_gpus(work, self.config["platform"], **device)

    def we_threads(self, engine: str) -> int:
        work = self.roster.work(engine)
        return wb_resources.job_threads(work, self.config["platform"], work_manager=self.config["we"]["work_manager"])

    def we_gpus(self, engine: str) -> int:
        return wb_resources.job_gpus(
            self.roster.work(engine), self.config["platform"], device=self.config["cg"]["device"]
        )

    # --- preparation --------------------------------------------------------------------------------------------

    def structure(self, protein: str) -> dict:
        """Acquisition settings that change what a protein's structure is (download settings do not)."""
        spec = self.roster.protein(protein)
        return {
            "source": spec.source,
            "pdb_id": spec.pdb_id,
            "sequence": spec.sequence,
            "chains": spec.chains,
            "residues": spec.residues,
            "path": spec.path,
        }

    def fix(self) -> dict:
        return self._section("preparation", "fix")

    def platform(self) -> dict:
        """What OpenMM reads of `platform` (cpu_threads reaches jobs as their threads, which rerun nothing)."""
        return self._section("platform", "platform")

    def system(self, solvent: str) -> dict:
        """The `preparation` keys one solvent model reads: water and box settings never rerun the implicit system."""
        keys = (*job_keys("system_common"), *job_keys(f"system_{solvent}"))
        return {key: self.config["preparation"][key] for key in keys}

    def integrator(self) -> dict:
        """The `preparation` keys of the Langevin integrator (hot runs for the starts, the OpenMM engines)."""
        return self._section("preparation", "integrator")

    # --- ground truth ---------------------------------------------------------------------------------------

    def starts(self) -> dict:
        """What generating starts reads of `groundtruth.starts` (the count is per protein: :meth:`n_starts`)."""
        return {key: self.config["groundtruth"]["starts"][key] for key in job_keys("groundtruth_starts")}

    def groundtruth_run(self) -> dict:
        """What one ground-truth run reads of `groundtruth` (not the starts, the import or other proteins' counts)."""
        return self._section("groundtruth", "groundtruth_run")

    def groundtruth_solvent(self) -> dict:
        """The ground truth's solvent model's `preparation` keys (its starts are minimized again in it)."""
        return self.system(self.config["groundtruth"]["solvent"])

    def groundtruth_import(self) -> dict:
        """What importing one run reads of `groundtruth.import` (the files are its inputs)."""
        return {key: self.config["groundtruth"]["import"][key] for key in job_keys("groundtruth_import")}

    # --- WE runs --------------------------------------------------------------------------------------------

    def we(self, engine: str) -> dict:
        """The `we` keys a WE run reads, with this engine's iteration cap resolved (no engine list, no other
        engine's cap)."""
        settings = self._section("we", "we_run")
        settings["max_iterations"] = self.roster.we_max_iterations(engine)
        if self.config["we"]["coverage_target"] is not None:  # the stop reads the one grid; else the grid reruns none
            settings["coverage_bins"] = self.config["metrics"]["coverage_bins"]
        kind = self.roster.kind(engine)
        if kind == OPENMM:
            settings["batch_walkers"] = self.config["we"]["batch_walkers"]  # OpenMM engines only
        if kind == USER:  # a user engine's entry: editing it restarts its runs, no other engine's
            settings["user_engine"] = self.roster.user_engines[engine]
        return settings

    def we_engine_cg(self, engine: str) -> dict:
        """What a CG engine reads of `cg` (dynamics, explosion check, device, CUDA graphs, determinism); nothing
        for OpenMM engines; a user engine of work torch: the device (its GPU request and workers)."""
        if self.roster.kind(engine) == USER:
            return {"device": self.config["cg"]["device"]} if self.roster.work(engine) == "torch" else {}
        if not self.roster.is_cg(engine):
            return {}
        settings = self._section("cg", "cg_engine")
        if self.roster.cg_user_model(engine) is not None:
            settings["user_model"] = self.roster.cg_user_model(engine)
        return settings

    def we_engine_preparation(self, engine: str) -> dict:
        """The integrator keys an OpenMM engine reads of `preparation`; nothing for CG and user engines."""
        return self.integrator() if self.roster.kind(engine) == OPENMM else {}

    def we_engine_platform(self, engine: str) -> dict:
        """The `platform` section for OpenMM engines and user engines of work openmm (their workers and GPU);
        nothing for CG engines (their device is `cg.device`)."""
        return self.platform() if self.roster.work(engine) == "openmm" else {}

    def we_timestep_fs(self, engine: str) -> float:
        """The time step of an engine's frames: a user engine's own, the CG dynamics', else the OpenMM engines'."""
        if self.roster.kind(engine) == USER and self.roster.user_engines[engine]["timestep_fs"] is not None:
            return self.roster.user_engines[engine]["timestep_fs"]
        if self.roster.is_cg(engine):
            return self.config["cg"]["langevin"]["timestep_fs"]
        return self.config["preparation"]["timestep_fs"]

    # --- CG models ------------------------------------------------------------------------------------------

    def cg_training(self, preset: str) -> dict:
        """What a CG training job reads of `cg`: network, prior, dynamics, device, training and its own preset only."""
        cg = self.config["cg"]
        self.roster.cg_preset(f"{CG_PREFIX}{preset}")  # a clear error for a preset not in cg.presets
        return {
            key: {preset: cg["presets"][preset]} if key == "presets" else cg[key] for key in job_keys("cg_training")
        }

    def cg_model_check(self, name: str) -> Mapping:
        """A user's model's cg.models entry (what loading and checking it reads)."""
        model = self.roster.user_models.get(name)
        if model is None:
            raise ConfigError(f"no model '{name}' in cg.models")
        return model

    def cg_prior(self) -> dict:
        """What fitting westbench's prior for a user's model reads of `cg`."""
        cg = self.config["cg"]
        return {"prior": cg["prior"], "langevin": {"temperature_k": cg["langevin"]["temperature_k"]}}

    # --- metrics and the report -----------------------------------------------------------------------------

    def metric_suite(self) -> dict:
        """What the metric suite (one protein and engine) reads of `metrics`: not the table settings."""
        return self._section("metrics", "metric_suite")

    def macrostates(self) -> dict:
        """What the protein's one ground-truth macrostate model reads of `metrics`."""
        return self._section("metrics", "macrostates")

    def controls(self) -> dict:
        """What the controls of a protein (rule controls) read of `controls` (not whether they run)."""
        return self._section("controls", "controls")

    def controls_metrics(self) -> dict:
        """What the controls' metric suite reads of `metrics`: the keys that change their scores (no weightings,
        figures, tables or MSM: every control is scored under the frames' own weights)."""
        return self._section("metrics", "controls_metrics")

    def report_metrics(self) -> dict:
        """What the HTML report's own notes read of `metrics`."""
        return self._section("metrics", "report_metrics")

    def report_summary(self) -> dict:
        """Key facts of this configuration for the head of the HTML report."""
        config, roster = self.config, self.roster
        groundtruth = config["groundtruth"]
        starts = f"{groundtruth['starts']['count']} x {groundtruth['length_ps']}"
        return {
            "proteins": ", ".join(roster.proteins),
            "engines": ", ".join(roster.scored_engines),
            "seed": config["seed"],
            "platform": config["platform"]["name"],
            **(
                {"ground truth": f"imported: {groundtruth['import']['trajectories']}"}
                if roster.groundtruth_import
                else {"ground-truth starts x length (ps)": starts}
            ),
            # Each engine's own cap (we.max_iterations_by_engine over we.max_iterations), as its we_run job reads it.
            "WE iterations (max)": ", ".join(f"{e} {roster.we_max_iterations(e)}" for e in roster.engines),
            "WE replicas": ", ".join(f"{e} {roster.we_replicas(e)}" for e in roster.engines),
            "metric weightings": ", ".join(config["metrics"]["weightings"]),
            "KL floor": config["metrics"]["kl_floor"],
            "westbench": __version__,
        }

    # --- the agent benchmark (rules/agents.smk) ----------------------------------------------------------------

    def agent_trial(self) -> dict:
        """What one trial or near miss reads of `agents` (its own agent entry and model: AgentsPlan.trial_run)."""
        return self._section("agents", "agent_trial")

    def agent_mutation(self) -> dict:
        """What one task's mutation testing reads of `agents`."""
        return self._section("agents", "agent_mutation")

    def agent_judge(self) -> dict:
        """The judge's section (agents.judge): the judge and the process scorecards read all of it."""
        return self.config["agents"]["judge"]

    def agent_leaderboard(self) -> dict:
        """What the leaderboard reads of `agents`."""
        return self._section("agents", "agent_leaderboard")

    def agent_failures(self) -> dict:
        """What the process and failure analysis reads of `agents` and `agents.process`."""
        return {
            **self._section("agents", "agent_failures"),
            **self._section("agents.process", "agent_failures_process"),
        }

    def agent_page_title(self) -> str:
        """The agent benchmark's page's title (the report's, with what the page is)."""
        return f"{self.config['report']['title']}: agent benchmark"
