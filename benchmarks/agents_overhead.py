"""Per-trial overhead of the agent benchmark outside agent and verifier time (image reuse, container start/stop).

Runs trials one after another through the same code path as the Snakemake rule
(:func:`westbench.agents.harbor.execute_trial`), images already built (a first, untimed trial per task
builds them), and splits each trial's wall time into

* agent: Harbor's ``agent_execution`` phase;
* checks: the verifier's own checks (``elapsed_s`` in checks.json);
* harbor_internal_overhead: Harbor's trial total minus agent and checks (container start, artifact
  collection, the separate verifier container's start and stop, uploads);
* process_overhead: the wall time of the ``harbor run`` process minus agent and checks (adds Harbor's
  Python start-up and job bookkeeping).

Usage (after `bash tools/setup-agents.sh`):
    .venv/bin/python benchmarks/agents_overhead.py --tasks we-weighted-rg repair-west-cfg --agents nop oracle --repeats 3
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from westbench.agents.harbor import execute_trial  # noqa: E402
from westbench.config import section_defaults  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["we-weighted-rg", "repair-west-cfg", "forcefield-edit"])
    parser.add_argument("--agents", nargs="+", default=["nop", "oracle"])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "agents_overhead.json"))
    args = parser.parse_args()
    settings = section_defaults("agents")
    rows = []
    with tempfile.TemporaryDirectory() as jobs:
        for task in args.tasks:
            warm = execute_trial(ROOT / "tasks" / task, {"id": "nop", "name": "nop"}, None, 0, settings, ROOT,
                                 Path(jobs) / task / "warmup")
            print(f"{task}: warm-up {warm['status']} {warm['wall_s']:.1f} s", flush=True)
            for agent in args.agents:
                for repeat in range(args.repeats):
                    record = execute_trial(ROOT / "tasks" / task, {"id": agent, "name": agent}, None, repeat + 1, settings,
                                           ROOT, Path(jobs) / task / f"{agent}-{repeat}")
                    timings = record["timings"]
                    agent_s, checks_s = timings.get("agent_execution") or 0.0, record.get("verifier_checks_s") or 0.0
                    row = {"task": task, "agent": agent, "repeat": repeat, "status": record["status"],
                           "wall_s": record["wall_s"], "harbor_total_s": timings.get("total"), "agent_s": agent_s,
                           "checks_s": checks_s, "environment_setup_s": timings.get("environment_setup"),
                           "verifier_phase_s": timings.get("verifier"),
                           "harbor_internal_overhead_s": round((timings.get("total") or 0) - agent_s - checks_s, 3),
                           "process_overhead_s": record["overhead_s"]}
                    rows.append(row)
                    print(json.dumps(row), flush=True)

    def summary(key):
        values = [r[key] for r in rows]
        return {"median": round(statistics.median(values), 2), "mean": round(statistics.mean(values), 2),
                "min": round(min(values), 2), "max": round(max(values), 2)}

    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.platform(), "trials": rows,
              "summary": {key: summary(key) for key in ("wall_s", "harbor_total_s", "environment_setup_s",
                                                         "verifier_phase_s", "harbor_internal_overhead_s",
                                                         "process_overhead_s")},
              "goal_s": 5.0}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))


if __name__ == "__main__":
    main()
