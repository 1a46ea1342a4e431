"""Snakemake entry point: the process criteria of one trial, judged by an LLM (or reported as not judged)."""

import json
import os
from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.judge import JudgeSettings, deliverable_texts, judge_trial, load_rubric, trajectory_parts
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings = JudgeSettings.from_section(os.environ, snakemake.params.judge)
    trial = json.loads(Path(snakemake.input.trial).read_text())
    task_dir = Path(snakemake.params.task_dir)
    rubric = load_rubric(task_dir / "rubric.toml")
    instruction = (task_dir / "instruction.md").read_text() if (task_dir / "instruction.md").is_file() else ""
    trial_dir = trial.get("trial_dir")
    result = judge_trial(
        rubric,
        instruction,
        trajectory_parts(trial_dir, settings.file_limit_bytes),
        deliverable_texts(trial_dir, rubric["files"], limit_bytes=settings.file_limit_bytes),
        settings,
        snakemake.params.cache_dir,
    )
    write_json(
        {
            "task": trial["task"],
            "agent": trial["agent"],
            "model": trial["model"],
            "attempt": trial["attempt"],
            **result,
        },
        snakemake.output.judge,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
