# Agent benchmark (results/agents/): one Harbor trial per (task, agent, model, attempt), the judge of its
# process criteria, the oracle gate and the leaderboard. Needs Docker and Harbor (tools/setup-agents.sh),
# so the default target leaves it out: ask for `agents` (or `agents_task_<task>` files) explicitly.

from westbench.agents import plan as agents_plan  # noqa: E402
from westbench.agents.tasks import task_files as agents_task_files, task_names as agents_task_names  # noqa: E402
from westbench.errors import ConfigError as AgentsConfigError  # noqa: E402

AGENTS = config["agents"]
try:
    agents_plan.check_gate_agents(AGENTS)
except AgentsConfigError as exc:
    raise WorkflowError(str(exc)) from None
AGENT_RUNS = [(agent, model) for agent, model, _ in agents_plan.runs(AGENTS)]
AGENT_TASKS_DIR = Path(AGENTS["tasks_dir"])
AGENT_TASKS = agents_task_names(AGENT_TASKS_DIR) if AGENT_TASKS_DIR.is_dir() else []
AGENT_ATTEMPTS = list(range(1, AGENTS["attempts"] + 1))

# Constraints kept on the agent rules (not global) so other stages may use the same wildcard names.
AGENT_WILDCARDS = {"task": r"[A-Za-z0-9._-]+", "agent": r"[A-Za-z0-9._-]+", "model": r"[A-Za-z0-9._-]+", "attempt": r"[0-9]+"}


def agent_task_dir(wildcards):
    return str(AGENT_TASKS_DIR / wildcards.task)


def agent_trials(tasks=None, runs=None):
    return [agents_plan.trial_path(t, a, m, k) for t in (tasks or AGENT_TASKS) for a, m in (runs or AGENT_RUNS)
            for k in AGENT_ATTEMPTS]


def agent_gate_trials(wildcards=None):
    gate = AGENTS["gate"]
    return [agents_plan.trial_path(t, a, "none", 1) for t in AGENT_TASKS for a in (gate["reference"], gate["null"])]


rule agent_trial:
    """One trial through Harbor; agent and verifier failures are recorded in trial.json, not raised."""
    input:
        lambda wildcards: agents_task_files(AGENT_TASKS_DIR / wildcards.task),
    output:
        trial="results/agents/trials/{task}/{agent}/{model}/{attempt}/trial.json",
    wildcard_constraints:
        **AGENT_WILDCARDS,
    params:
        settings=AGENTS,
        root=workflow.basedir,
        task_dir=agent_task_dir,
        job_dir=lambda wildcards: f"results/agents/harbor/{wildcards.task}/{wildcards.agent}/{wildcards.model}/{wildcards.attempt}",
    resources:
        agent_trials=1,
    log:
        "results/agents/logs/trial_{task}_{agent}_{model}_{attempt}.log",
    benchmark:
        "results/agents/benchmarks/trial_{task}_{agent}_{model}_{attempt}.tsv"
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_trial.py"


rule agent_judge:
    """Process criteria of one trial (rubric.toml), judged through the endpoint in the environment, or not judged."""
    input:
        trial="results/agents/trials/{task}/{agent}/{model}/{attempt}/trial.json",
    output:
        judge="results/agents/trials/{task}/{agent}/{model}/{attempt}/judge.json",
    wildcard_constraints:
        **AGENT_WILDCARDS,
    params:
        judge=AGENTS["judge"],
        task_dir=agent_task_dir,
        cache_dir="results/agents/judge-cache",
    log:
        "results/agents/logs/judge_{task}_{agent}_{model}_{attempt}.log",
    benchmark:
        "results/agents/benchmarks/judge_{task}_{agent}_{model}_{attempt}.tsv"
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_judge.py"


rule agent_gate:
    """Oracle gate: reference solution 1.0 and do-nothing agent 0.0 on every task."""
    input:
        trials=agent_gate_trials(),
    output:
        csv=report("results/agents/gate.csv", caption="../report/agents_gate.rst", category="Agents",
                   labels={"table": "oracle gate"}),
        json="results/agents/gate.json",
    params:
        tasks=AGENT_TASKS,
        reference=AGENTS["gate"]["reference"],
        null=AGENTS["gate"]["null"],
    log:
        "results/agents/logs/gate.log",
    benchmark:
        "results/agents/benchmarks/gate.tsv"
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_gate.py"


rule agent_leaderboard:
    """Leaderboard over the gated tasks, fixed denominators, breakdowns by difficulty and category."""
    input:
        gate="results/agents/gate.json",
        trials=agent_trials(),
        judges=[path.replace("trial.json", "judge.json") for path in agent_trials()],
    output:
        leaderboard=report("results/agents/leaderboard.csv", caption="../report/agents_leaderboard.rst",
                           category="Agents", labels={"table": "leaderboard"}),
        by_difficulty=report("results/agents/leaderboard_by_difficulty.csv", caption="../report/agents_leaderboard.rst",
                             category="Agents", labels={"table": "by difficulty"}),
        by_category=report("results/agents/leaderboard_by_category.csv", caption="../report/agents_leaderboard.rst",
                           category="Agents", labels={"table": "by category"}),
        trials="results/agents/trials.csv",
        figure=report("results/agents/leaderboard.png", caption="../report/agents_figure.rst", category="Agents",
                      labels={"figure": "leaderboard"}),
    params:
        settings=AGENTS,
        tasks=AGENT_TASKS,
        runs=AGENT_RUNS,
    log:
        "results/agents/logs/leaderboard.log",
    benchmark:
        "results/agents/benchmarks/leaderboard.tsv"
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_leaderboard.py"


rule agents_task:
    """Target: every trial (and judge) of one task, e.g. results/agents/tasks/we-weighted-rg.done."""
    input:
        trials=lambda wildcards: agent_trials(tasks=[wildcards.task]),
        judges=lambda wildcards: [p.replace("trial.json", "judge.json") for p in agent_trials(tasks=[wildcards.task])],
    output:
        touch("results/agents/tasks/{task}.done"),
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],


rule agents:
    """Target: the agent benchmark (trials, judge, oracle gate, leaderboard). Needs tools/setup-agents.sh."""
    input:
        rules.agent_leaderboard.output,
        "results/agents/gate.csv",
