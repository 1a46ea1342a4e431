"""Process scorecards: FrontierChallenge's six capabilities of a trajectory, judged by the hardened judge.

One module per job:

* :mod:`~westbench.agents.process.capabilities`: the six capabilities, the shared rubric (``rubric.toml``
  beside this package) and a task's opportunity matrix and own items (``tasks/<task>/process.toml``).
* :mod:`~westbench.agents.process.scorecard`: one trial's items judged (every repeat and window, cached) into
  its ``process.json``.
* :mod:`~westbench.agents.process.aggregate`: items to capabilities, coverage and process; trials to an agent's
  profile, the coverage-adjusted process and their intervals.

Examples
--------
>>> CAPABILITIES
('coherence', 'evidence_fidelity', 'alternatives', 'scope_failure', 'tool_state', 'repair')
>>> item_score([1, 1, 2], "majority")
0.5
"""

from westbench.agents.process.aggregate import OVERALL, agent_profile, item_score, trial_scores
from westbench.agents.process.capabilities import (
    CAPABILITIES,
    PROCESS_FILE,
    SHARED_RUBRIC,
    Item,
    ProcessError,
    SharedRubric,
    TaskProcess,
    shared_rubric,
    task_process,
)
from westbench.agents.process.scorecard import score_trial, write_scorecard

__all__ = [
    "CAPABILITIES",
    "OVERALL",
    "PROCESS_FILE",
    "SHARED_RUBRIC",
    "Item",
    "ProcessError",
    "SharedRubric",
    "TaskProcess",
    "agent_profile",
    "item_score",
    "score_trial",
    "shared_rubric",
    "task_process",
    "trial_scores",
    "write_scorecard",
]
