"""Snakemake entry point: one Harbor trial (task, agent, model, attempt), graded."""

from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.harbor import check_engine, execute_trial
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings = snakemake.params.settings
    root = Path(snakemake.params.root)
    harbor = Path(settings["harbor"]) if Path(settings["harbor"]).is_absolute() else root / settings["harbor"]
    check_engine(settings["environment"], harbor)  # machine-level problems stop the job with the fix
    agent, model = snakemake.params.run["agent"], snakemake.params.run["model"]
    solution = getattr(snakemake.params, "solution", None)  # a near miss run as the reference (rule agent_near_miss)
    record = execute_trial(
        Path(snakemake.params.task_dir),
        agent,
        model,
        int(getattr(snakemake.wildcards, "attempt", 1)),
        settings,
        root,
        Path(snakemake.params.job_dir),
        solution=Path(solution) if solution else None,
    )
    if solution:
        record["near_miss"] = Path(solution).name
        why = Path(solution) / "why.md"
        record["near_miss_why"] = why.read_text().strip() if why.is_file() else ""
    import logging

    logging.getLogger("westbench.agents").info(
        "%s/%s/%s/%s%s: %s, correctness %.3f, %.1f s (overhead %.1f s) %s",
        record["task"],
        record["agent"],
        record["model"],
        record["attempt"],
        f" ({record['near_miss']})" if solution else "",
        record["status"],
        record["correctness"],
        record.get("wall_s") or 0,
        record.get("overhead_s") or 0,
        record.get("reason", ""),
    )
    write_json(record, snakemake.output.trial)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
