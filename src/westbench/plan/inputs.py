"""The input files of each job, by the identities it runs for (protein, start, engine, preset): what the input
functions of rules/common.smk return, as plain dicts and lists of paths.

Examples
--------
>>> from westbench.config import validate_config
>>> from westbench.plan import Plan
>>> plan = Plan.from_config(validate_config({
...     "proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}],
...     "we": {"engines": ["implicit", "cg_fulltrained"]}}))
>>> sorted(plan.inputs.we_run("p", "implicit"))
['groundtruth', 'state', 'system', 'tica', 'topology']
>>> plan.inputs.we_run("p", "cg_fulltrained")["model"], plan.inputs.metrics_model_frames("p", "groundtruth")
('results/p/cg/fulltrained/model.pt', 'results/p/tica/groundtruth_frames.h5')
"""

from __future__ import annotations

from typing import Mapping

from westbench.engines.kinds import CG, CG_PREFIX, GROUNDTRUTH, USER, cg_preset_of
from westbench.errors import ConfigError


class Inputs:
    """The input files of one configuration's jobs (its roster and layout)."""

    def __init__(self, config: Mapping, roster, layout):
        self.config, self.roster, self.layout = config, roster, layout

    # --- preparation and ground truth ------------------------------------------------------------------------

    def structure(self, protein: str) -> dict[str, str]:
        """A `file` source is an input of acquisition, so editing it reruns the protein."""
        spec = self.roster.protein(protein)
        return {"source": spec.path} if spec.source == "file" else {}

    def starts(self, protein: str) -> dict:
        """The prepared protein, and the user's start files (source directory) or the implicit system that makes
        them."""
        self.roster.protein(protein)  # a clear error for an id not in the config
        prepared = {"pdb": self.layout.prepare(protein, "prepared.pdb")}
        if self.config["groundtruth"]["starts"]["source"] == "directory":
            return {**prepared, "files": self.roster.start_files(protein)}
        system = self.layout.system(protein, "implicit")
        return {**prepared, "system": system["system"], "state": system["state"]}

    def groundtruth_import(self, protein: str, start: str) -> dict[str, str]:
        """Files of one imported run: the trajectory, its topology and forces (when configured), the prepared
        protein."""
        settings = self.config["groundtruth"]["import"]
        files = {
            "trajectory": self.roster.imported_trajectories(protein)[start],
            "prepared": self.layout.prepare(protein, "prepared.pdb"),
        }
        if settings["topology"]:
            files["topology"] = settings["topology"].format(protein=protein)
        if settings["forces"]:
            files["forces"] = settings["forces"].format(protein=protein, name=start)
        return files

    def _scoring(self, protein: str) -> dict[str, str]:
        """What every engine's export reads: the TICA model and the ground truth's projection."""
        return {
            "tica": self.layout.tica(protein, "model.json"),
            "groundtruth": self.layout.tica(protein, "groundtruth_frames.h5"),
        }

    # --- engines --------------------------------------------------------------------------------------------

    def external(self, protein: str, engine: str) -> dict:
        """The external run's main files (west.h5, or the trajectories), so that new data reruns the import."""
        from westbench.io.trajectories import trajectory_files

        spec = self.config["external"][engine]
        files = {"prepared": self.layout.prepare(protein, "prepared.pdb"), **self._scoring(protein)}
        if spec["kind"] == "westpa":
            if not (spec["west_h5"] and spec["segments"]):
                raise ConfigError(f"external engine '{engine}': kind westpa needs west_h5 and segments.")
            files["west_h5"] = spec["west_h5"].format(protein=protein)
            return files
        files["trajectories"] = trajectory_files(spec["trajectories"] or [], protein)
        if not files["trajectories"]:
            raise ConfigError(
                f"external engine '{engine}': trajectories {spec['trajectories']!r} "
                f"match no file for protein '{protein}'."
            )
        return files

    def user_model_files(self, protein: str, engine: str) -> dict[str, str]:
        """A user's model file, the basis structure it is checked on and, with prior: fitted, westbench's prior."""
        model = self.roster.cg_user_model(engine)
        folder = self.layout.cg_user_model_dir(protein, cg_preset_of(engine))
        files = {
            "model": model["path"].replace("{protein}", protein),
            "basis": self.layout.prepare(protein, "implicit.pdb"),
        }
        if model["prior"] == "fitted":
            files["prior"] = f"{folder}/prior.pt"
        return files

    def cg_model_check(self, protein: str, name: str) -> dict[str, str]:
        return self.user_model_files(protein, f"{CG_PREFIX}{name}")

    def we_run(self, protein: str, engine: str) -> dict[str, str]:
        """OpenMM engines read the prepared system; CG engines the trained model and the basis structure; a user
        engine its entry's prepared system and the basis structure (the files its option placeholders name)."""
        common = self._scoring(protein)
        basis = self.layout.prepare(protein, "implicit.pdb")
        kind = self.roster.kind(engine)
        if kind == USER:
            system = self.layout.system(protein, self.roster.user_engines[engine]["system"])
            return {**common, **system, "basis": basis}
        if self.roster.cg_user_model(engine) is not None:  # a user's model: read in place, checked first
            check = f"{self.layout.cg_user_model_dir(protein, cg_preset_of(engine))}/check.json"
            return {**self.user_model_files(protein, engine), **common, "check": check}
        if kind == CG:
            model = f"{self.layout.cg_model_dir(protein, self.roster.cg_preset(engine))}/model.pt"
            return {**common, "model": model, "basis": basis}
        return {**common, **self.layout.system(protein, engine)}

    # --- CG training ----------------------------------------------------------------------------------------

    def cg_training_proteins(self, protein: str | None) -> list[str]:
        """Protein ids a training job uses: its own, or every protein (scope all: no protein wildcard)."""
        return self.roster.proteins if protein is None else [protein]

    def cg_training(self, protein: str | None) -> dict[str, list[str]]:
        proteins = self.cg_training_proteins(protein)
        return {
            "frames": [
                self.layout.groundtruth_run(p, s, "frames.h5") for p in proteins for s in self.roster.start_ids(p)
            ],
            "topologies": [self.layout.prepare(p, "implicit.pdb") for p in proteins],
        }

    def cg_training_proteins_params(self, protein: str | None) -> dict:
        """Per protein: its ground-truth frames and topology (a training job's param ``proteins``)."""
        return {
            p: {
                "frames": [self.layout.groundtruth_run(p, s, "frames.h5") for s in self.roster.start_ids(p)],
                "topology": self.layout.prepare(p, "implicit.pdb"),
            }
            for p in self.cg_training_proteins(protein)
        }

    # --- metrics --------------------------------------------------------------------------------------------

    def metrics_model_frames(self, protein: str, engine: str) -> str:
        """The frames a metrics job scores: an engine's export, or the ground truth itself for engine
        `groundtruth`."""
        if self.roster.kind(engine) == GROUNDTRUTH:
            return self.layout.tica(protein, "groundtruth_frames.h5")
        return self.layout.engine_output(protein, engine, "frames.h5")

    def metrics_training_record(self, protein: str, engine: str) -> list[str]:
        """A trained CG engine's model record (its training summary goes into metrics.json); nothing for other
        engines, and nothing for a user's model (not trained here)."""
        if self.roster.kind(engine) != CG or self.roster.cg_user_model(engine) is not None:
            return []
        return [f"{self.layout.cg_model_dir(protein, self.roster.cg_preset(engine))}/model.json"]
