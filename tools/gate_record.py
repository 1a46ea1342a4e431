"""Record a full gate: per task, the digest of what its gate trials read, where all its near misses were caught,
and whether its reference and do-nothing trials passed.

    .venv/bin/python tools/gate_record.py WORKDIR     # WORKDIR: where `snakemake agents` ran with every near miss
                                                      # (--config 'agents={gate: {near_misses: true}}')
    .venv/bin/python tools/gate_record.py WORKDIR --update  # WORKDIR: a gate of some tasks (agents.select.tasks, or
                                                            # the default near_misses `changed`, or near_misses false:
                                                            # the reference and do-nothing verdicts alone)
    .venv/bin/python tools/gate_record.py --check     # which tasks' trials the next CI run gates, and why

Writes docs/measured/gate_record.json (commit it). CI's agent tier (tests/containers/test_agents_pipeline.py) then
runs the reference and do-nothing trials, and the near misses, of the tasks changed since (all of them if the trial
environment changed), of those the record lacks and of one rotation shard: westbench.agents.gate_coverage. Run it
after a gate on the tree that gate ran (the digests are of the files as they are now; a task whose trials read
other files than today's is not recorded).
"""

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

from westbench.agents.gate_coverage import near_misses_to_gate, tasks_to_gate
from westbench.agents.gate_record import record_full_gate, update_record

ROOT = Path(__file__).resolve().parents[1]

RECORD = ROOT / "docs" / "measured" / "gate_record.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", nargs="?", type=Path, help="the working directory of a full `snakemake agents`")
    parser.add_argument("--check", action="store_true", help="print what the next CI run gates, write nothing")
    parser.add_argument(
        "--update", action="store_true", help="WORKDIR gated some tasks: write them over the record, keep the rest"
    )
    args = parser.parse_args()
    record = json.loads(RECORD.read_text()) if RECORD.is_file() else None
    if args.check or args.workdir is None:
        misses = near_misses_to_gate(ROOT / "tasks", ROOT, record, shard=None)
        for task, why in sorted(tasks_to_gate(ROOT / "tasks", ROOT, record, shard=None).items()):
            trials = "reference, do-nothing and near misses" if task in misses else "reference and do-nothing"
            print(f"{task} ({trials}): {why}")
        return 0
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    commit = head.stdout.strip() or None
    results = args.workdir / "results" / "agents"
    if args.update:
        if record is None:
            raise SystemExit(f"{RECORD.relative_to(ROOT)} is missing: record a full gate first")
        try:
            written = update_record(record, results, ROOT / "tasks", ROOT, label=commit)
        except ValueError as error:
            raise SystemExit(f"{RECORD.relative_to(ROOT)}: {error}") from None
    else:
        with open(results / "gate.csv", newline="") as handle:
            skipped = [row["task"] for row in csv.DictReader(handle) if row.get("near_misses_run") == "False"]
        if skipped:  # recording it would drop every task whose near misses the record, not this run, caught
            raise SystemExit(
                f"{args.workdir} is no full gate: the near misses of {len(skipped)} tasks did not run "
                f"({', '.join(skipped[:3])}, ...); use --update, or rerun with agents.gate.near_misses: true"
            )
        written = {"commit": commit, **record_full_gate(results, ROOT / "tasks", ROOT, label=commit)}
    stale = written.pop("stale")
    RECORD.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n")
    print(
        f"{RECORD.relative_to(ROOT)}: {len(written['tasks'])} tasks recorded "
        f"({sum(t['near_misses'] for t in written['tasks'].values())} near misses, all caught; "
        f"{sum(bool(t.get('gate')) for t in written['tasks'].values())} with a passing reference and do-nothing "
        f"trial); left out as stale: {stale or 'none'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
