"""Small synthetic agent results for the agent page's doctests, tests and browser test: the page's input files
(:data:`westbench.report.agents_results.FILES`) for two gate agents and one model agent over three tasks, and the
failure analysis's tables and figures made by the analysis's own functions.

Examples
--------
>>> import tempfile
>>> files = example_files(Path(tempfile.mkdtemp()), failures=False)
>>> sorted(files)
['by_tag', 'gate', 'gate_summary', 'leaderboard', 'trials_table']
>>> pd.read_csv(files["leaderboard"])[["agent", "pass_rate", "n_passed"]].values.tolist()
[['oracle', 1.0, 2], ['nop', 0.0, 0], ['model-agent', 0.5, 1]]
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pandas as pd

from westbench.report.agents_results import FILES

TASKS = ["easy-one", "hard-two", "broken-three"]
RUNS = [("oracle", "none"), ("nop", "none"), ("model-agent", "openai-gpt")]


def example_files(folder, failures: bool = True) -> dict[str, Path]:
    """Small synthetic agent results in ``folder`` (two gate agents and one model agent over three tasks), for
    doctests and the browser test: the files by role, without mutation testing; with the failure analysis's
    tables and figures (:func:`example_failure_files`) unless ``failures`` is false."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(_example_trials()).to_csv(folder / FILES["trials_table"], index=False)
    pd.DataFrame([_example_board_row(agent, model) for agent, model in RUNS]).to_csv(
        folder / FILES["leaderboard"], index=False
    )
    pd.DataFrame(_example_by_tag()).to_csv(folder / FILES["by_tag"], index=False)
    _write_example_gate(folder)
    if failures:
        example_failure_files(folder)
    return {role: folder / name for role, name in FILES.items() if (folder / name).is_file()}


def _example_trials() -> list[dict]:
    """One trial of each agent on the two gated tasks: the model agent passes the easy one and half the hard one."""
    trials = []
    for task, difficulty in zip(TASKS[:2], ("easy", "hard")):
        for agent, model in RUNS:
            correctness = {"oracle": 1.0, "nop": 0.0}.get(agent, 1.0 if difficulty == "easy" else 0.5)
            status = "passed" if correctness == 1.0 else "failed"
            trials.append(
                {
                    "task": task,
                    "agent": agent,
                    "model": model,
                    "attempt": 1,
                    "status": status,
                    "correctness": correctness,
                    "difficulty": difficulty,
                    "category": "analysis",
                    "cost_usd": 0.02 if agent == "model-agent" else np.nan,
                    "wall_s": 30.0,
                }
            )
    return trials


def _example_board_row(agent: str, model: str) -> dict:
    """An agent's leaderboard row: pass rate 1 (oracle), 0 (nop) or 0.5 (the model agent), intervals of +-0.4."""
    rate = {"oracle": 1.0, "nop": 0.0}.get(agent, 0.5)
    return {
        "agent": agent,
        "model": model,
        "tasks": 2,
        "trials": 2,
        "pass_rate": rate,
        "pass_rate_lo": max(0.0, rate - 0.4),
        "pass_rate_hi": min(1.0, rate + 0.4),
        "fc_avg_score": 100 * rate,
        "fc_avg_score_lo": 0.0,
        "fc_avg_score_hi": 100.0,
        "mean_correctness": rate,
        "judged_share": 0.0,
        "strict_pass_at_1": np.nan,
        "cost_usd_per_task": 0.02 if agent == "model-agent" else np.nan,
        "wall_s_median": 30.0,
        "wall_s_p90": 30.0,
        "n_passed": int(2 * rate),
        "n_failed": 2 - int(2 * rate),
        "gated_tasks": 2,
        "near_miss_catch_rate": 1.0,
        "near_misses": 2,
    }


def _example_by_tag() -> list[dict]:
    """The leaderboard by difficulty and category: only the oracle passes."""
    return [
        {
            "agent": a,
            "model": m,
            "tag": tag,
            "value": value,
            "tasks": 1,
            "pass_rate": 1.0 if a == "oracle" else 0.0,
            "pass_rate_lo": 0.2,
            "pass_rate_hi": 1.0,
        }
        for a, m in RUNS
        for tag, value in (("difficulty", "easy"), ("difficulty", "hard"), ("category", "analysis"))
    ]


def _write_example_gate(folder: Path) -> None:
    """The oracle gate's table and summary: the first two tasks pass, the third's oracle scored 0.5."""
    gate = pd.DataFrame(
        {
            "task": TASKS,
            "passed": [True, True, False],
            "reason": ["", "", "oracle scored 0.5"],
            "near_misses": [1, 1, 0],
            "near_miss_caught": [1, 1, 0],
            "near_miss_missed": ["", "", ""],
            "near_miss_max": [0.5, 0.0, np.nan],
        }
    )
    gate.to_csv(folder / FILES["gate"], index=False)
    summary = {
        "passed": TASKS[:2],
        "failed": {TASKS[2]: "oracle scored 0.5"},
        "near_miss_catch_rate": {"near_misses": 2, "caught": 2, "catch_rate": 1.0, "tasks_with_near_misses": 2},
        "resolution": {
            TASKS[0]: [
                {
                    "item": "mean-rg",
                    "kind": "computed",
                    "window": "0.001 nm of the verifier's own Rg",
                    "smallest_mistake": "the first frame left out (0.004 nm)",
                    "checks": "mean Rg",
                }
            ],
            TASKS[1]: [],
        },
    }
    (folder / FILES["gate_summary"]).write_text(json.dumps(summary))


def example_failure_files(folder) -> None:
    """The failure analysis's tables and figures in ``folder`` from synthetic trials of one model agent (twelve,
    judged) and the gate's agents, made by the analysis's own functions (:mod:`westbench.agents.failures`); drawn
    once per process (:func:`_example_failure_bytes`) and copied, since many tests ask for them."""
    folder = Path(folder)
    for name, data in _example_failure_bytes().items():
        (folder / name).write_bytes(data)


@functools.lru_cache(maxsize=1)
def _example_failure_bytes() -> dict[str, bytes]:
    """The failure analysis's example files by name, drawn once in a scratch folder."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        _draw_example_failure_files(Path(scratch))
        return {path.name: path.read_bytes() for path in Path(scratch).iterdir()}


def _model_trial(k: int) -> dict:
    """The model agent's ``k``-th synthetic trial record: every third fails, by turns a missing deliverable or a
    failed check."""
    passed = k % 3 != 0
    return {
        "task": f"task-{k % 4}",
        "agent": "model-agent",
        "model": "openai-gpt",
        "attempt": 1 + k // 4,
        "difficulty": ("easy", "hard")[k % 2],
        "category": ("analysis", "setup")[k % 4 // 2],
        "outcome": "passed" if passed else "not passed",
        "trajectory": "read",
        "completion": "claims" if passed or k % 2 else "hedged",
        "completion_call": True,
        "tool_results": 10,
        "tool_errors": int(k % 4 == 0) + int(not passed),
        "last_tool_result_error": not passed and k % 2 == 0,
        "missing_deliverable": not passed and k % 2 == 0,
        "failed_check": not passed,
        "judge_shortfall": not passed,
        "signature": ("missing deliverable" if k % 2 == 0 else "failed check") if not passed else "none",
    }


def _model_card(trial: dict, k: int, rng: np.random.Generator) -> dict:
    """The process scorecard of the model agent's ``k``-th trial: one normal draw from ``rng`` around 0.8 (passed)
    or 0.35, on the first ``3 + k % 4`` capabilities."""
    from westbench.agents.process import CAPABILITIES

    passed = trial["outcome"] == "passed"
    process = float(np.clip((0.8 if passed else 0.35) + rng.normal(0, 0.1), 0, 1))
    covered = CAPABILITIES[: 3 + k % 4]
    return {
        **{key: trial[key] for key in ("task", "agent", "model", "attempt")},
        "task_score": 1.0 if passed else 0.5,
        "judged": True,
        "coverage": len(covered) / len(CAPABILITIES),
        "process": process,
        **{key: (process if key in covered else None) for key in CAPABILITIES},
    }


def _gate_trial(agent: str, task: str) -> dict:
    """A gate agent's trial record (no trajectory): the oracle passes, nop delivers nothing."""
    return {
        "task": task,
        "agent": agent,
        "model": "none",
        "attempt": 1,
        "difficulty": "easy",
        "category": "analysis",
        "outcome": "passed" if agent == "oracle" else "not passed",
        "trajectory": "absent",
        "missing_deliverable": agent == "nop",
        "failed_check": agent == "nop",
        "judge_shortfall": None,
        "signature": "none" if agent == "oracle" else "missing deliverable",
    }


def _draw_example_failure_files(folder: Path) -> None:
    """Write the failure analysis's example tables and figures into ``folder`` (seeded)."""
    from westbench.agents.failures import breach_table, completion_table, process_correlation, tool_error_table
    from westbench.agents.failures.figures import plot_breaches, plot_failures, plot_process
    from westbench.agents.process import agent_profile

    rng = np.random.default_rng(7)
    rows, cards = [], []
    for k in range(12):
        rows.append(_model_trial(k))
        cards.append(_model_card(rows[-1], k, rng))
    rows += [_gate_trial(agent, task) for agent in ("oracle", "nop") for task in ("task-0", "task-1")]
    trials, process = pd.DataFrame(rows), pd.DataFrame(cards)
    summary = agent_profile(process, seed=1, resamples=200).assign(agent="model-agent", model="openai-gpt")
    correlation = process_correlation(process, seed=1, resamples=200, min_trials=5)
    tables = {
        "process_table": process,
        "process_summary": summary,
        "process_correlation": correlation,
        "completion": completion_table(trials),
        "tool_errors": tool_error_table(trials),
        "breaches": breach_table(trials),
    }
    for role, table in tables.items():
        table.to_csv(folder / FILES[role], index=False)
    plot_process(summary, process, correlation, folder / FILES["process_figure"])
    plot_failures(tables["completion"], tables["tool_errors"], folder / FILES["failures_figure"])
    plot_breaches(tables["breaches"][tables["breaches"]["agent"] == "model-agent"], folder / FILES["breaches_figure"])
