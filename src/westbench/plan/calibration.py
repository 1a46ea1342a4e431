"""The known-answer calibration study's part of the plan (rules/calibration.smk): its engines, files and the
settings each of its jobs reads. :mod:`westbench.calibration.study` owns the engine list and each engine's
dynamics; this module lays them out as the study's rules use them (results/calibration/<study>/).

Examples
--------
>>> from westbench.config import validate_config
>>> from westbench.plan import Plan
>>> plan = Plan.from_config(validate_config({"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG",
...                                                        "source": "sequence"}], "calibration": {"enabled": True}}))
>>> study = plan.calibration
>>> study.engines[0], study.reference_engines() == [e for e in study.engines if not e.startswith("cg_")]
('reference', True)
>>> study.model_path("cg_fulltrained"), study.runs()[:2]
('results/calibration/chignolin/cg/fulltrained/model.pt', ['r0000', 'r0001'])
"""

from __future__ import annotations

from typing import Mapping

from westbench.calibration import study as wb_calibration
from westbench.engines.kinds import CG, CG_PREFIX, USER
from westbench.plan import jobkeys
from westbench.plan.roster import calibration_engines
from westbench.plan.study_runs import StudyRuns
from westbench.seeds import stage_seed

#: The one model weighting the study reads (its table, checks and figures): its metric jobs score only this one
#: (the main study's carry every metrics.weightings); the msm and counts weightings cost seconds per engine.
CALIBRATION_WEIGHTING = "we"


class CalibrationPlan(StudyRuns):
    """The study of one configuration (see the module docstring): none of its files when it is off.

    Raises
    ------
    ConfigError
        From :func:`~westbench.plan.roster.calibration_engines`: a perturbation named like a trained model or the
        null engine, a preset not in cg.presets, segments that end between saved frames.
    """

    def __init__(self, config: Mapping, layout):
        self.config, self.layout = config, layout
        #: The config's calibration section.
        self.study: Mapping = config["calibration"]
        self.enabled: bool = self.study["enabled"]
        #: Every engine of the study, in report order (none when it is off).
        self.engines: list[str] = calibration_engines(config)

    def dir(self) -> str:
        """The study's folder: results/calibration/<study> (its name: calibration.protein)."""
        return self.layout.calibration()

    def runs(self) -> list[str]:
        """Run ids of the study's ground truth."""
        return [f"r{i:04d}" for i in range(self.study["groundtruth"]["runs"])]

    def run_frames(self) -> list[str]:
        return [f"{self.dir()}/groundtruth/runs/{r}/frames.h5" for r in self.runs()]

    def seed(self, stage: str, *more) -> int:
        return stage_seed(self.config["seed"], self.study["protein"], stage, *more)

    def user_model_seed(self, name: str) -> int:
        """The seed of your model's frame split (calibration.models): the CG training stage's, keyed model_<name>."""
        return self.seed("calibration_cg_train", f"model_{name}")

    # --- engines --------------------------------------------------------------------------------------------

    def is_reference_model(self, engine: str) -> bool:
        return wb_calibration.is_reference_model(self.study, engine)

    def reference_engines(self) -> list[str]:
        """The engines that run the reference potential (the null and the perturbations), in engine order."""
        return [e for e in self.engines if self.is_reference_model(e)]

    def trained_engines(self) -> list[str]:
        """The engines that run a CG model the study trains, in engine order."""
        return [e for e in self.engines if not self.is_reference_model(e) and not self.is_user_engine(e)]

    def is_user_engine(self, engine: str) -> bool:
        return wb_calibration.is_user_engine(self.study, engine)

    def user_engines(self) -> list[str]:
        """The user's engines (calibration.engines), in engine order: scored, with no known answer."""
        return [e for e in self.engines if self.is_user_engine(e)]

    def kind(self, engine: str) -> str:
        """The WE engine kind of a study engine: ``user`` for a user's engine class, ``cg`` for every other."""
        return USER if wb_calibration.user_class_entry(self.study, engine) is not None else CG

    def user_model(self, engine: str) -> dict | None:
        """The cg.models entry a user's CG model engine (``cg_<model>`` of calibration.engines) runs; else None."""
        if not self.is_user_engine(engine) or self.kind(engine) == USER:
            return None
        return dict(self.config["cg"]["models"][engine.removeprefix(CG_PREFIX)])

    def user_model_dir(self, engine: str) -> str:
        """Where the study checks a user's CG model and fits its prior: <study>/cg/model_<model>/ (as the main
        study's :meth:`~westbench.plan.layout.Layout.cg_user_model_dir`)."""
        return f"{self.dir()}/cg/model_{engine.removeprefix(CG_PREFIX)}"

    def model_path(self, engine: str) -> str:
        """The energy model a study engine runs: the reference (or its perturbed copy), a trained preset's, or the
        user's model file (``{protein}`` in its path is the study's name)."""
        if self.is_reference_model(engine):
            return f"{self.dir()}/models/{engine}/model.pt"
        model = self.user_model(engine)
        if model is not None:
            return model["path"].replace("{protein}", self.study["protein"])
        return f"{self.dir()}/cg/{wb_calibration.trained_preset(engine)}/model.pt"

    def langevin(self, engine: str) -> dict:
        return wb_calibration.engine_langevin(self.study, engine)

    def sampled_engines(self) -> list[str]:
        """The reference-potential engines that change its equilibrium (temperature, contacts), in engine order: each
        gets its own sample of that equilibrium for its known answer (none with
        calibration.groundtruth.perturbed_runs 0)."""
        if not self.study["groundtruth"]["perturbed_runs"]:
            return []
        return [e for e in self.reference_engines() if wb_calibration.changes_equilibrium(self.study, e)]

    def equilibrium_sample(self, engine: str) -> str:
        """An engine's own unbiased sample of its equilibrium (rule calibration_equilibrium_sample)."""
        return f"{self.dir()}/known/{engine}/sample.h5"

    def known_sample(self, engine: str) -> str:
        """That sample on the study's TICA, weighted as part of the engine's known answer (rule
        calibration_reweighting)."""
        return f"{self.dir()}/known/{engine}/frames.h5"

    # --- inputs -----------------------------------------------------------------------------------------------

    def native_input(self) -> list[str]:
        """A native structure given as a file is an input (editing it rebuilds the study); a built-in is not."""
        from westbench.cg.native import BUILTIN

        native = self.study["native"]
        return [] if native.removeprefix("builtin:").upper() in BUILTIN else [native]

    def we_input(self, engine: str, replica=None) -> dict[str, str]:
        """A study engine's WE inputs: its model (none for a user's engine class, whose options name what it
        reads), the beads' topology and the replica's starts, the study's TICA and ground truth; a user's CG model
        also its check (and westbench's prior with ``prior: fitted``)."""
        folder = self.dir()
        files = {
            "basis": f"{folder}/native.pdb",  # the beads' topology
            # where the walkers start: the reference's potential at its own equilibrium (weighted), others the draw
            "basis_states": (
                self.engine_starts(engine, replica) if self.is_reference_model(engine) else self.basis_states(replica)
            ),
            "tica": f"{folder}/tica/model.json",
            "groundtruth": f"{folder}/tica/groundtruth_frames.h5",
        }
        if self.kind(engine) == USER:
            return files
        model = self.user_model(engine)
        if model is not None:
            user = {"check": f"{self.user_model_dir(engine)}/check.json"}
            if model["prior"] == "fitted":
                user["prior"] = f"{self.user_model_dir(engine)}/prior.pt"
            return {"model": self.model_path(engine), **files, **user}
        return {"model": self.model_path(engine), **files}

    def user_model_files(self, name: str) -> dict[str, str]:
        """What checking the user's CG model ``name`` on the study's beads reads (rule calibration_cg_model_check)."""
        engine = f"{CG_PREFIX}{name}"
        files = {"model": self.model_path(engine), "basis": f"{self.dir()}/native.pdb"}
        if self.user_model(engine)["prior"] == "fitted":
            files["prior"] = f"{self.user_model_dir(engine)}/prior.pt"
        return files

    def training_record(self, engine: str) -> list[str]:
        """A trained engine's model record (its metrics job reads it); nothing for a reference-model or user engine."""
        if self.is_reference_model(engine) or self.is_user_engine(engine):
            return []
        return [self.model_path(engine).replace("model.pt", "model.json")]

    def training_frames(self) -> list[str]:
        """The ground-truth runs the study's CG models train on: the first calibration.training_runs."""
        return self.run_frames()[: self.study["training_runs"]]

    def training_proteins(self, protein: str) -> dict:
        return {protein: {"frames": self.training_frames(), "topology": f"{self.dir()}/native.pdb"}}

    def metrics_json(self) -> list[str]:
        return [f"{self.dir()}/metrics/{engine}/metrics.json" for engine in self.engines]

    # --- what each job reads ----------------------------------------------------------------------------------

    def reference_settings(self) -> dict:
        return {key: self.study["reference"][key] for key in jobkeys.job_keys("calibration_reference")}

    def perturbations(self) -> list[dict]:
        """The change of each reference-model engine, in :meth:`reference_engines` order."""
        return [wb_calibration.perturbation(self.study, e) for e in self.reference_engines()]

    def groundtruth_settings(self) -> dict:
        keys = jobkeys.job_keys("calibration_groundtruth")
        return {key: value for key, value in self.study["groundtruth"].items() if key in keys}

    def we_settings(self, engine: str) -> dict:
        """The main study's WE keys under the study's own (calibration.we), this engine's walkers per bin and
        iterations, and its segment length where a perturbation changes it."""
        study = self.study["we"]
        own = {key: study[key] for key in jobkeys.job_keys("calibration_we_study")}
        per_engine = {  # each <key>_by_engine of the study's section over its <key>
            key.removesuffix("_by_engine"): value.get(engine, study[key.removesuffix("_by_engine")])
            for key, value in study.items()
            if key.endswith("_by_engine")
        }
        steps = wb_calibration.dynamics(self.study, engine)["steps_per_segment"]
        changed = {"steps_per_segment": steps} if steps is not None else {}
        main = {key: self.config["we"][key] for key in jobkeys.job_keys("calibration_we")}
        entry = wb_calibration.user_class_entry(self.study, engine)
        user = {"user_engine": dict(entry)} if entry is not None else {}
        return {**main, **own, **per_engine, **changed, **user}

    def engine_cg(self, engine: str) -> dict:
        """What the CG engine reads for one study engine: the study's dynamics at the engine's temperature (and a
        user's model entry); a user's engine class: the device only (its workers)."""
        if self.kind(engine) == USER:
            return {"device": self.config["cg"]["device"]}
        settings = {
            "langevin": self.langevin(engine),
            **{key: self.config["cg"][key] for key in jobkeys.job_keys("calibration_cg_engine")},
        }
        model = self.user_model(engine)
        return {**settings, "user_model": model} if model is not None else settings

    def timestep_fs(self, engine: str) -> float:
        """The engine's timestep: its exported frames' times (:func:`westbench.calibration.study.timestep_fs`)."""
        return wb_calibration.timestep_fs(self.study, engine)

    def training_settings(self, settings: Mapping) -> dict:
        """Training as for the main study (``settings``: its cg_train job's), the prior fitted at the study's
        temperature."""
        return {
            **settings,
            "training": {**settings["training"], **self.study["training"]},
            "langevin": {**settings["langevin"], "temperature_k": self.study["temperature_k"]},
        }

    def prior_settings(self, settings: Mapping) -> dict:
        """Fitting westbench's prior for a user's model (``settings``: the main study's cg_prior job's) at the
        study's temperature."""
        return {**settings, "langevin": {**settings["langevin"], "temperature_k": self.study["temperature_k"]}}

    def metric_settings(self, suite: Mapping) -> dict:
        """The main study's metric suite (``suite``) scoring the one weighting the study reads."""
        return {**suite, "weightings": [CALIBRATION_WEIGHTING], "discard_iterations": self.study["discard_iterations"]}

    def temperatures(self) -> dict[str, float]:
        return {e: self.langevin(e)["temperature_k"] for e in self.engines}

    def table_perturbations(self) -> dict[str, dict]:
        """Each engine's change from the reference and of dynamics (the table's expectations)."""
        return {
            e: {**wb_calibration.perturbation(self.study, e), **wb_calibration.dynamics(self.study, e)}
            for e in self.engines
        }

    def dynamics_only(self) -> list[str]:
        return [e for e in self.engines if wb_calibration.is_dynamics_only(self.study, e)]

    def segment_ps(self) -> dict[str, float]:
        return {e: wb_calibration.segment_ps(self.study, e) for e in self.engines}

    # --- targets ----------------------------------------------------------------------------------------------

    def outputs(self) -> list[str]:
        if not self.enabled:
            return []
        return [self.layout.table("calibration.csv"), *self.figures().values()]

    def figures(self) -> dict[str, str]:
        return {name: f"{self.dir()}/figures/{name}.png" for name in ("resolution", "convergence")}

    def report_inputs(self) -> dict[str, str]:
        """The study's files the HTML report shows first (none when the study is off)."""
        if not self.enabled:
            return {}
        return {
            "table": self.layout.table("calibration.csv"),
            "summary": f"{self.dir()}/calibration.json",
            **self.figures(),
        }
