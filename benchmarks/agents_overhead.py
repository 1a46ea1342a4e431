"""Per-trial overhead of the agent benchmark outside agent and verifier time (image reuse, container start/stop).

Runs trials one after another through the same code path as the Snakemake rule
(:func:`westbench.agents.harbor.execute_trial`), images already built (a first, untimed trial per task
and variant builds them), and splits each trial's wall time into

* agent: Harbor's ``agent_execution`` phase;
* verifier: the verifier process (``process_elapsed_s`` in checks.json: interpreter start, imports
  and checks);
* harbor_internal_overhead: Harbor's trial total minus agent and verifier (container starts and
  stops, artifact collection, uploads);
* process_overhead: the wall time of the ``harbor run`` process minus agent and verifier (adds
  Harbor's Python start-up and job bookkeeping). This is the number the goal (5 s) is about.

Variants (``--variants``): ``westbench`` is what the pipeline runs (Harbor with westbench's Docker
environment, ``harbor_plugins/westbench_docker.py``); ``stock`` is Harbor's own Docker environment
with the same task and agent, for the ratio; ``podman`` is westbench's Podman environment (needs
``bash tools/setup-agents.sh --podman``).

Usage (after `bash tools/setup-agents.sh`):
    .venv/bin/python benchmarks/agents_overhead.py --tasks we-weighted-rg repair-west-cfg \\
        --agents nop oracle --repeats 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import westbench.agents.harbor as harbor  # noqa: E402
from westbench.config import section_defaults  # noqa: E402

# variant: (agents.environment, how the trial's Harbor environment options are made)
VARIANTS = {
    "westbench": ("docker", harbor.environment_args),
    "stock": ("docker", lambda environment, network: ["-e", environment]),
    "podman": ("podman", harbor.environment_args),
}
KEYS = (
    "wall_s",
    "harbor_total_s",
    "environment_setup_s",
    "verifier_phase_s",
    "harbor_internal_overhead_s",
    "process_overhead_s",
)


def run_variant(variant: str, tasks, agents, repeats: int, settings: dict, jobs: Path) -> list[dict]:
    environment, make_environment_args = VARIANTS[variant]
    settings = {**settings, "environment": environment}
    rows = []
    for task in tasks:
        warm = harbor.execute_trial(
            ROOT / "tasks" / task,
            {"id": "nop", "name": "nop"},
            None,
            0,
            settings,
            ROOT,
            jobs / variant / task / "warmup",
            make_environment_args,
        )
        print(f"{variant} {task}: warm-up {warm['status']} {warm['wall_s']:.1f} s", flush=True)
        for agent in agents:
            for repeat in range(repeats):
                record = harbor.execute_trial(
                    ROOT / "tasks" / task,
                    {"id": agent, "name": agent},
                    None,
                    repeat + 1,
                    settings,
                    ROOT,
                    jobs / variant / task / f"{agent}-{repeat}",
                    make_environment_args,
                )
                timings = record["timings"]
                agent_s, verifier_s = timings.get("agent_execution") or 0.0, record.get("verifier_s") or 0.0
                row = {
                    "variant": variant,
                    "task": task,
                    "agent": agent,
                    "repeat": repeat,
                    "status": record["status"],
                    "wall_s": record["wall_s"],
                    "harbor_total_s": timings.get("total"),
                    "agent_s": agent_s,
                    "verifier_s": verifier_s,
                    "environment_setup_s": timings.get("environment_setup"),
                    "verifier_phase_s": timings.get("verifier"),
                    "harbor_internal_overhead_s": round((timings.get("total") or 0) - agent_s - verifier_s, 3),
                    "process_overhead_s": record["overhead_s"],
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def summary(rows: list[dict], key: str) -> dict:
    values = [r[key] for r in rows]
    return {
        "median": round(statistics.median(values), 2),
        "mean": round(statistics.mean(values), 2),
        "min": round(min(values), 2),
        "max": round(max(values), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["we-weighted-rg", "repair-west-cfg", "forcefield-edit"])
    parser.add_argument("--agents", nargs="+", default=["nop", "oracle"])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--variants", nargs="+", choices=sorted(VARIANTS), default=["westbench", "stock"])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "agents_overhead.json"))
    args = parser.parse_args()
    settings = section_defaults("agents")
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as jobs:
        for variant in args.variants:
            rows += run_variant(variant, args.tasks, args.agents, args.repeats, settings, Path(jobs))
    summaries = {
        variant: {key: summary([r for r in rows if r["variant"] == variant], key) for key in KEYS}
        for variant in args.variants
    }
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": platform.platform(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "trials": rows,
        "summary": summaries,
        "goal_s": 5.0,
    }
    if {"westbench", "stock"} <= set(summaries):
        result["stock_over_westbench_process_overhead"] = round(
            summaries["stock"]["process_overhead_s"]["median"] / summaries["westbench"]["process_overhead_s"]["median"],
            2,
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({variant: {k: s[k]["median"] for k in KEYS} for variant, s in summaries.items()}, indent=2))
    print("stock / westbench process overhead:", result.get("stock_over_westbench_process_overhead"))


if __name__ == "__main__":
    main()
