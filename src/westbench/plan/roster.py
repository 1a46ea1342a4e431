"""Who takes part: the proteins, the engines and their kinds, the ground-truth runs and the WE replicas.

A :class:`Roster` is built from the validated config and checks every cross-reference between its sections on
the way (an engine named twice, an external engine named like a WE engine, a CG engine without a preset or a
model, a user's model under ``results/``, ...): each is a :class:`~westbench.errors.ConfigError` naming the
key and the fix, raised when the workflow is parsed, before any job runs.

Examples
--------
>>> from westbench.config import validate_config
>>> config = validate_config({"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}],
...                           "we": {"engines": ["implicit", "cg_fulltrained"], "replicas_by_engine": {"implicit": 2}}})
>>> roster = Roster(config)
>>> roster.proteins, roster.scored_engines, [roster.work(e) for e in roster.engines]
(['p'], ['implicit', 'cg_fulltrained'], ['openmm', 'torch'])
>>> roster.we_replica_ids("implicit"), roster.we_replica_ids("cg_fulltrained"), roster.trained_presets()
([0, 1], [None], ['fulltrained'])
>>> Roster(validate_config({**config, "we": {"engines": ["implicit", "implicit"]}}))
Traceback (most recent call last):
...
westbench.errors.ConfigError: we.engines names ['implicit'] more than once; give each engine one entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from westbench import config as wb_config
from westbench.calibration import study as wb_calibration
from westbench.engines import user as wb_user_engines
from westbench.engines.kinds import CG, GROUNDTRUTH, cg_preset_of, engine_kind, engine_work
from westbench.errors import ConfigError, WestbenchError


class Roster:
    """The participants of one configuration (see the module docstring).

    Parameters
    ----------
    config : mapping
        The validated config (:func:`westbench.config.validate_config`).

    Raises
    ------
    ConfigError
        For a cross-reference between sections that does not hold, naming the key and the fix.
    """

    def __init__(self, config: Mapping):
        self.config = config
        #: Protein ids, in config order.
        self.proteins: list[str] = wb_config.protein_ids(config)
        #: we.engines items are names of built-in engines or entries naming a user's class ({name, class, ...}).
        self.engines: list[str] = [wb_user_engines.engine_name(item) for item in config["we"]["engines"]]
        #: The we.engines entries that name a user's class, by name.
        self.user_engines: dict[str, dict] = {
            item["name"]: item for item in config["we"]["engines"] if wb_user_engines.is_user_entry(item)
        }
        #: Engine kind external (config `external`): samples produced elsewhere, scored like the WE engines.
        self.external_engines: list[str] = list(config["external"])
        #: Every engine the metrics score, in table order: the WE engines, then the external ones.
        self.scored_engines: list[str] = [*self.engines, *self.external_engines]
        #: A user's CG models (cg.models.<name>, engine cg_<name>): read from their paths, never trained here.
        self.user_models: Mapping = config["cg"]["models"]
        #: Whether the ground truth is imported (groundtruth.source import) rather than simulated.
        self.groundtruth_import: bool = config["groundtruth"]["source"] == "import"
        self._check_engines()
        self._check_user_models()
        self._check_groundtruth()

    # --- the checks made when the workflow is parsed -----------------------------------------------------------

    def _check_engines(self) -> None:
        repeated = sorted({name for name in self.engines if self.engines.count(name) > 1})
        if repeated:
            raise ConfigError(f"we.engines names {repeated} more than once; give each engine one entry.")
        for index, item in enumerate(self.config["we"]["engines"]):
            if wb_user_engines.is_user_entry(item):
                wb_user_engines.check_engine_entry(item, index)
        clash = sorted(set(self.external_engines) & {*self.engines, GROUNDTRUTH})
        if clash:
            raise ConfigError(f"external engines {clash} share a name with we.engines or 'groundtruth'; rename them.")
        for engine in self.engines:  # every name has a kind, every CG engine a preset or a model
            if self.is_cg(engine) and self.cg_user_model(engine) is None:
                self.cg_preset(engine)

    def _check_user_models(self) -> None:
        clash = sorted(set(self.user_models) & set(self.config["cg"]["presets"]))
        if clash:
            raise ConfigError(
                f"cg.models {clash} share a name with cg.presets: engine cg_<name> would be both a "
                "trained preset and your model; rename the model."
            )
        for name, entry in self.user_models.items():
            if Path(entry["path"]).resolve().is_relative_to(Path("results").resolve()):
                raise ConfigError(
                    f"cg.models.{name}: path {entry['path']!r} is under results/, where the workflow "
                    "writes (cg_train writes results/.../model.pt). Fix: keep your model outside results/, "
                    "e.g. models/."
                )

    def _check_groundtruth(self) -> None:
        starts = self.config["groundtruth"]["starts"]
        if not self.groundtruth_import and starts["source"] == "directory" and not starts["directory"]:
            raise ConfigError(
                "groundtruth.starts.source is 'directory' but groundtruth.starts.directory is not set; "
                'set it to a folder of PDB files ("{protein}" is replaced by the protein id).'
            )

    # --- proteins and their ground-truth runs --------------------------------------------------------------------

    def protein(self, protein_id: str) -> wb_config.ProteinSpec:
        """The spec of a configured protein; a ConfigError naming the configured ids for another."""
        return wb_config.protein_spec(self.config, protein_id)

    def n_starts(self, protein_id: str) -> int:
        """Starting points of a protein: its `n_starts`, else groundtruth.starts.count."""
        entry = next(p for p in self.config["proteins"] if p["id"] == protein_id)
        return entry.get("n_starts") or self.config["groundtruth"]["starts"]["count"]

    def starts_folder(self, protein_id: str) -> Path:
        """For starts source `directory`: the user's folder of start PDBs."""
        return Path(self.config["groundtruth"]["starts"]["directory"].format(protein=protein_id))

    def start_files(self, protein_id: str) -> list[str]:
        """For starts source `directory`: the start PDBs of a protein, sorted."""
        return sorted(map(str, self.starts_folder(protein_id).glob("*.pdb")))

    def imported_trajectories(self, protein_id: str) -> dict[str, str]:
        """For groundtruth.source import: run id -> trajectory file of a protein."""
        from westbench.io.trajectories import import_names, refuse_duplicate_files, trajectory_files

        setting = self.config["groundtruth"]["import"]["trajectories"]
        files = trajectory_files(setting or [], protein_id)
        if not files:
            raise ConfigError(
                f"protein '{protein_id}': groundtruth.source is 'import' but groundtruth.import.trajectories "
                f"({setting!r}) matches no file; give a glob or list of trajectory files."
            )
        try:
            refuse_duplicate_files(files, "groundtruth.import.trajectories")  # each run once, or a clear error
            import_names(files)  # unique names, or a clear error
        except WestbenchError as exc:
            raise ConfigError(str(exc)) from None
        return dict(sorted((import_names([f])[0], f) for f in files))

    def start_ids(self, protein_id: str) -> list[str]:
        """Ids of a protein's ground-truth runs: s0000.. when generated, file stems for a directory or an import."""
        if self.groundtruth_import:
            return list(self.imported_trajectories(protein_id))
        if self.config["groundtruth"]["starts"]["source"] == "directory":
            files = self.start_files(protein_id)
            if not files:
                raise ConfigError(
                    f"protein '{protein_id}': no *.pdb start structures in {self.starts_folder(protein_id)}; "
                    "add them or use groundtruth.starts.source: generate."
                )
            return [Path(f).stem for f in files]
        return [f"s{i:04d}" for i in range(self.n_starts(protein_id))]

    # --- engines --------------------------------------------------------------------------------------------------

    def kind(self, engine: str) -> str:
        """The kind of an engine name (openmm, cg, user, external, groundtruth): westbench.engines.kinds decides."""
        return engine_kind(engine, external=self.external_engines, user=self.user_engines)

    def work(self, engine: str) -> str:
        """What a WE engine computes with ("openmm" or "torch"): westbench.engines.kinds.engine_work decides."""
        return engine_work(self.kind(engine), self.user_engines.get(engine))

    def is_cg(self, engine: str) -> bool:
        return self.kind(engine) == CG

    def cg_user_model(self, engine: str) -> Mapping | None:
        """The cg.models entry a CG engine runs, or None for a trained preset (and for other engines)."""
        return self.user_models.get(cg_preset_of(engine)) if self.is_cg(engine) else None

    def cg_preset(self, engine: str) -> str:
        """The cg.presets entry a CG engine trains; a ConfigError naming the presets and models for none."""
        preset = cg_preset_of(engine)
        presets = self.config["cg"]["presets"]
        if preset not in presets:
            models = f"; cg.models: {', '.join(sorted(self.user_models))}" if self.user_models else ""
            raise ConfigError(
                f"engine '{engine}': no preset '{preset}' in cg.presets "
                f"({', '.join(sorted(presets))}) and no model '{preset}' in "
                f"cg.models{models}. Fix: add a preset, or your model under cg.models.{preset} "
                "(docs/bring-your-own.md)."
            )
        return preset

    def trained_presets(self) -> list[str]:
        """The presets the WE engines train (not the users' models), sorted."""
        return sorted({self.cg_preset(e) for e in self.engines if self.is_cg(e) and self.cg_user_model(e) is None})

    def we_max_iterations(self, engine: str) -> int:
        """The iteration cap of one engine: its `we.max_iterations_by_engine` entry, else `we.max_iterations`."""
        we = self.config["we"]
        return we["max_iterations_by_engine"].get(engine, we["max_iterations"])

    def we_replicas(self, engine: str) -> int:
        """Independent WE runs of one engine: its `we.replicas_by_engine` entry, else `we.replicas`."""
        we = self.config["we"]
        return we["replicas_by_engine"].get(engine, we["replicas"])

    def we_replica_ids(self, engine: str) -> list[int | None]:
        """The replica ids of an engine's WE runs: [None] for a single run (no replica folder), else 0..n-1."""
        n = self.we_replicas(engine)
        return [None] if n == 1 else list(range(n))

    def notes(self) -> list[str]:
        """What each WE engine will run with where a per-engine override could win, and why (logged at parse)."""
        we, lines = self.config["we"], []
        for engine in self.engines:
            overridden = engine in we["max_iterations_by_engine"]
            source = f"we.max_iterations_by_engine.{engine}" if overridden else "we.max_iterations"
            lines.append(f"we_run {engine}: max_iterations {self.we_max_iterations(engine)} (from {source})")
            if self.we_replicas(engine) > 1:
                source = f"we.replicas_by_engine.{engine}" if engine in we["replicas_by_engine"] else "we.replicas"
                lines.append(f"we_run {engine}: {self.we_replicas(engine)} replicas (from {source})")
        return lines


def calibration_engines(config: Mapping) -> list[str]:
    """The calibration study's engines (none when it is off), its presets checked against cg.presets."""
    study = config["calibration"]
    if not study["enabled"]:
        return []
    engines = wb_calibration.engines(study)
    for engine in engines:  # each perturbation's segments end on a saved frame
        wb_calibration.dynamics(study, engine)
    for preset in study["presets"]:
        if preset not in config["cg"]["presets"]:
            raise ConfigError(
                f"calibration.presets: no preset '{preset}' in cg.presets "
                f"({', '.join(sorted(config['cg']['presets']))})."
            )
    _check_user_engines(config)
    return engines


def _check_user_engines(config: Mapping) -> None:
    """The study's user engines (calibration.engines): each cg_<model> a cg.models entry, each class importable and
    meeting the engine contract (when the workflow is parsed, as we.engines' classes)."""
    models = config["cg"]["models"]
    for index, item in enumerate(config["calibration"].get("engines") or []):
        if isinstance(item, Mapping):
            wb_user_engines.check_engine_entry(item, index, "calibration.engines")
            continue
        model = cg_preset_of(item)
        if model not in models:
            raise ConfigError(
                f"calibration.engines[{index}]: '{item}' runs your CG model '{model}', but cg.models has "
                f"{', '.join(sorted(models)) or 'no models'}; add cg.models.{model} (docs/bring-your-own.md, recipe 1)."
            )
