# Agent benchmark (results/agents/): one Harbor trial per (task, agent, model, attempt), the judge of its
# process criteria and its process scorecard, the oracle gate, the leaderboard and the failure analysis. Needs Docker and Harbor (tools/setup-agents.sh),
# so the default target leaves it out: ask for `agents` (or results/agents/tasks/<task>.done) explicitly.


include: "agents_common.smk"


rule agent_trial:
    """One trial through Harbor; agent and verifier failures are recorded in trial.json, not raised."""
    input:
        agent_task_files,
    output:
        trial=PLAN.layout.agents.trial("{task}", "{agent}", "{model}", "{attempt}"),
    log:
        PLAN.layout.agents.log("trial_{task}_{agent}_{model}_{attempt}"),
    benchmark:
        PLAN.layout.agents.benchmark("trial_{task}_{agent}_{model}_{attempt}")
    wildcard_constraints:
        **AGENT_WILDCARDS,
    priority: agent_trial_priority
    conda:
        "../envs/agents.yaml"
    resources:
        agent_trials=1,
    params:
        settings=PLAN.params.agent_trial(),
        run=agent_trial_run,
        root=workflow.basedir,
        task_dir=agent_task_dir,
        job_dir=agent_job_dir,
    script:
        "../scripts/agent_trial.py"


rule agent_near_miss:
    """One near miss of a task (near_misses/<name>/solve.sh) run by the oracle agent as the reference solution."""
    input:
        agent_near_miss_files,
    output:
        trial=PLAN.layout.agents.near_miss("{task}", "{near_miss}"),
    log:
        PLAN.layout.agents.log("near_miss_{task}_{near_miss}"),
    benchmark:
        PLAN.layout.agents.benchmark("near_miss_{task}_{near_miss}")
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],
        near_miss=AGENT_WILDCARDS["agent"],
    priority: agent_trial_priority
    conda:
        "../envs/agents.yaml"
    resources:
        agent_trials=1,
    params:
        settings=PLAN.params.agent_trial(),
        run=PLAN.agents.near_miss_run(),
        root=workflow.basedir,
        task_dir=agent_task_dir,
        solution=agent_near_miss_dir,
        job_dir=agent_near_miss_job_dir,
    script:
        "../scripts/agent_trial.py"


rule agent_mutation:
    """Mutation testing of one task's verifier: mutants of its reference solution, each run through the verifier."""
    input:
        agent_mutation_files,
    output:
        json=PLAN.layout.agents.mutation("{task}"),
    log:
        PLAN.layout.agents.log("mutation_{task}"),
    benchmark:
        PLAN.layout.agents.benchmark("mutation_{task}")
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],
    conda:
        "../envs/agents.yaml"
    resources:
        agent_trials=1,
    params:
        settings=PLAN.params.agent_mutation(),
        task_dir=agent_task_dir,
        cache_dir=agent_mutation_cache,
    script:
        "../scripts/agent_mutation.py"


rule agent_mutation_score:
    """Every mutant of every task (mutation.csv) and each task's mutation score (mutation_score.csv)."""
    input:
        tasks=PLAN.agents.mutation_results(),
    output:
        mutants=report(
            PLAN.layout.agents.file("mutation.csv"),
            caption="../report/agents_mutation.rst",
            category="Agents",
            labels={"table": "mutants"},
        ),
        scores=report(
            PLAN.layout.agents.file("mutation_score.csv"),
            caption="../report/agents_mutation.rst",
            category="Agents",
            labels={"table": "mutation score"},
        ),
        json=PLAN.layout.agents.file("mutation.json"),
    log:
        PLAN.layout.agents.log("mutation_score"),
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_mutation_score.py"


rule agent_judge:
    """Process criteria of one trial (rubric.toml), judged through the endpoint in the environment, or not judged."""
    input:
        trial=PLAN.layout.agents.trial("{task}", "{agent}", "{model}", "{attempt}"),
    output:
        judge=PLAN.layout.agents.trial("{task}", "{agent}", "{model}", "{attempt}", "judge.json"),
    log:
        PLAN.layout.agents.log("judge_{task}_{agent}_{model}_{attempt}"),
    benchmark:
        PLAN.layout.agents.benchmark("judge_{task}_{agent}_{model}_{attempt}")
    wildcard_constraints:
        **AGENT_WILDCARDS,
    conda:
        "../envs/agents.yaml"
    params:
        judge=PLAN.params.agent_judge(),
        task_dir=agent_task_dir,
        cache_dir=PLAN.layout.agents.cache("judge"),
    script:
        "../scripts/agent_judge.py"


rule agent_process:
    """Process scorecard of one trial: the six capabilities the task gives an opportunity for (process.toml), each
    from 0/1/2-anchored items judged by the hardened judge through the endpoint in the environment, or not judged."""
    input:
        trial=PLAN.layout.agents.trial("{task}", "{agent}", "{model}", "{attempt}"),
        matrix=agent_process_matrix,
        rubric=PLAN.agents.process_rubric,
    output:
        process=PLAN.layout.agents.trial("{task}", "{agent}", "{model}", "{attempt}", "process.json"),
    log:
        PLAN.layout.agents.log("process_{task}_{agent}_{model}_{attempt}"),
    benchmark:
        PLAN.layout.agents.benchmark("process_{task}_{agent}_{model}_{attempt}")
    wildcard_constraints:
        **AGENT_WILDCARDS,
    conda:
        "../envs/agents.yaml"
    params:
        judge=PLAN.params.agent_judge(),
        task_dir=agent_task_dir,
        cache_dir=PLAN.layout.agents.cache("process"),
    script:
        "../scripts/agent_process.py"


rule agent_gate:
    """Oracle gate: reference solution 1.0, do-nothing agent 0.0 and every near miss below 1.0 on every task."""
    input:
        trials=PLAN.agents.gate_trials(),
        near_misses=PLAN.agents.near_miss_trials(),
        mutation=PLAN.agents.mutation_scores(),
    output:
        csv=report(
            PLAN.layout.agents.file("gate.csv"),
            caption="../report/agents_gate.rst",
            category="Agents",
            labels={"table": "oracle gate"},
        ),
        json=PLAN.layout.agents.file("gate.json"),
    log:
        PLAN.layout.agents.log("gate"),
    benchmark:
        PLAN.layout.agents.benchmark("gate")
    conda:
        "../envs/agents.yaml"
    params:
        tasks=PLAN.agents.tasks,
        tasks_dir=str(PLAN.agents.tasks_dir),  # each task's contract: the resolution its verifier states
        near_miss_tasks=PLAN.agents.near_miss_tasks,  # agents.gate.near_misses: whose near misses ran
        near_misses_recorded=PLAN.agents.near_misses_recorded,  # whose the recorded full gate caught, by commit
        reference=PLAN.agents.reference,
        null=PLAN.agents.null,
    script:
        "../scripts/agent_gate.py"


rule agent_leaderboard:
    """Leaderboard over the gated tasks (MDArena and FrontierChallenge counts, 95 % intervals), breakdowns, figures."""
    input:
        gate=PLAN.layout.agents.file("gate.json"),
        trials=PLAN.agents.trials(),
        judges=PLAN.agents.trials(name="judge.json"),
    output:
        leaderboard=report(
            PLAN.layout.agents.file("leaderboard.csv"),
            caption="../report/agents_leaderboard.rst",
            category="Agents",
            labels={"table": "leaderboard"},
        ),
        by_tag=report(
            PLAN.layout.agents.file("leaderboard_by_tag.csv"),
            caption="../report/agents_leaderboard.rst",
            category="Agents",
            labels={"table": "by tag"},
        ),
        trials=PLAN.layout.agents.file("trials.csv"),
        figure=report(
            PLAN.layout.agents.file("leaderboard.png"),
            caption="../report/agents_figure.rst",
            category="Agents",
            labels={"figure": "leaderboard"},
        ),
        outcomes=report(
            PLAN.layout.agents.file("outcomes.png"),
            caption="../report/agents_outcomes.rst",
            category="Agents",
            labels={"figure": "trial outcomes"},
        ),
        cost=report(
            PLAN.layout.agents.file("cost_vs_success.png"),
            caption="../report/agents_cost.rst",
            category="Agents",
            labels={"figure": "cost versus success"},
        ),
    log:
        PLAN.layout.agents.log("leaderboard"),
    benchmark:
        PLAN.layout.agents.benchmark("leaderboard")
    conda:
        "../envs/agents.yaml"
    params:
        settings=PLAN.params.agent_leaderboard(),  # only what the leaderboard reads
        tasks=PLAN.agents.tasks,
        tasks_dir=str(PLAN.agents.tasks_dir),
        runs=PLAN.agents.runs,
        seed=PLAN.params.seed("all", "agents_leaderboard"),
    script:
        "../scripts/agent_leaderboard.py"


rule agent_failures:
    """Process and failure analysis over the gated tasks: scorecards per agent with intervals, process against task
    score (Spearman, bootstrap interval), completion language by outcome, tool errors per 100 tool results, breach
    signatures by difficulty and category; tables and figures."""
    input:
        gate=PLAN.layout.agents.file("gate.json"),
        trials=PLAN.agents.trials(),
        judges=PLAN.agents.trials(name="judge.json"),
        scorecards=PLAN.agents.process_trials(),
    output:
        process=report(
            PLAN.layout.agents.file("process.csv"),
            caption="../report/agents_process.rst",
            category="Agents",
            labels={"table": "process scorecards"},
        ),
        process_summary=report(
            PLAN.layout.agents.file("process_summary.csv"),
            caption="../report/agents_process.rst",
            category="Agents",
            labels={"table": "process per agent"},
        ),
        process_correlation=PLAN.layout.agents.file("process_correlation.csv"),
        failures=report(
            PLAN.layout.agents.file("failures.csv"),
            caption="../report/agents_failures.rst",
            category="Agents",
            labels={"table": "failure analysis"},
        ),
        completion=PLAN.layout.agents.file("completion_claims.csv"),
        tool_errors=PLAN.layout.agents.file("tool_errors.csv"),
        breaches=PLAN.layout.agents.file("breaches.csv"),
        process_figure=report(
            PLAN.layout.agents.file("process.png"),
            caption="../report/agents_process.rst",
            category="Agents",
            labels={"figure": "process scorecards"},
        ),
        failures_figure=report(
            PLAN.layout.agents.file("failures.png"),
            caption="../report/agents_failures.rst",
            category="Agents",
            labels={"figure": "completion claims and tool errors"},
        ),
        breaches_figure=report(
            PLAN.layout.agents.file("breaches.png"),
            caption="../report/agents_failures.rst",
            category="Agents",
            labels={"figure": "breach signatures"},
        ),
    log:
        PLAN.layout.agents.log("failures"),
    benchmark:
        PLAN.layout.agents.benchmark("failures")
    conda:
        "../envs/agents.yaml"
    params:
        settings=PLAN.params.agent_failures(),
        tasks=PLAN.agents.tasks,
        tasks_dir=str(PLAN.agents.tasks_dir),
        gate_agents=PLAN.agents.gate_agents,
        seed=PLAN.params.seed("all", "agents_failures"),
    script:
        "../scripts/agent_failures.py"


rule agent_report:
    """The agent benchmark's own page: leaderboard with intervals, breakdowns, cost, outcomes, tasks, gate."""
    input:
        unpack(agent_page_optional_inputs),
        leaderboard=PLAN.layout.agents.file("leaderboard.csv"),
        by_tag=PLAN.layout.agents.file("leaderboard_by_tag.csv"),
        trials_table=PLAN.layout.agents.file("trials.csv"),
        gate=PLAN.layout.agents.file("gate.csv"),
        gate_summary=PLAN.layout.agents.file("gate.json"),
        leaderboard_figure=PLAN.layout.agents.file("leaderboard.png"),
        outcomes_figure=PLAN.layout.agents.file("outcomes.png"),
        cost_figure=PLAN.layout.agents.file("cost_vs_success.png"),
        suite=PLAN.layout.agents.file("suite_composition.csv"),
        process_summary=PLAN.layout.agents.file("process_summary.csv"),
        process_correlation=PLAN.layout.agents.file("process_correlation.csv"),
        process_table=PLAN.layout.agents.file("process.csv"),
        completion=PLAN.layout.agents.file("completion_claims.csv"),
        tool_errors=PLAN.layout.agents.file("tool_errors.csv"),
        breaches=PLAN.layout.agents.file("breaches.csv"),
        process_figure=PLAN.layout.agents.file("process.png"),
        failures_figure=PLAN.layout.agents.file("failures.png"),
        breaches_figure=PLAN.layout.agents.file("breaches.png"),
        trials=PLAN.agents.trials(),
    output:
        PLAN.layout.agents.page,
    log:
        PLAN.layout.agents.log("agent_report"),
    benchmark:
        PLAN.layout.agents.benchmark("agent_report")
    conda:
        "../envs/analysis.yaml"  # the report's environment (captions, tables)
    params:
        title=PLAN.params.agent_page_title(),
        gate_agents=PLAN.agents.gate_agents,
        trial_log=agent_trial_log,  # the trial rule's log pattern (a function: its wildcards stay unexpanded)
    script:
        "../scripts/agent_report.py"


rule agent_suite:
    """Composition of the selected task suite: tasks per difficulty, category, package, system and method."""
    input:
        tasks=PLAN.agents.task_tomls(),
    output:
        table=report(
            PLAN.layout.agents.file("suite_composition.csv"),
            caption="../report/agents_suite.rst",
            category="Agents",
            labels={"table": "task suite"},
        ),
        figure=report(
            PLAN.layout.agents.file("suite_composition.png"),
            caption="../report/agents_suite.rst",
            category="Agents",
            labels={"figure": "task suite"},
        ),
    log:
        PLAN.layout.agents.log("suite"),
    benchmark:
        PLAN.layout.agents.benchmark("suite")
    conda:
        "../envs/agents.yaml"
    script:
        "../scripts/agent_suite.py"


rule agents_task:
    """Target: every trial (and judge) of one task and its near misses, e.g. results/agents/tasks/we-weighted-rg.done."""
    input:
        trials=agents_task_trials,
        near_misses=agents_task_near_misses,
        judges=agents_task_judges,
        scorecards=agents_task_scorecards,
    output:
        touch(PLAN.layout.agents.task_done("{task}")),
    wildcard_constraints:
        task=AGENT_WILDCARDS["task"],


rule agents:
    """Target: the agent benchmark (trials, judge, process scorecards, oracle gate, leaderboard, failure analysis).
    Needs tools/setup-agents.sh."""
    input:
        rules.agent_leaderboard.output,
        rules.agent_failures.output,
        rules.agent_suite.output,
        PLAN.layout.agents.file("gate.csv"),
        PLAN.layout.agents.page,
