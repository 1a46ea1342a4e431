# Agent benchmark (results/agents/): one Harbor trial per (task, agent, model, attempt), the judge of its
# process criteria, the oracle gate and the leaderboard. Needs Docker and Harbor (tools/setup-agents.sh),
# so the default target leaves it out: ask for `agents` (or results/agents/tasks/<task>.done) explicitly.


include: "agents_common.smk"


rule agent_trial:
    """One trial through Harbor; agent and verifier failures are recorded in trial.json, not raised."""
    input:
        lambda wildcards: agents_task_files(AGENT_TASKS_DIR / wildcards.task),
    output:
        trial="results/agents/trials/{task}/{agent}/{model}/{attempt}/trial.json",
    log:
        "results/agents/logs/trial_{task}_{agent}_{model}_{attempt}.log",
    benchmark:
        "results/agents/benchmarks/trial_{task}_{agent}_{model}_{attempt}.tsv"
    wildcard_constraints:
        **AGENT_WILDCARDS,
    priority: agent_trial_priority
    conda:
        "../envs/agents.yaml"
    resources:
        agent_trials=1,
    params:
        settings={key: AGENTS[key] for key in AGENT_TRIAL_KEYS},
        run=agent_trial_run,
        root=workflow.basedir,
        task_dir=agent_task_dir,
        job_dir=lambda wildcards: f"results/agents/harbor/{wildcards.task}/{wildcards.agent}/{wildcards.model}/{wildcards.attempt}",
    script:
        "../scripts/agent_trial.py"


rule agent_near_miss:
    """One near miss of a task (near_misses/<name>/solve.sh) run by the oracle agent as the reference solution."""
    input:
        agent_near_miss_files,
    output:
        trial="results/agents/near_misses/{task}/{near_miss}/trial.json",
    log:
        "results/agents/logs/near_miss_{task}_{near_miss}.log",
    benchmark:
        "results/agents/benchmarks/near_miss_{task}_{near_miss}.tsv"
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],
        near_miss=AGENT_WILDCARDS["agent"],
    priority: agent_trial_priority
    conda:
        "../envs/agents.yaml"
    resources:
        agent_trials=1,
    params:
        settings={key: AGENTS[key] for key in AGENT_TRIAL_KEYS},
        run={"agent": {"id": "near-miss", "name": "oracle"}, "model": None},
        root=workflow.basedir,
        task_dir=agent_task_dir,
        solution=agent_near_miss_dir,
        job_dir=lambda wildcards: f"results/agents/harbor/{wildcards.task}/near-miss/{wildcards.near_miss}",
    script:
        "../scripts/agent_trial.py"


rule agent_judge:
    """Process criteria of one trial (rubric.toml), judged through the endpoint in the environment, or not judged."""
    input:
        trial="results/agents/trials/{task}/{agent}/{model}/{attempt}/trial.json",
    output:
        judge="results/agents/trials/{task}/{agent}/{model}/{attempt}/judge.json",
    log:
        "results/agents/logs/judge_{task}_{agent}_{model}_{attempt}.log",
    benchmark:
        "results/agents/benchmarks/judge_{task}_{agent}_{model}_{attempt}.tsv"
    wildcard_constraints:
        **AGENT_WILDCARDS,
    conda:
        "../envs/agents.yaml"
    params:
        judge=AGENTS["judge"],
        task_dir=agent_task_dir,
        cache_dir="results/agents/judge-cache",
    script:
        "../scripts/agent_judge.py"


rule agent_gate:
    """Oracle gate: reference solution 1.0, do-nothing agent 0.0 and every near miss below 1.0 on every task."""
    input:
        trials=agent_gate_trials(),
        near_misses=agent_near_miss_trials(),
    output:
        csv=report(
            "results/agents/gate.csv",
            caption="../report/agents_gate.rst",
            category="Agents",
            labels={"table": "oracle gate"},
        ),
        json="results/agents/gate.json",
    log:
        "results/agents/logs/gate.log",
    benchmark:
        "results/agents/benchmarks/gate.tsv"
    conda:
        "../envs/agents.yaml"
    params:
        tasks=AGENT_TASKS,
        reference=AGENTS["gate"]["reference"],
        null=AGENTS["gate"]["null"],
    script:
        "../scripts/agent_gate.py"


rule agent_leaderboard:
    """Leaderboard over the gated tasks (MDArena and FrontierChallenge counts, 95 % intervals), breakdowns, figures."""
    input:
        gate="results/agents/gate.json",
        trials=agent_trials(),
        judges=[path.replace("trial.json", "judge.json") for path in agent_trials()],
    output:
        leaderboard=report(
            "results/agents/leaderboard.csv",
            caption="../report/agents_leaderboard.rst",
            category="Agents",
            labels={"table": "leaderboard"},
        ),
        by_tag=report(
            "results/agents/leaderboard_by_tag.csv",
            caption="../report/agents_leaderboard.rst",
            category="Agents",
            labels={"table": "by tag"},
        ),
        trials="results/agents/trials.csv",
        figure=report(
            "results/agents/leaderboard.png",
            caption="../report/agents_figure.rst",
            category="Agents",
            labels={"figure": "leaderboard"},
        ),
        outcomes=report(
            "results/agents/outcomes.png",
            caption="../report/agents_outcomes.rst",
            category="Agents",
            labels={"figure": "trial outcomes"},
        ),
        cost=report(
            "results/agents/cost_vs_success.png",
            caption="../report/agents_cost.rst",
            category="Agents",
            labels={"figure": "cost versus success"},
        ),
    log:
        "results/agents/logs/leaderboard.log",
    benchmark:
        "results/agents/benchmarks/leaderboard.tsv"
    conda:
        "../envs/agents.yaml"
    params:
        settings={key: AGENTS[key] for key in LEADERBOARD_KEYS},  # only what the leaderboard reads
        tasks=AGENT_TASKS,
        tasks_dir=str(AGENT_TASKS_DIR),
        runs=AGENT_RUNS,
        seed=agents_leaderboard_seed(),
    script:
        "../scripts/agent_leaderboard.py"


rule agent_suite:
    """Composition of the selected task suite: tasks per difficulty, category, package, system and method."""
    input:
        tasks=lambda wildcards: [str(AGENT_TASKS_DIR / task / "task.toml") for task in AGENT_TASKS],
    output:
        table=report(
            "results/agents/suite_composition.csv",
            caption="../report/agents_suite.rst",
            category="Agents",
            labels={"table": "task suite"},
        ),
        figure=report(
            "results/agents/suite_composition.png",
            caption="../report/agents_suite.rst",
            category="Agents",
            labels={"figure": "task suite"},
        ),
    log:
        "results/agents/logs/suite.log",
    benchmark:
        "results/agents/benchmarks/suite.tsv"
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_suite.py"


rule agents_task:
    """Target: every trial (and judge) of one task and its near misses, e.g. results/agents/tasks/we-weighted-rg.done."""
    input:
        trials=lambda wildcards: agent_trials(tasks=[wildcards.task]),
        near_misses=lambda wildcards: [
            agents_plan.near_miss_path(wildcards.task, n) for n in AGENT_NEAR_MISSES.get(wildcards.task, [])
        ],
        judges=lambda wildcards: [p.replace("trial.json", "judge.json") for p in agent_trials(tasks=[wildcards.task])],
    output:
        touch("results/agents/tasks/{task}.done"),
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],


rule agents:
    """Target: the agent benchmark (trials, judge, oracle gate, leaderboard). Needs tools/setup-agents.sh."""
    input:
        rules.agent_leaderboard.output,
        rules.agent_suite.output,
        "results/agents/gate.csv",
