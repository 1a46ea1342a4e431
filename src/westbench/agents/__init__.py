"""The agent benchmark: Harbor tasks, trials, grading, the LLM judge, the oracle gate, the leaderboard, the process
scorecards and the failure analysis.

One module per job: :mod:`~westbench.agents.tasks` (load and validate Harbor task folders),
:mod:`~westbench.agents.harbor` (run one trial through the Harbor CLI), :mod:`~westbench.agents.grading`
(status and score of a trial), :mod:`~westbench.agents.judge` (process criteria through an
OpenAI-compatible endpoint), :mod:`~westbench.agents.gate` (oracle/nop gate),
:mod:`~westbench.agents.statistics` (the leaderboard's counts and intervals),
:mod:`~westbench.agents.trials` (trial records), :mod:`~westbench.agents.figures` (its figures),
:mod:`~westbench.agents.leaderboard` (the step writing its tables and figures), :mod:`~westbench.agents.verifykit`
(the verifier helper copied into every task), :mod:`~westbench.agents.atif` (Harbor's trajectory read
deterministically: tool results, tool errors, the final message), :mod:`~westbench.agents.completion` (completion
language), :mod:`~westbench.agents.process` (the six capabilities' scorecards through the judge) and
:mod:`~westbench.agents.failures` (completion claims, tool errors, breach signatures, process against score);
:mod:`~westbench.agents.safe_files` reads and writes agent-made paths without following anything the agent made.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "TaskInfo": "westbench.agents.tasks",
    "TaskError": "westbench.agents.tasks",
    "load_task": "westbench.agents.tasks",
    "discover_tasks": "westbench.agents.tasks",
    "select_tasks": "westbench.agents.tasks",
    "execute_trial": "westbench.agents.harbor",
    "HarborError": "westbench.agents.harbor",
    "grade": "westbench.agents.grading",
    "JudgeSettings": "westbench.agents.judge",
    "JudgeError": "westbench.agents.judge",
    "load_rubric": "westbench.agents.judge",
    "judge_trial": "westbench.agents.judge",
    "oracle_gate": "westbench.agents.gate",
    "catch_rate": "westbench.agents.gate",
    "suite_composition": "westbench.agents.composition",
    "write_composition": "westbench.agents.composition",
    "read_trials": "westbench.agents.trials",
    "complete_grid": "westbench.agents.statistics",
    "pass_at_k": "westbench.agents.statistics",
    "wilson_interval": "westbench.agents.statistics",
    "bootstrap_interval": "westbench.agents.statistics",
    "plot_leaderboard": "westbench.agents.figures",
    "plot_outcomes": "westbench.agents.figures",
    "plot_cost_vs_success": "westbench.agents.figures",
    "score_agents": "westbench.agents.leaderboard",
    "trajectory_facts": "westbench.agents.atif",
    "score_trial": "westbench.agents.process",
    "agent_profile": "westbench.agents.process",
    "analyse_failures": "westbench.agents.failures",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
