"""Where the calibration study's WE runs live and start: each engine's replicas, their folders, basis states and
seeds (a part of :class:`westbench.plan.calibration.CalibrationPlan`, which lays out the rest of the study).

Examples
--------
>>> from westbench.config import validate_config
>>> from westbench.plan import Plan
>>> plan = Plan.from_config(validate_config({"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG",
...     "source": "sequence"}], "calibration": {"enabled": True, "we": {"replicas": 2}}}))
>>> study = plan.calibration
>>> study.run_dirs("reference")
['results/calibration/chignolin/we/reference/replica_0', 'results/calibration/chignolin/we/reference/replica_1']
>>> study.engine_starts("reference", 1)
'results/calibration/chignolin/we/replica_1/starts/reference.npz'
"""

from __future__ import annotations

from westbench.seeds import replica_keys


class StudyRuns:
    """The study's WE runs; the class using it provides ``dir()``, ``study``, ``seed``, ``sampled_engines()`` and
    ``known_sample()``."""

    def replica_ids(self) -> list[int | None]:
        """The replica ids of every study engine's WE runs: [None] for one run (no replica folder), else 0..n-1."""
        n = int(self.study["we"]["replicas"])
        return [None] if n == 1 else list(range(n))

    def run_dir(self, engine: str, replica=None) -> str:
        """A study engine's WE run folder: we/<engine> for one run, we/<engine>/replica_<k> for replica k of several."""
        folder = f"{self.dir()}/we/{engine}"
        return folder if replica is None else f"{folder}/replica_{replica}"

    def run_dirs(self, engine: str) -> list[str]:
        """Every run folder of a study engine, in replica order: what its export pools."""
        return [self.run_dir(engine, k) for k in self.replica_ids()]

    def run_summaries(self, engine: str) -> list[str]:
        return [f"{folder}/run.json" for folder in self.run_dirs(engine)]

    def basis_states(self, replica=None) -> str:
        """The basis states of one replica's WE runs: we/basis_states.npz for one run and replica 0, replica k >= 1
        its own draw (we/replica_<k>/basis_states.npz): replicas share no start, so they are independent."""
        if replica is None or int(replica) == 0:
            return f"{self.dir()}/we/basis_states.npz"
        return f"{self.dir()}/we/replica_{replica}/basis_states.npz"

    def engine_starts(self, engine: str, replica=None) -> str:
        """A reference-potential engine's starts, at its own equilibrium
        (:func:`westbench.calibration.basis.engine_starts`): we/starts/<engine>.npz, replica k >= 1
        we/replica_<k>/starts/<engine>.npz."""
        return self.basis_states(replica).replace("basis_states.npz", f"starts/{engine}.npz")

    def starts_input(self, engine: str, replica=None) -> dict[str, str]:
        """What an engine's starts are made from: the replica's drawn basis states, and the pooled ground truth with
        the predictions' weights (resampled from where the engine's equilibrium differs), and the engine's own
        weighted sample where its known answer has one."""
        files = {
            "states": self.basis_states(replica),
            "groundtruth": f"{self.dir()}/tica/groundtruth_frames.h5",
            "reweighting": f"{self.dir()}/reweighting.npz",
        }
        if engine in self.sampled_engines():
            files["sample"] = self.known_sample(engine)
        return files

    def replica_seed(self, stage: str, engine: str | None, replica=None) -> int:
        """A replica's seed of ``stage`` (calibration_we per engine, calibration_basis_states for the study): one
        run's and replica 0's unchanged, replica k >= 1 its own stream."""
        return self.seed(stage, *(() if engine is None else (engine,)), *replica_keys(replica))
