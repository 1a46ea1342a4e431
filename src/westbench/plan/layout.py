"""Where every file of the workflow lives: the one owner of each path pattern under ``results/``.

Each method returns the path of one file or folder; given wildcard patterns (``"{protein}"``, ``"{engine}"``)
instead of ids, it returns the rule's output pattern, so a rule's outputs and the input functions that ask for
them come from the same line.

Examples
--------
>>> from westbench.config import validate_config
>>> from westbench.plan.roster import Roster
>>> config = validate_config({"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}],
...                           "external": {"md": {"kind": "trajectories", "trajectories": "x/*.dcd"}}})
>>> layout = Layout(config, Roster(config))
>>> layout.we_run_dir("p", "implicit"), layout.we_run_dir("{protein}", "{engine}", "{replica}")
('results/p/we/implicit', 'results/{protein}/we/{engine}/replica_{replica}')
>>> layout.engine_output("p", "md", "frames.h5"), layout.cg_model_dir("p", "fulltrained")
('results/p/external/md/frames.h5', 'results/p/cg/fulltrained')
>>> layout.groundtruth_run("p", "s0000", layout.trajectory)
'results/p/groundtruth/runs/s0000/trajectory.xtc'
>>> layout.controls("p"), layout.controls("{protein}", "controls.csv")
('results/p/controls/controls.json', 'results/{protein}/controls/controls.csv')
>>> layout.agents.trial("t", "oracle", "none", 1), layout.agents.file("gate.csv")
('results/agents/trials/t/oracle/none/1/trial.json', 'results/agents/gate.csv')
"""

from __future__ import annotations

from typing import Mapping

from westbench.engines.kinds import EXTERNAL

#: Everything the workflow writes is under this folder of the working directory.
RESULTS = "results"
#: The HTML report of a configuration.
REPORT = f"{RESULTS}/report/westbench.html"
#: The agent benchmark's folder (rules/agents.smk).
AGENTS = f"{RESULTS}/agents"


class Layout:
    """The path patterns of one configuration (the CG models' scope and the trajectory format change some).

    Parameters
    ----------
    config : mapping
        The validated config.
    roster : Roster
        Its participants (an engine's kind decides its export's folder).
    """

    #: The HTML report of a configuration.
    REPORT = REPORT

    def __init__(self, config: Mapping, roster):
        self.roster = roster
        self.cg_scope = config["cg"]["scope"]
        #: The file name of a ground-truth run's trajectory (groundtruth.trajectory_format).
        self.trajectory = f"trajectory.{config['groundtruth']['trajectory_format']}"
        #: The calibration study's name (calibration.protein): its folder under results/calibration/.
        self.study = config["calibration"]["protein"]
        #: The agent benchmark's paths.
        self.agents = AgentsLayout()

    # --- one protein's stages ---------------------------------------------------------------------------------

    @staticmethod
    def prepare(protein: str, name: str) -> str:
        """A file of a protein's preparation: structure.pdb, prepared.pdb, <solvent>.xml, summary.json, ..."""
        return f"{RESULTS}/{protein}/prepare/{name}"

    def system(self, protein: str, solvent: str) -> dict[str, str]:
        """A prepared solvent model: its OpenMM system, minimized state and topology."""
        return {
            "system": self.prepare(protein, f"{solvent}.xml"),
            "state": self.prepare(protein, f"{solvent}_state.xml"),
            "topology": self.prepare(protein, f"{solvent}.pdb"),
        }

    @staticmethod
    def groundtruth(protein: str, name: str) -> str:
        """A file or folder of a protein's ground truth: starts/, starts.csv, runs/..."""
        return f"{RESULTS}/{protein}/groundtruth/{name}"

    @classmethod
    def groundtruth_run(cls, protein: str, start: str, name: str) -> str:
        """A file of one ground-truth run: frames.h5, summary.json, topology.pdb, the trajectory."""
        return cls.groundtruth(protein, f"runs/{start}/{name}")

    @staticmethod
    def tica(protein: str, name: str) -> str:
        """A file of a protein's TICA: model.json, groundtruth_frames.h5, macrostates.npz, tic01_density.png."""
        return f"{RESULTS}/{protein}/tica/{name}"

    @staticmethod
    def we_run_dir(protein: str, engine: str, replica=None) -> str:
        """A WE run's folder: results/{protein}/we/{engine} for an engine's single run,
        results/{protein}/we/{engine}/replica_{replica} for replica k of several."""
        folder = f"{RESULTS}/{protein}/we/{engine}"
        return folder if replica is None else f"{folder}/replica_{replica}"

    @staticmethod
    def we_export(protein: str, engine: str, name: str) -> str:
        """A WE engine's exported file (frames.h5, cost.csv), beside its run folders."""
        return f"{RESULTS}/{protein}/we/{engine}/{name}"

    @staticmethod
    def external_export(protein: str, engine: str, name: str) -> str:
        """An external engine's imported samples (frames.h5, cost.csv)."""
        return f"{RESULTS}/{protein}/external/{engine}/{name}"

    def engine_output(self, protein: str, engine: str, name: str) -> str:
        """An engine's exported file (frames.h5, cost.csv): WE engines under we/, external ones under external/."""
        if self.roster.kind(engine) == EXTERNAL:
            return self.external_export(protein, engine, name)
        return self.we_export(protein, engine, name)

    @staticmethod
    def metrics(protein: str, engine: str, name: str = "metrics.json") -> str:
        """A file of one engine's metric suite: metrics.json, metrics.csv, contract.json."""
        return f"{RESULTS}/{protein}/metrics/{engine}/{name}"

    @staticmethod
    def controls(protein: str, name: str = "controls.json") -> str:
        """A file of a protein's controls (rule controls): controls.json, controls.csv."""
        return f"{RESULTS}/{protein}/controls/{name}"

    @staticmethod
    def figure(protein: str, name: str) -> str:
        """A figure across a protein's engines."""
        return f"{RESULTS}/{protein}/figures/{name}.png"

    @staticmethod
    def cg_protein_model_dir(protein: str, preset: str) -> str:
        """A preset's model of one protein (cg.scope protein: rule cg_train)."""
        return f"{RESULTS}/{protein}/cg/{preset}"

    @staticmethod
    def cg_shared_model_dir(preset: str) -> str:
        """A preset's one model over every protein (cg.scope all: rule cg_train_all)."""
        return f"{RESULTS}/cg/{preset}"

    def cg_model_dir(self, protein: str, preset: str) -> str:
        """Where a preset's model lives: per protein, or one model over all proteins (cg.scope all)."""
        return (
            self.cg_shared_model_dir(preset) if self.cg_scope == "all" else self.cg_protein_model_dir(protein, preset)
        )

    @staticmethod
    def cg_user_model_dir(protein: str, name: str) -> str:
        """Where westbench's files about a user's model cg.models.<name> go (its check, its fitted prior): never
        the model itself."""
        return f"{RESULTS}/{protein}/cg/model_{name}"

    # --- across proteins ---------------------------------------------------------------------------------------

    @staticmethod
    def table(name: str) -> str:
        """A table across proteins and engines: w1.csv, preparation.csv, ..."""
        return f"{RESULTS}/tables/{name}"

    @staticmethod
    def study_file(study: str, name: str = "") -> str:
        """A calibration study's folder, results/calibration/<study>, or a file in it (rules/calibration.smk: the
        study's name is their wildcard ``{protein}``)."""
        folder = f"{RESULTS}/calibration/{study}"
        return f"{folder}/{name}" if name else folder

    def calibration(self, name: str = "") -> str:
        """This configuration's calibration study's folder (calibration.protein), or a file in it."""
        return self.study_file(self.study, name)


class AgentsLayout:
    """Where the agent benchmark's files live (rules/agents.smk): everything under results/agents/, and its page.

    As :class:`Layout`'s, each method given wildcard patterns returns a rule's output pattern.

    >>> agents = AgentsLayout()
    >>> agents.near_miss("t", "no-posre"), agents.mutation("{task}")
    ('results/agents/near_misses/t/no-posre/trial.json', 'results/agents/mutation/{task}.json')
    >>> agents.harbor("t", "near-miss", "x"), agents.cache("judge"), agents.log("gate"), agents.page
    ('results/agents/harbor/t/near-miss/x', 'results/agents/judge-cache', 'results/agents/logs/gate.log', \
'results/report/agents.html')
    """

    #: The agent benchmark's own HTML page (rule agent_report), beside the study's report.
    page = f"{RESULTS}/report/agents.html"

    @staticmethod
    def file(name: str) -> str:
        """A table, figure or record across tasks and agents: gate.csv, leaderboard.csv, trials.csv, ..."""
        return f"{AGENTS}/{name}"

    @classmethod
    def trial(cls, task: str, agent: str, model: str, attempt, name: str = "trial.json") -> str:
        """A file of one trial: trial.json, and beside it its judge.json and process.json."""
        return cls.file(f"trials/{task}/{agent}/{model}/{attempt}/{name}")

    @classmethod
    def near_miss(cls, task: str, near_miss: str, name: str = "trial.json") -> str:
        """The trial of a task's near miss (run by the oracle agent as the reference solution)."""
        return cls.file(f"near_misses/{task}/{near_miss}/{name}")

    @classmethod
    def mutation(cls, task: str) -> str:
        """One task's mutation testing (rule agent_mutation)."""
        return cls.file(f"mutation/{task}.json")

    @classmethod
    def harbor(cls, task: str, *parts) -> str:
        """A Harbor job's folder of a task: <agent>/<model>/<attempt> for a trial, near-miss/<name> for a near miss."""
        return cls.file("/".join(map(str, ("harbor", task, *parts))))

    @classmethod
    def cache(cls, kind: str, task: str | None = None) -> str:
        """A cache folder across trials (judge, process) or of one task (mutation)."""
        return cls.file(f"{kind}-cache" + (f"/{task}" if task is not None else ""))

    @classmethod
    def task_done(cls, task: str) -> str:
        """The flag of rule agents_task: every trial of one task done."""
        return cls.file(f"tasks/{task}.done")

    @classmethod
    def log(cls, name: str) -> str:
        """The log of an agent rule's job (results/agents/logs/<name>.log)."""
        return cls.file(f"logs/{name}.log")

    @classmethod
    def benchmark(cls, name: str) -> str:
        """The benchmark record of an agent rule's job (results/agents/benchmarks/<name>.tsv)."""
        return cls.file(f"benchmarks/{name}.tsv")
