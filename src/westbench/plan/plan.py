"""The plan of one configuration: :class:`Plan` gathers its roster, layout, inputs, params and targets.

Examples
--------
>>> from westbench.config import validate_config
>>> plan = Plan.from_config(validate_config({"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG",
...                                                         "source": "sequence"}]}))
>>> plan.roster.proteins, plan.layout.we_run_dir("p", "implicit"), plan.params.fix()["ph"]
(['p'], 'results/p/we/implicit', 7.0)
>>> plan.targets.all_outputs()[0]
'results/p/prepare/summary.json'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from westbench.plan.agents import AgentsPlan
from westbench.plan.calibration import CalibrationPlan
from westbench.plan.inputs import Inputs
from westbench.plan.layout import Layout
from westbench.plan.near_misses import REPOSITORY
from westbench.plan.params import Params
from westbench.plan.roster import Roster
from westbench.plan.targets import Targets


@dataclass(frozen=True)
class Plan:
    """What the workflow of one configuration runs, as plain data (paths, lists, dicts): rules/common.smk asks it.

    Attributes
    ----------
    config : mapping
        The validated config.
    roster : Roster
        The proteins, engines and their kinds, ground-truth runs and WE replicas.
    layout : Layout
        Every path pattern.
    inputs : Inputs
        Each job's input files.
    params : Params
        What each job reads of the config, its seed, threads and GPUs.
    targets : Targets
        The default target's files and the identities of the gathering jobs.
    calibration : CalibrationPlan
        The calibration study's engines, files and settings.
    agents : AgentsPlan
        The agent benchmark's tasks, runs and trials (rules/agents.smk).
    """

    config: Mapping
    roster: Roster
    layout: Layout
    inputs: Inputs
    params: Params
    targets: Targets
    calibration: CalibrationPlan
    agents: AgentsPlan

    @classmethod
    def from_config(cls, config: Mapping, root: str | Path = REPOSITORY) -> "Plan":
        """The plan of a validated config (:func:`westbench.config.validate_config`).

        Relative paths of the config (start folders, imported and external trajectories, users' models) are read
        from the working directory, as the workflow's jobs read them; those the schema calls relative to the
        repository (agents.gate.record) from ``root``, the workflow's folder (default: this package's repository).

        Raises
        ------
        ConfigError
            For every cross-reference between sections that does not hold (:class:`Roster`,
            :class:`CalibrationPlan`, :class:`AgentsPlan`), naming the key and the fix.
        """
        roster = Roster(config)
        layout = Layout(config, roster)
        calibration = CalibrationPlan(config, layout)
        return cls(
            config=config,
            roster=roster,
            layout=layout,
            inputs=Inputs(config, roster, layout),
            params=Params(config, roster),
            targets=Targets(roster, layout, calibration, controls_enabled=config["controls"]["enabled"]),
            calibration=calibration,
            agents=AgentsPlan(config, layout.agents, root),
        )
