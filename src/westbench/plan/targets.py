"""What the workflow makes: the default target's files, each stage's, and the identities of the jobs that gather
them (aggregation jobs receive [protein, engine] records as params instead of parsing them out of paths).

Examples
--------
>>> from westbench.config import validate_config
>>> from westbench.plan import Plan
>>> plan = Plan.from_config(validate_config({
...     "proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}],
...     "we": {"engines": ["implicit", "cg_fulltrained"]}, "calibration": {"enabled": False}}))
>>> plan.targets.metric_records()
[['p', 'implicit'], ['p', 'cg_fulltrained'], ['p', 'groundtruth']]
>>> plan.targets.cg_outputs()
['results/p/cg/fulltrained/model.pt', 'results/p/cg/fulltrained/training_curve.png']
>>> plan.targets.controls_outputs()
['results/p/controls/controls.json']
"""

from __future__ import annotations

from westbench.engines.kinds import GROUNDTRUTH
from westbench.plan.layout import REPORT

#: The tables of the default target besides the calibration study's.
TABLES = ("preparation.csv", "groundtruth_throughput.csv", "w1.csv", "kl.csv", "coverage.csv", "resource_requests.csv")


class Targets:
    """The files and job identities of one configuration (its roster, layout and calibration study; whether the
    controls run, controls.enabled)."""

    def __init__(self, roster, layout, calibration, *, controls_enabled: bool):
        self.roster, self.layout, self.calibration = roster, layout, calibration
        self.controls_enabled = bool(controls_enabled)

    def all_outputs(self) -> list[str]:
        """The default target: every protein prepared, its TICA, WE runs, metrics, the CG models, the tables,
        the report and the calibration study."""
        tables = [self.layout.table(name) for name in TABLES]
        proteins = self.roster.proteins
        return (
            [self.layout.prepare(p, "summary.json") for p in proteins]
            + tables[:2]
            + [self.layout.tica(p, name) for p in proteins for name in ("model.json", "tic01_density.png")]
            + [path for p in proteins for path in self.we_outputs(p)]
            + [path for p in proteins for path in self.metrics_outputs(p)]
            + self.controls_outputs()
            + self.cg_outputs()
            + tables[2:5]
            + [REPORT, tables[5]]
            + self.calibration.outputs()
        )

    # --- ground truth ------------------------------------------------------------------------------------------

    def groundtruth_frames(self, protein: str) -> list[str]:
        """The frames of every ground-truth run of a protein, in start order."""
        return [self.layout.groundtruth_run(protein, s, "frames.h5") for s in self.roster.start_ids(protein)]

    def groundtruth_summaries(self) -> list[str]:
        return [
            self.layout.groundtruth_run(p, s, "summary.json")
            for p in self.roster.proteins
            for s in self.roster.start_ids(p)
        ]

    # --- engines and their scores ------------------------------------------------------------------------------

    def we_outputs(self, protein: str) -> list[str]:
        return [
            self.layout.engine_output(protein, engine, name)
            for engine in self.roster.engines
            for name in ("frames.h5", "cost.csv")
        ]

    def all_we_outputs(self) -> list[str]:
        return [path for p in self.roster.proteins for path in self.we_outputs(p)]

    def we_run_dirs(self, protein: str, engine: str) -> list[str]:
        """Every run folder of an engine (one per replica), in replica order: what its export pools."""
        return [self.layout.we_run_dir(protein, engine, k) for k in self.roster.we_replica_ids(engine)]

    def we_run_summaries(self, protein: str, engine: str) -> list[str]:
        return [f"{folder}/run.json" for folder in self.we_run_dirs(protein, engine)]

    def scored_engine_records(self, proteins=None) -> list[list[str]]:
        """[protein, engine] of every scored engine (WE engines, then external ones), in the order the file lists
        below give their files."""
        return [[p, engine] for p in (proteins or self.roster.proteins) for engine in self.roster.scored_engines]

    def metric_records(self, proteins=None) -> list[list[str]]:
        """[protein, engine] of every metrics job (the scored engines, then the ground-truth sanity check), in the
        order of :meth:`all_metrics_json`."""
        return [
            [p, engine]
            for p in (proteins or self.roster.proteins)
            for engine in [*self.roster.scored_engines, GROUNDTRUTH]
        ]

    def metrics_outputs(self, protein: str) -> list[str]:
        return [self.layout.metrics(p, engine) for p, engine in self.metric_records([protein])]

    def all_metrics_json(self) -> list[str]:
        return [path for p in self.roster.proteins for path in self.metrics_outputs(p)]

    def all_metrics_csv(self) -> list[str]:
        return [path.replace("metrics.json", "metrics.csv") for path in self.all_metrics_json()]

    def all_contracts(self) -> list[str]:
        """The scoring contract of every metrics job (target scoring_contracts)."""
        return [path.replace("metrics.json", "contract.json") for path in self.all_metrics_json()]

    def all_we_costs(self) -> list[str]:
        return [self.layout.engine_output(p, engine, "cost.csv") for p, engine in self.scored_engine_records()]

    def engine_frames(self, protein: str, name: str = "frames.h5") -> list[str]:
        """An exported file of every scored engine of a protein, in :meth:`scored_engine_records` order."""
        return [self.layout.engine_output(p, engine, name) for p, engine in self.scored_engine_records([protein])]

    def controls_outputs(self) -> list[str]:
        """Every protein's controls.json (rule controls), in protein order; none when controls.enabled is false."""
        return [self.layout.controls(p) for p in self.roster.proteins] if self.controls_enabled else []

    # --- CG models --------------------------------------------------------------------------------------------

    def cg_model_records(self) -> list[list[str]]:
        """[protein, preset] of every CG model (protein "all" for one model over every protein, cg.scope all)."""
        proteins = ["all"] if self.layout.cg_scope == "all" else self.roster.proteins
        return [[p, preset] for p in proteins for preset in self.roster.trained_presets()]

    def cg_outputs(self) -> list[str]:
        return [
            f"{self.layout.cg_model_dir(p, preset)}/{name}"
            for p, preset in self.cg_model_records()
            for name in ("model.pt", "training_curve.png")
        ]

    def training_curves(self) -> list[str]:
        """Every CG model's training curve, in :meth:`cg_model_records` order."""
        return [f"{self.layout.cg_model_dir(p, preset)}/training_curve.png" for p, preset in self.cg_model_records()]

    # --- the report -------------------------------------------------------------------------------------------

    def protein_figure_records(self) -> list[list[str]]:
        """[protein, figure name] of the figures across engines, in the figure registry's order of its figures of
        scope PROTEIN (westbench.metrics.figure_list)."""
        from westbench.metrics.figure_list import PROTEIN, figures

        return [[p, entry.name] for p in self.roster.proteins for entry in figures(PROTEIN)]

    def protein_figures(self) -> list[str]:
        return [self.layout.figure(p, name) for p, name in self.protein_figure_records()]

    def report_records(self) -> dict:
        """Identity of each file of the HTML report's inputs, in input order (protein, engine or preset)."""
        return {
            "metrics": self.metric_records(),
            "densities": self.roster.proteins,
            "training_curves": self.cg_model_records(),
            "protein_figures": self.protein_figure_records(),
            "calibration": list(self.calibration.report_inputs()),
            "controls": self.roster.proteins if self.controls_enabled else [],
        }
