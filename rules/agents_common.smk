# Agent benchmark: the validated `agents` section, the task list and the input functions of rules/agents.smk.

from westbench.agents import plan as agents_plan  # noqa: E402
from westbench.agents.tasks import TaskError as AgentsTaskError, select_tasks as agents_select_tasks  # noqa: E402
from westbench.agents.tasks import (  # noqa: E402
    mutation_files as agents_mutation_files,
    task_files as agents_task_files,
    task_names as agents_task_names,
)
from westbench.agents.tasks import near_misses as agents_near_misses  # noqa: E402
from westbench.agents.tasks import load_task as agents_load_task  # noqa: E402
from westbench.plan.jobkeys import job_keys  # noqa: E402
from westbench.agents.process import SHARED_RUBRIC as PROCESS_RUBRIC  # noqa: E402
from westbench.errors import ConfigError as AgentsConfigError  # noqa: E402

AGENTS = config["agents"]
try:
    agents_plan.check_gate_agents(AGENTS)
except AgentsConfigError as exc:
    raise WorkflowError(str(exc)) from None
AGENT_TASKS_DIR = Path(AGENTS["tasks_dir"])
try:
    AGENT_TASKS = agents_select_tasks(
        agents_task_names(AGENT_TASKS_DIR) if AGENT_TASKS_DIR.is_dir() else [], AGENTS["select"]["tasks"]
    )
    AGENT_RUNS = [(agent, model) for agent, model, _ in agents_plan.runs(AGENTS)]
    # Near misses (plausible wrong solutions) each task ships: run as the reference, gated below 1.
    AGENT_NEAR_MISSES = {
        task: list(agents_near_misses(AGENT_TASKS_DIR / task)) if AGENTS["gate"]["near_misses"] else []
        for task in AGENT_TASKS
    }
except (AgentsConfigError, AgentsTaskError) as exc:
    raise WorkflowError(str(exc)) from None
AGENT_ATTEMPTS = list(range(1, AGENTS["attempts"] + 1))


def agents_task_timeout(task):
    """The agent timeout task.toml gives (None when unset or when the task does not load: its trial says why)."""
    try:
        return agents_load_task(AGENT_TASKS_DIR / task).agent_timeout_s
    except AgentsTaskError:
        return None


AGENT_TIMEOUTS = {task: agents_task_timeout(task) for task in AGENT_TASKS}

# Constraints kept on the agent rules (not global) so other stages may use the same wildcard names.
AGENT_WILDCARDS = {
    "task": r"[A-Za-z0-9._-]+",
    "agent": r"[A-Za-z0-9._-]+",
    "model": r"[A-Za-z0-9._-]+",
    "attempt": r"[0-9]+",
}


# What one trial reads of `agents` (with its own agent entry and model: see agent_trial_run).
AGENT_TRIAL_KEYS = job_keys("agent_trial")
# What the leaderboard reads of `agents`.
LEADERBOARD_KEYS = job_keys("agent_leaderboard")
AGENT_MUTATION_KEYS = job_keys("agent_mutation")


def agent_trial_run(wildcards):
    """One trial's agent entry (without the agent's other models) and model name: adding an agent or a model
    reruns no other trial."""
    try:
        entry, model = agents_plan.find_run(AGENTS, wildcards.agent, wildcards.model)
    except AgentsConfigError as exc:
        raise WorkflowError(str(exc)) from None
    return {"agent": {key: value for key, value in entry.items() if key != "models"}, "model": model}


def agent_trial_priority(wildcards):
    """Longest trials first (westbench.agents.plan.trial_priority); the null agent's trials last."""
    return agents_plan.trial_priority(
        AGENT_TIMEOUTS.get(wildcards.task),
        null_agent=getattr(wildcards, "agent", None) == AGENTS["gate"]["null"],
        default_timeout_s=AGENTS["default_agent_timeout_s"],
    )


def agent_task_dir(wildcards):
    return str(AGENT_TASKS_DIR / wildcards.task)


def agent_trials(tasks=None, runs=None):
    return [
        agents_plan.trial_path(t, a, m, k)
        for t in (tasks or AGENT_TASKS)
        for a, m in (runs or AGENT_RUNS)
        for k in AGENT_ATTEMPTS
    ]


def agent_gate_trials(wildcards=None):
    gate = AGENTS["gate"]
    return [agents_plan.trial_path(t, a, "none", 1) for t in AGENT_TASKS for a in (gate["reference"], gate["null"])]


def agent_near_miss_trials(wildcards=None):
    return [agents_plan.near_miss_path(task, name) for task in AGENT_TASKS for name in AGENT_NEAR_MISSES[task]]


def agent_mutation_results(wildcards=None):
    return [f"results/agents/mutation/{task}.json" for task in AGENT_TASKS]


def agent_mutation_scores(wildcards=None):
    """The gate's mutation scores (none when agents.gate.mutation is off)."""
    return ["results/agents/mutation_score.csv"] if AGENTS["gate"]["mutation"] else []


def agent_near_miss_dir(wildcards):
    return str(AGENT_TASKS_DIR / wildcards.task / "near_misses" / wildcards.near_miss)


def agent_near_miss_files(wildcards):
    """A near miss's trial reruns when the task or that near miss changes (not when another near miss does)."""
    folder = Path(agent_near_miss_dir(wildcards))
    return list(agents_task_files(AGENT_TASKS_DIR / wildcards.task)) + sorted(
        str(p) for p in folder.rglob("*") if p.is_file()
    )


def agents_leaderboard_seed():
    """Seed of the leaderboard's bootstrap intervals, derived from the config's base seed."""
    from westbench.seeds import stage_seed

    return stage_seed(config["seed"], "all", "agents_leaderboard")


def agent_page_optional_inputs(wildcards=None):
    """The mutation files the page shows, as inputs only when the gate runs mutation testing (agents.gate.mutation,
    asked of agent_mutation_scores): otherwise the page reads them when present, and an `agents` run never starts
    the hours of mutation testing to draw the page."""
    from westbench.report.agents_page import FILES, OPTIONAL

    if not agent_mutation_scores():
        return {}
    written = {str(path) for rule in workflow.rules for path in rule.output}
    paths = {role: f"results/agents/{FILES[role]}" for role in OPTIONAL if role in ("mutation", "mutation_score")}
    return {role: path for role, path in paths.items() if path in written}


def agent_process_runs():
    """The (agent, model) runs whose trials get a process scorecard: the agents under test, and the gate's own
    when agents.process.assess_gate_agents."""
    gate = {AGENTS["gate"]["reference"], AGENTS["gate"]["null"]}
    return [run for run in AGENT_RUNS if AGENTS["process"]["assess_gate_agents"] or run[0] not in gate]


def agent_process_trials(wildcards=None):
    """Every process.json the failure analysis reads (beside its trial.json)."""
    return [
        agents_plan.trial_path(t, a, m, k).replace("trial.json", "process.json")
        for t in AGENT_TASKS
        for a, m in agent_process_runs()
        for k in AGENT_ATTEMPTS
    ]


def agent_process_matrix(wildcards):
    """The task's opportunity matrix (process.toml) when it has one: editing it rescores its trials."""
    path = AGENT_TASKS_DIR / wildcards.task / "process.toml"
    return [str(path)] if path.is_file() else []


def agents_failures_seed():
    """Seed of the failure analysis's bootstrap intervals, derived from the config's base seed."""
    from westbench.seeds import stage_seed

    return stage_seed(config["seed"], "all", "agents_failures")
