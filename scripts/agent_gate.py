"""Snakemake entry point: the oracle gate over every task (reference solution 1.0, do-nothing agent 0.0)."""

import json
import logging
from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)
import pandas as pd

from westbench.agents.contract.resolution import resolution_summary, task_resolution
from westbench.agents.gate import add_mutation_scores, catch_rate, oracle_gate
from westbench.agents.mutation import suite_score
from westbench.workflow import run_script, write_json


def main(snakemake):
    records = [json.loads(Path(p).read_text()) for p in snakemake.input.trials]
    extra = {
        r["task"]: {
            "verifier_mode": r.get("verifier_mode_declared"),
            "difficulty": r.get("difficulty"),
            "category": r.get("category"),
        }
        for r in records
    }
    resolution = {task: task_resolution(Path(snakemake.params.tasks_dir) / task) for task in snakemake.params.tasks}
    for task, rows in resolution.items():
        extra.setdefault(task, {}).update(resolution_summary(rows))
        extra[task]["near_misses_run"] = task in snakemake.params.near_miss_tasks
        extra[task]["near_misses_recorded"] = snakemake.params.near_misses_recorded.get(task, "")
    near_misses = {}
    for path in snakemake.input.near_misses:
        record = json.loads(Path(path).read_text())
        near_misses.setdefault(record["task"], []).append(record)
    table = oracle_gate(
        records,
        snakemake.params.tasks,
        snakemake.params.reference,
        snakemake.params.null,
        extra,
        near_misses=near_misses,
    )
    mutation = {}
    if snakemake.input.mutation:
        scores = pd.read_csv(snakemake.input.mutation[0])
        table = add_mutation_scores(table, scores)
        mutation = suite_score(scores.to_dict("records"))
    rate = catch_rate(table)
    logging.getLogger("westbench.agents").info(
        "near misses run for %d tasks (agents.gate.near_misses); %d tasks' all caught by the recorded full gate at "
        "today's inputs, not rerun",
        len(snakemake.params.near_miss_tasks),
        len(snakemake.params.near_misses_recorded),
    )
    logging.getLogger("westbench.agents").info(
        "near misses: %d of %d caught (catch rate %s) over %d tasks",
        rate["caught"],
        rate["near_misses"],
        rate["catch_rate"],
        rate["tasks_with_near_misses"],
    )
    for row in table.itertuples():
        if not row.passed:
            logging.getLogger("westbench.agents").warning(
                "task %s fails the oracle gate and is left out of the leaderboard: %s", row.task, row.reason
            )
        if row.verifier_mode == "shared":
            logging.getLogger("westbench.agents").info(
                "task %s declares a verifier in the agent's container ([verifier] environment_mode shared): westbench "
                "verifies it in a fresh container with the agent's changed files copied in",
                row.task,
            )
    table.to_csv(snakemake.output.csv, index=False)
    write_json(
        {
            "passed": table.loc[table["passed"], "task"].tolist(),
            "failed": dict(zip(table.loc[~table["passed"], "task"], table.loc[~table["passed"], "reason"])),
            "near_miss_catch_rate": rate,
            "mutation_score": mutation or None,
            "resolution": resolution,  # per task, every numeric requirement's window and smallest caught mistake
        },
        snakemake.output.json,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
