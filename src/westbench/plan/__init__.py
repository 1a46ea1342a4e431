"""The workflow's plan, as plain data: which jobs exist, where their files live, what each one reads.

``PLAN = Plan.from_config(config)`` in rules/common.smk; the input functions and params there are one-liners
asking it, and unit tests build plans from config dicts without parsing the Snakefile. Its parts, one module
each: :mod:`~westbench.plan.roster` (proteins, engines and their kinds, every cross-check of the config),
:mod:`~westbench.plan.layout` (every path pattern), :mod:`~westbench.plan.inputs`, :mod:`~westbench.plan.params`
(with :mod:`~westbench.plan.jobkeys`, the config keys each job reads), :mod:`~westbench.plan.targets` and
:mod:`~westbench.plan.calibration` (the calibration study's part) and :mod:`~westbench.plan.agents` (the agent
benchmark's: its tasks, runs and trials; its paths are :class:`~westbench.plan.layout.AgentsLayout`'s).

The plan sits above the stages: it may import any of them, none of them imports it (tests/unit/test_layers.py).
Snakemake's own objects (``workflow``, wildcards, ``report()``, ``WorkflowError``) stay in rules/common.smk.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "Plan": "westbench.plan.plan",
    "Roster": "westbench.plan.roster",
    "Layout": "westbench.plan.layout",
    "Inputs": "westbench.plan.inputs",
    "Params": "westbench.plan.params",
    "Targets": "westbench.plan.targets",
    "CalibrationPlan": "westbench.plan.calibration",
    "AgentsPlan": "westbench.plan.agents",
    "AgentsLayout": "westbench.plan.layout",
    "job_keys": "westbench.plan.jobkeys",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
