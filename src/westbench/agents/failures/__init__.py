"""Failure analysis of the agent benchmark: how trials end, where tools fail, which part of the contract breaks.

One module per job:

* :mod:`~westbench.agents.failures.breaches`: a trial's contract-breach flags (missing deliverable, failed
  deterministic check, judge-assessed shortfall) and its signature.
* :mod:`~westbench.agents.failures.tables`: a row per trial, completion claims and tool errors by outcome,
  breaches by difficulty and category.
* :mod:`~westbench.agents.failures.correlation`: process against task score (Spearman, bootstrap interval).
* :mod:`~westbench.agents.failures.figures`: the figures.
* :mod:`~westbench.agents.failures.analysis`: the step that writes them all (rule ``agent_failures``).

The trajectory's facts come from :mod:`westbench.agents.atif` (tool results and errors, the final message) and
:mod:`westbench.agents.completion` (completion language); the scorecards from :mod:`westbench.agents.process`.

Examples
--------
>>> SIGNATURES[:3]
('no verdict', 'missing deliverable', 'failed check')
"""

from westbench.agents.failures.analysis import ANALYSIS_OUTPUTS, analyse_failures
from westbench.agents.failures.breaches import SIGNATURES, breach, contract_names, task_contract
from westbench.agents.failures.correlation import process_correlation, spearman_interval
from westbench.agents.failures.tables import breach_table, completion_table, outcome, task_score, tool_error_table

__all__ = [
    "ANALYSIS_OUTPUTS",
    "SIGNATURES",
    "analyse_failures",
    "breach",
    "breach_table",
    "completion_table",
    "contract_names",
    "outcome",
    "process_correlation",
    "spearman_interval",
    "task_contract",
    "task_score",
    "tool_error_table",
]
