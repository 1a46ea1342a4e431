# The agent benchmark's wildcard functions (rules/agents.smk): one line each, the plan answers
# (westbench.plan.agents: tasks, runs, trials; westbench.plan.layout.AgentsLayout: paths; PLAN.params.agent_*).

# Constraints kept on the agent rules (not global) so other stages may use the same wildcard names.
AGENT_WILDCARDS = {
    "task": r"[A-Za-z0-9._-]+",
    "agent": r"[A-Za-z0-9._-]+",
    "model": r"[A-Za-z0-9._-]+",
    "attempt": r"[0-9]+",
}

# A trial's own agent entry and model: an agent or model not in agents.agents names the config files read.
agent_trial_run = of_wildcards(PLAN.agents.trial_run, "agent", "model")


def agent_task_files(wildcards):
    return PLAN.agents.task_files(wildcards.task)


def agent_mutation_files(wildcards):
    return PLAN.agents.mutation_files(wildcards.task)


def agent_task_dir(wildcards):
    return PLAN.agents.task_dir(wildcards.task)


def agent_trial_priority(wildcards):
    return PLAN.agents.priority(wildcards.task, getattr(wildcards, "agent", None))


def agent_job_dir(wildcards):
    return PLAN.layout.agents.harbor(wildcards.task, wildcards.agent, wildcards.model, wildcards.attempt)


def agent_near_miss_job_dir(wildcards):
    return PLAN.layout.agents.harbor(wildcards.task, "near-miss", wildcards.near_miss)


def agent_near_miss_dir(wildcards):
    return PLAN.agents.near_miss_dir(wildcards.task, wildcards.near_miss)


def agent_near_miss_files(wildcards):
    return PLAN.agents.near_miss_files(wildcards.task, wildcards.near_miss)


def agent_mutation_cache(wildcards):
    return PLAN.layout.agents.cache("mutation", wildcards.task)


def agent_process_matrix(wildcards):
    return PLAN.agents.process_matrix(wildcards.task)


def agent_page_optional_inputs(wildcards=None):
    return PLAN.agents.page_optional_inputs()


def agents_task_trials(wildcards):
    return PLAN.agents.trials(tasks=[wildcards.task])


def agents_task_judges(wildcards):
    return PLAN.agents.trials(tasks=[wildcards.task], name="judge.json")


def agents_task_near_misses(wildcards):
    return PLAN.agents.near_miss_trials(wildcards.task)


def agents_task_scorecards(wildcards):
    return PLAN.agents.process_trials(wildcards.task)


def agent_trial_log(wildcards=None):
    return str(rules.agent_trial.log[0])
