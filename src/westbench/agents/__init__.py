"""The agent benchmark: Harbor tasks, trials, grading, the LLM judge, the oracle gate and the leaderboard.

One module per job: :mod:`~westbench.agents.tasks` (load and validate Harbor task folders),
:mod:`~westbench.agents.harbor` (run one trial through the Harbor CLI), :mod:`~westbench.agents.grading`
(status and score of a trial), :mod:`~westbench.agents.judge` (process criteria through an
OpenAI-compatible endpoint), :mod:`~westbench.agents.gate` (oracle/nop gate),
:mod:`~westbench.agents.statistics` (the leaderboard's counts and intervals),
:mod:`~westbench.agents.trials` (trial records), :mod:`~westbench.agents.figures` (its figures),
:mod:`~westbench.agents.leaderboard` (the step writing its tables and figures), :mod:`~westbench.agents.verifykit`
(the verifier helper copied into every task).
"""
