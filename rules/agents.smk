# Agent benchmark (results/agents/): one Harbor trial per (task, agent, model, attempt), the judge of its
# process criteria and its process scorecard, the oracle gate, the leaderboard and the failure analysis. Needs Docker and Harbor (tools/setup-agents.sh),
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


rule agent_mutation:
    """Mutation testing of one task's verifier: mutants of its reference solution, each run through the verifier."""
    input:
        lambda wildcards: agents_mutation_files(AGENT_TASKS_DIR / wildcards.task),
    output:
        json="results/agents/mutation/{task}.json",
    log:
        "results/agents/logs/mutation_{task}.log",
    benchmark:
        "results/agents/benchmarks/mutation_{task}.tsv"
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],
    conda:
        "../envs/agents.yaml"
    resources:
        agent_trials=1,
    params:
        settings={key: AGENTS[key] for key in AGENT_MUTATION_KEYS},
        task_dir=agent_task_dir,
        cache_dir=lambda wildcards: f"results/agents/mutation-cache/{wildcards.task}",
    script:
        "../scripts/agent_mutation.py"


rule agent_mutation_score:
    """Every mutant of every task (mutation.csv) and each task's mutation score (mutation_score.csv)."""
    input:
        tasks=agent_mutation_results(),
    output:
        mutants=report(
            "results/agents/mutation.csv",
            caption="../report/agents_mutation.rst",
            category="Agents",
            labels={"table": "mutants"},
        ),
        scores=report(
            "results/agents/mutation_score.csv",
            caption="../report/agents_mutation.rst",
            category="Agents",
            labels={"table": "mutation score"},
        ),
        json="results/agents/mutation.json",
    log:
        "results/agents/logs/mutation_score.log",
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_mutation_score.py"


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


rule agent_process:
    """Process scorecard of one trial: the six capabilities the task gives an opportunity for (process.toml), each
    from 0/1/2-anchored items judged by the hardened judge through the endpoint in the environment, or not judged."""
    input:
        trial="results/agents/trials/{task}/{agent}/{model}/{attempt}/trial.json",
        matrix=agent_process_matrix,
        rubric=str(PROCESS_RUBRIC),
    output:
        process="results/agents/trials/{task}/{agent}/{model}/{attempt}/process.json",
    log:
        "results/agents/logs/process_{task}_{agent}_{model}_{attempt}.log",
    benchmark:
        "results/agents/benchmarks/process_{task}_{agent}_{model}_{attempt}.tsv"
    wildcard_constraints:
        **AGENT_WILDCARDS,
    conda:
        "../envs/agents.yaml"
    params:
        judge=AGENTS["judge"],
        task_dir=agent_task_dir,
        cache_dir="results/agents/process-cache",
    script:
        "../scripts/agent_process.py"


rule agent_gate:
    """Oracle gate: reference solution 1.0, do-nothing agent 0.0 and every near miss below 1.0 on every task."""
    input:
        trials=agent_gate_trials(),
        near_misses=agent_near_miss_trials(),
        mutation=agent_mutation_scores(),
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


rule agent_failures:
    """Process and failure analysis over the gated tasks: scorecards per agent with intervals, process against task
    score (Spearman, bootstrap interval), completion language by outcome, tool errors per 100 tool results, breach
    signatures by difficulty and category; tables and figures."""
    input:
        gate="results/agents/gate.json",
        trials=agent_trials(),
        judges=[path.replace("trial.json", "judge.json") for path in agent_trials()],
        scorecards=agent_process_trials(),
    output:
        process=report(
            "results/agents/process.csv",
            caption="../report/agents_process.rst",
            category="Agents",
            labels={"table": "process scorecards"},
        ),
        process_summary=report(
            "results/agents/process_summary.csv",
            caption="../report/agents_process.rst",
            category="Agents",
            labels={"table": "process per agent"},
        ),
        process_correlation="results/agents/process_correlation.csv",
        failures=report(
            "results/agents/failures.csv",
            caption="../report/agents_failures.rst",
            category="Agents",
            labels={"table": "failure analysis"},
        ),
        completion="results/agents/completion_claims.csv",
        tool_errors="results/agents/tool_errors.csv",
        breaches="results/agents/breaches.csv",
        process_figure=report(
            "results/agents/process.png",
            caption="../report/agents_process.rst",
            category="Agents",
            labels={"figure": "process scorecards"},
        ),
        failures_figure=report(
            "results/agents/failures.png",
            caption="../report/agents_failures.rst",
            category="Agents",
            labels={"figure": "completion claims and tool errors"},
        ),
        breaches_figure=report(
            "results/agents/breaches.png",
            caption="../report/agents_failures.rst",
            category="Agents",
            labels={"figure": "breach signatures"},
        ),
    log:
        "results/agents/logs/failures.log",
    benchmark:
        "results/agents/benchmarks/failures.tsv"
    conda:
        "../envs/agents.yaml"
    params:
        settings={
            **{key: AGENTS[key] for key in job_keys("agent_failures")},
            **{key: AGENTS["process"][key] for key in job_keys("agent_failures_process")},
        },
        tasks=AGENT_TASKS,
        tasks_dir=str(AGENT_TASKS_DIR),
        gate_agents=[AGENTS["gate"]["reference"], AGENTS["gate"]["null"]],
        seed=agents_failures_seed(),
    script:
        "../scripts/agent_failures.py"


rule agent_report:
    """The agent benchmark's own page: leaderboard with intervals, breakdowns, cost, outcomes, tasks, gate."""
    input:
        unpack(agent_page_optional_inputs),
        leaderboard="results/agents/leaderboard.csv",
        by_tag="results/agents/leaderboard_by_tag.csv",
        trials_table="results/agents/trials.csv",
        gate="results/agents/gate.csv",
        gate_summary="results/agents/gate.json",
        leaderboard_figure="results/agents/leaderboard.png",
        outcomes_figure="results/agents/outcomes.png",
        cost_figure="results/agents/cost_vs_success.png",
        suite="results/agents/suite_composition.csv",
        process_summary="results/agents/process_summary.csv",
        process_correlation="results/agents/process_correlation.csv",
        process_table="results/agents/process.csv",
        completion="results/agents/completion_claims.csv",
        tool_errors="results/agents/tool_errors.csv",
        breaches="results/agents/breaches.csv",
        process_figure="results/agents/process.png",
        failures_figure="results/agents/failures.png",
        breaches_figure="results/agents/breaches.png",
        trials=agent_trials(),
    output:
        "results/report/agents.html",
    log:
        "results/agents/logs/agent_report.log",
    benchmark:
        "results/agents/benchmarks/agent_report.tsv"
    conda:
        "../envs/analysis.yaml"  # the report's environment (captions, tables)
    params:
        title=f"{config['report']['title']}: agent benchmark",
        gate_agents=[AGENTS["gate"]["reference"], AGENTS["gate"]["null"]],
        trial_log=lambda wildcards: str(rules.agent_trial.log[0]),
    script:
        "../scripts/agent_report.py"


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
        scorecards=lambda wildcards: [
            p for p in agent_process_trials() if p.startswith(f"results/agents/trials/{wildcards.task}/")
        ],
    output:
        touch("results/agents/tasks/{task}.done"),
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],


rule agents:
    """Target: the agent benchmark (trials, judge, process scorecards, oracle gate, leaderboard, failure analysis).
    Needs tools/setup-agents.sh."""
    input:
        rules.agent_leaderboard.output,
        rules.agent_failures.output,
        rules.agent_suite.output,
        "results/agents/gate.csv",
        "results/report/agents.html",
